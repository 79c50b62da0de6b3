// Host entry points of the TPA-SCD kernels (sdca_gpu.cu), for the GPU SDCA solver
// (sdca_gpu_solver.cpp). Each queues its kernel on `stream` and returns at once;
// all pointers are device pointers of one device-resident chunk.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "snapml/csr_view.h"
#include "snapml/cuda/permutation.h"
#include "snapml/losses/dispatch.h"
#include "snapml/solver.h"

namespace snapml::cuda::detail {

// The loss and the parameters of its coordinate step (dispatch.h's with_loss).
struct LossSetup {
  LossKind kind = LossKind::Logistic;
  double epsilon = 0.0;            // squared loss
  double newton_tolerance = 1e-11;  // logistic
};

// Per-row data of a chunk, in the chunk's row order: the +-1 or regression target
// y_i, the cost C_i (0: the row is absent), the step's ||x_i||^2 including the
// constant feature, and the dual variable.
struct RowData {
  const double* target = nullptr;
  const double* cost = nullptr;
  const double* squared_norm = nullptr;
  double* alpha = nullptr;
};

// The vector a step reads and updates, with the constant feature (intercept) at
// bias_index = n_features, of value bias_value (0 without intercept).
struct WeightsView {
  double* weights = nullptr;
  std::int32_t bias_index = 0;
  double bias_value = 0.0;
};

// The threads per block for a chunk (row_dots_block_size of its mean row length).
int block_size_for(std::int64_t n_rows, std::int64_t nnz);

// squared_norm[i] = ||x_i||^2 + bias_square, as the CPU solver caches it.
void launch_squared_norms(const CsrView& x, double bias_square, double* squared_norm, cudaStream_t stream);

// How the dual variables start (solver.h's StartFrom): from given alpha (already
// in rows.alpha, clipped here), from the margins of `start_weights`, or cold.
using ::snapml::StartFrom;

// Sets rows.alpha and adds w(alpha) of the chunk's rows into w.weights (atomics).
void launch_initialise(const LossSetup& loss, const CsrView& x, std::int64_t nnz, const RowData& rows,
                       StartFrom start, const double* start_weights, const WeightsView& w,
                       cudaStream_t stream);

// One TPA-SCD pass over the chunk in the order `order`: one block per coordinate,
// blocks run asynchronously against the shared w (sdca_gpu.cu explains).
void launch_epoch(const LossSetup& loss, const CsrView& x, std::int64_t nnz, const RowData& rows,
                  const WeightsView& w, double sigma, const FeistelPermutation& order,
                  cudaStream_t stream);

// Blocks of the objective kernel; `partials` holds 2 * kObjectiveBlocks doubles.
constexpr int kObjectiveBlocks = 1024;

// partials[2b] and partials[2b + 1]: block b's share of sum_i C_i loss(y_i, w.x_i)
// and of sum_i dual_value(y_i, alpha_i, C_i) (objectives.h), in double. Rows map
// to blocks and blocks sum in a fixed order, so the result is reproducible.
void launch_objective_sums(const LossSetup& loss, const CsrView& x, std::int64_t nnz, const RowData& rows,
                           const WeightsView& w, double* partials, cudaStream_t stream);

}  // namespace snapml::cuda::detail
