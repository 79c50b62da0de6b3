// The cold pass of the GPU dual solver: TPA-SCD (Parnell, Dünner, Atasu, Sifalakis
// & Pozidis 2017, "Large-scale stochastic learning using GPUs", IPDPSW) on the
// cold columns only (epoch_schedule.h, "hot and cold"), and the start of a fit.
//
// Kernel shape: a persistent grid of R blocks, R the blocks the device keeps
// resident (cold_pass_rows_in_flight) or fewer once the divergence guard halved
// it; block b takes positions b, b + R, ... of the epoch's order (permutation.h),
// so exactly R rows are in flight. For each, the block reduces the row's margin
// over every column (the hot weights and the intercept are read, never written),
// thread 0 takes the loss's exact step at the row's cold curvature (row_work.h,
// cold_step: the code the host executor runs), and the block adds its update to
// the cold columns with atomics, which land in L2 before the block's next row;
// reads go through L2 (__ldcg), never a stale L1 line. A read misses at most the
// R - 1 updates in flight, on columns each in at most about n / R of the chunk's
// rows, which the cold curvature's ESO factors (at most 2) allow for.
//
// Precision: data float32; v, alpha and the row state float64 (atomicAdd on
// doubles is native since sm_60).
#include <algorithm>
#include <type_traits>

#include "device/block_reduce.cuh"
#include "dual/kernels.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/epoch_schedule.h"
#include "snapml/impl/dual_start.h"

namespace snapml::cuda::dual {
namespace {

using detail::block_sum;
using detail::kBlockSumSlots;
using detail::with_block_size;

constexpr std::int64_t kStrideBlocks = 4096;

__device__ __forceinline__ double load_l2(const double* address) { return __ldcg(address); }

template <int kThreads, typename Loss>
__global__ void __launch_bounds__(kThreads)
    cold_pass_kernel(const Loss loss, const CsrView x, RowState* __restrict__ rows, const ColumnSplit split,
                     double* v, const double sigma, const FeistelPermutation order) {
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ double scale;  // thread 0's step, broadcast to the block
  for (std::int64_t position = blockIdx.x; position < x.n_rows; position += gridDim.x) {
    const auto row = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(position)));
    const double partial =
        partial_row_margin(x, row, threadIdx.x, kThreads, [v](std::int32_t column) { return load_l2(v + column); });
    const double dot = block_sum<kThreads>(partial, scratch);
    if (threadIdx.x == 0) {
      const double margin = dot + split.bias_value * load_l2(v + split.bias_index);
      scale = cold_step(loss, rows[row], margin, sigma);
    }
    __syncthreads();
    const double step = scale;
    if (step != 0.0)
      scatter_cold(x, row, split.slot, step, threadIdx.x, kThreads,
                   [v](std::int32_t column, double value) { atomicAdd(v + column, value); });
    __syncthreads();  // thread 0 rewrites `scale` for the next row
  }
}

template <int kThreads, typename Loss>
__global__ void __launch_bounds__(kThreads)
    initialise_kernel(const Loss loss, const CsrView x, RowState* __restrict__ rows, const StartFrom start,
                      const double* __restrict__ start_weights, const ColumnSplit split, double* v) {
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ double scale;
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    double dot = 0.0;
    if (start == StartFrom::Weights)
      dot = block_sum<kThreads>(partial_row_margin(x, row, threadIdx.x, kThreads,
                                                   [start_weights](std::int32_t j) { return start_weights[j]; }),
                                scratch);
    if (threadIdx.x == 0) {
      RowState& r = rows[row];
      scale = 0.0;
      if (!(r.cost > 0.0)) {
        r.alpha = 0.0;  // stays 0: the row is absent
      } else {
        const double margin =
            start == StartFrom::Weights ? dot + split.bias_value * start_weights[split.bias_index] : 0.0;
        r.alpha = starting_alpha(loss, start, start == StartFrom::Alpha ? r.alpha : 0.0, margin, r.target, r.cost);
        scale = r.alpha * Loss::coefficient(r.target);
        if (scale != 0.0) atomicAdd(v + split.bias_index, scale * split.bias_value);
      }
    }
    __syncthreads();
    const double step = scale;
    if (step != 0.0)
      scatter_all(x, row, step, threadIdx.x, kThreads, [v](std::int32_t column, double value) { atomicAdd(v + column, value); });
    __syncthreads();
  }
}

}  // namespace

int chunk_threads(std::int64_t n_rows, std::int64_t nnz) {
  return row_block_size(n_rows > 0 ? static_cast<double>(nnz) / static_cast<double>(n_rows) : 0.0);
}

std::int64_t cold_pass_rows_in_flight(const LossSetup& setup, int threads) {
  int device = 0;
  SNAPML_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  SNAPML_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int blocks = 0;
  with_setup(setup, [&](const auto&, const auto& stepping) {
    using Loss = std::decay_t<decltype(stepping)>;
    with_block_size(threads, [&](auto block) {
      constexpr int kThreads = decltype(block)::value;
      SNAPML_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, cold_pass_kernel<kThreads, Loss>, kThreads, 0));
    });
  });
  return std::max<std::int64_t>(1, std::int64_t{blocks} * sms);
}

void launch_cold_pass(const LossSetup& setup, const CsrView& x, std::int64_t nnz, RowState* rows,
                      const ColumnSplit& split, double* v, double sigma, const FeistelPermutation& order,
                      std::int64_t rows_in_flight, cudaStream_t stream) {
  if (x.n_rows == 0) return;
  const auto grid = static_cast<unsigned>(std::max<std::int64_t>(1, std::min(x.n_rows, rows_in_flight)));
  with_setup(setup, [&](const auto&, const auto& stepping) {
    using Loss = std::decay_t<decltype(stepping)>;
    with_block_size(chunk_threads(x.n_rows, nnz), [&](auto block) {
      constexpr int kThreads = decltype(block)::value;
      cold_pass_kernel<kThreads, Loss><<<grid, kThreads, 0, stream>>>(stepping, x, rows, split, v, sigma, order);
    });
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_initialise(const LossSetup& setup, const CsrView& x, std::int64_t nnz, RowState* rows, StartFrom start,
                       const double* start_weights, const ColumnSplit& split, double* v, cudaStream_t stream) {
  if (x.n_rows == 0) return;
  const auto grid = static_cast<unsigned>(std::min(x.n_rows, kStrideBlocks));
  // The start is the certified loss's (dual_start.h): the hinge's box, the
  // logistic cold start at 0.
  with_setup(setup, [&](const auto& certified, const auto&) {
    using Loss = std::decay_t<decltype(certified)>;
    with_block_size(chunk_threads(x.n_rows, nnz), [&](auto block) {
      constexpr int kThreads = decltype(block)::value;
      initialise_kernel<kThreads, Loss><<<grid, kThreads, 0, stream>>>(certified, x, rows, start, start_weights, split, v);
    });
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snapml::cuda::dual
