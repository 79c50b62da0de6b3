// Host entry points of the GPU dual solver's kernels (cold_pass.cu, hot_passes.cu):
// each queues its kernel on `stream` and returns. All pointers are device
// pointers; a CsrView is one device-resident chunk and RowArrays point at its
// first row. The per-row arithmetic is row_work.h's, which the host executor
// (tests/support/gpu_epoch_model.cpp) runs too; these files only lay it out over
// threads and blocks.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "dual/loss_setup.h"
#include "dual/row_work.h"
#include "snapml/csr_view.h"
#include "snapml/cuda/permutation.h"
#include "snapml/solver.h"

namespace snapml::cuda::dual {

// A worker's per-row device arrays, at a chunk's first row.
struct RowArrays {
  RowState* state = nullptr;
  double* margin = nullptr;     // x_i . v at the last margin pass, moved by the hot steps
  double* direction = nullptr;  // z_i = x_i^hot . u of the hot step's direction
  double* product = nullptr;    // x_i^hot . d of the last Hessian product
  double* weight = nullptr;     // the envelope's curvature at the margin pass
  double* paired = nullptr;     // alpha^v of the last certificate
  double* best = nullptr;       // the alpha of the best certificate
  RowArrays at(std::int64_t first) const {
    return {state + first, margin + first, direction + first, product + first,
            weight + first, paired + first, best + first};
  }
};

// The hot slots: n_hot in all (the intercept's first), the first `shared` of
// them summed in each block's shared memory before one atomic add per block (the
// densest columns: the adds to them would meet), the rest added at once.
struct HotSlots {
  std::int32_t n_hot = 0;
  std::int32_t shared = 0;
};

// The blocks of kThreads threads the cold pass keeps resident on this device
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor times the SMs): R.
std::int64_t cold_pass_rows_in_flight(const LossSetup& loss, int threads);
// The threads per block of a chunk's row kernels (row_block_size of its mean row).
int chunk_threads(std::int64_t n_rows, std::int64_t nnz);

// The cold pass (TPA-SCD on the cold columns): min(R, n) persistent blocks take
// positions b, b + grid, ... of `order`; each steps its row's alpha at the row's
// cold curvature against its margin over every column, and adds its update to the
// cold columns with atomics.
void launch_cold_pass(const LossSetup& loss, const CsrView& x, std::int64_t nnz, RowState* rows,
                      const ColumnSplit& split, double* v, double sigma, const FeistelPermutation& order,
                      std::int64_t rows_in_flight, cudaStream_t stream);

// Starting alpha (dual_start.h) and w(alpha) added into v over every column.
void launch_initialise(const LossSetup& loss, const CsrView& x, std::int64_t nnz, RowState* rows, StartFrom start,
                       const double* start_weights, const ColumnSplit& split, double* v, cudaStream_t stream);

// Margins m_i = x_i . v, the envelope's curvature per row, and the hot sums
// (hybrid_backend.h, HotSums: gradient, of_alpha, diagonal; n_hot each) added.
void launch_margin_pass(const LossSetup& loss, const CsrView& x, std::int64_t nnz, const RowArrays& rows,
                        const ColumnSplit& split, const HotSlots& slots, const double* v, double* gradient,
                        double* of_alpha, double* diagonal, cudaStream_t stream);

// out += X_H^T (weight . X_H d); product_i = x_i^hot . d.
void launch_hvp(const CsrView& x, std::int64_t nnz, const RowArrays& rows, const ColumnSplit& split,
                const HotSlots& slots, const double* d, double* out, cudaStream_t stream);

// alpha^v of every row (paired_alpha of the stepping loss) into rows.paired,
// w(alpha^v) added into u (n_features + 1), and per block the certified and the
// stepping loss's dual values at alpha^v into partials[2b], partials[2b + 1].
// `columns`: slot -> column (the intercept's n_features). Launches kRowBlocks
// blocks, each writing its two partials.
void launch_paired_pass(const LossSetup& loss, const CsrView& x, std::int64_t nnz, const RowArrays& rows,
                        const ColumnSplit& split, const HotSlots& slots, const std::int32_t* columns, double* u,
                        double* partials, cudaStream_t stream);

// Row-scalar reductions, kRowBlocks blocks, kRowValues partials per block
// (partials[kRowValues b + k]), summed on the host in block order:
//   Line:      line_terms at t (value, slope, curvature);
//   Objective: row_sums at the margins (loss, dual, surrogate loss, surrogate dual);
//   Mixed:     the certified and stepping dual values at (1 - t) alpha + t alpha^v.
enum class RowReduce { Line, Objective, Mixed };
constexpr int kRowBlocks = 1024;
constexpr int kRowValues = 4;
void launch_row_reduce(RowReduce kind, const LossSetup& loss, std::int64_t n_rows, const RowArrays& rows, double t,
                       double* partials, cudaStream_t stream);

// direction += a product.
void launch_accumulate_direction(std::int64_t n_rows, const RowArrays& rows, double a, cudaStream_t stream);
// margin += t direction (t may be 0), direction = 0.
void launch_apply_margins(std::int64_t n_rows, const RowArrays& rows, double t, cudaStream_t stream);
// best = (1 - theta) alpha + theta paired.
void launch_keep_alpha(std::int64_t n_rows, const RowArrays& rows, double theta, cudaStream_t stream);
// v[columns[s]] = weights[s] for the n_hot slots.
void launch_set_hot_weights(double* v, const std::int32_t* columns, const double* weights, std::int32_t n_hot,
                            cudaStream_t stream);

}  // namespace snapml::cuda::dual
