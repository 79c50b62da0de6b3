// TPA-SCD: the twice-parallel asynchronous stochastic coordinate descent of Parnell,
// Dünner, Atasu, Sifalakis & Pozidis 2017 ("Large-scale stochastic learning using
// GPUs", IPDPSW), for the SDCA dual of every L2 loss.
//
// Kernel shape: one thread block per coordinate (row i). The block
//   1. reads its row from the epoch's order (permutation.h, computed on the fly),
//   2. reduces the margin v.x_i over the row's non-zeros (block_reduce.cuh),
//   3. lets thread 0 take the exact coordinate step with the loss struct
//      (snapml/losses/, the same code the CPU solver runs), and
//   4. scatters sigma' * delta_alpha * coefficient(y_i) * x_i into v with atomicAdd.
// Blocks run asynchronously against the one shared v, as in the paper: a block
// reads v while others still add to it. A read misses at most the updates of
// the blocks resident at the same time (SMs x resident blocks per SM, about
// 132 x 16 on an H100 with 128-thread blocks), because each block's updates are
// in L2 before it retires; reads therefore go through L2 (__ldcg), never through a
// possibly stale L1 line. The atomics keep w = w(alpha) exact up to rounding, so the
// duality gap stays a certificate (Hsieh, Yu & Dhillon 2015 call this
// PASSCoDe-Atomic; the CPU solver does the same on threads).
//
// Precision: data float32; v, alpha, costs, targets and norms float64. Double
// atomicAdd is native since sm_60 and as fast as float's in Hopper's L2; doubles
// keep the invariant and the certificate as tight as the CPU solver's.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../device/block_reduce.cuh"
#include "sdca_gpu_kernels.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/row_dots.h"
#include "snapml/impl/dual_start.h"

namespace snapml::cuda::detail {
namespace {

// Grid-stride kernels (initialise, objective) use at most this many blocks.
constexpr std::int64_t kStrideBlocks = 4096;
// A launch has at most 2^31 - 1 blocks; the epoch kernel strides past that.
constexpr std::int64_t kMaxGrid = 2147483647;

__device__ __forceinline__ double load_l2(const double* address) { return __ldcg(address); }

template <int kThreads, typename Loss>
__global__ void __launch_bounds__(kThreads)
    epoch_kernel(const Loss loss, const CsrView x, const RowData rows, const WeightsView w, const double sigma,
                 const FeistelPermutation order) {
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ double scale;  // thread 0's step, broadcast to the block
  double* const v = w.weights;
  for (std::int64_t position = blockIdx.x; position < x.n_rows; position += gridDim.x) {
    const auto row = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(position)));
    const double cost = rows.cost[row];
    if (!(cost > 0.0)) continue;  // the same for every thread of the block
    const double partial =
        partial_row_dot<kThreads, double>(x, row, [v](std::int32_t column) { return load_l2(v + column); });
    const double dot = block_sum<kThreads>(partial, scratch);
    if (threadIdx.x == 0) {
      const double y = rows.target[row];
      const double margin = dot + w.bias_value * load_l2(v + w.bias_index);
      const double old_alpha = rows.alpha[row];
      const double new_alpha = loss.step(y, old_alpha, margin, rows.squared_norm[row], cost, sigma);
      rows.alpha[row] = new_alpha;
      scale = new_alpha == old_alpha ? 0.0 : sigma * (new_alpha - old_alpha) * Loss::coefficient(y);
      if (scale != 0.0) atomicAdd(v + w.bias_index, scale * w.bias_value);
    }
    __syncthreads();
    const double step = scale;
    if (step != 0.0) {
      const std::int64_t end = x.row_end(row);
      for (std::int64_t k = x.row_begin(row) + threadIdx.x; k < end; k += kThreads)
        atomicAdd(v + x.col_indices[k], step * static_cast<double>(x.values[k]));
    }
    __syncthreads();  // thread 0 rewrites `scale` for the next row
  }
}

template <int kThreads, typename Loss>
__global__ void __launch_bounds__(kThreads)
    initialise_kernel(const Loss loss, const CsrView x, const RowData rows, const StartFrom start,
                      const double* __restrict__ start_weights, const WeightsView w) {
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ double scale;
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    const double cost = rows.cost[row];
    if (!(cost > 0.0)) {
      if (threadIdx.x == 0) rows.alpha[row] = 0.0;  // stays 0: the row is absent
      continue;
    }
    double dot = 0.0;
    if (start == StartFrom::Weights)
      dot = block_sum<kThreads>(partial_row_dot<kThreads, double>(
                                    x, row, [start_weights](std::int32_t column) { return start_weights[column]; }),
                                scratch);
    if (threadIdx.x == 0) {
      const double y = rows.target[row];
      const bool from_weights = start == StartFrom::Weights;
      const double margin = from_weights ? dot + w.bias_value * start_weights[w.bias_index] : 0.0;
      const double alpha =
          starting_alpha(loss, start, start == StartFrom::Alpha ? rows.alpha[row] : 0.0, margin, y, cost);
      rows.alpha[row] = alpha;
      scale = alpha * Loss::coefficient(y);
      if (scale != 0.0) atomicAdd(w.weights + w.bias_index, scale * w.bias_value);
    }
    __syncthreads();
    const double step = scale;
    if (step != 0.0) {
      const std::int64_t end = x.row_end(row);
      for (std::int64_t k = x.row_begin(row) + threadIdx.x; k < end; k += kThreads)
        atomicAdd(w.weights + x.col_indices[k], step * static_cast<double>(x.values[k]));
    }
    __syncthreads();
  }
}

// objectives.cpp's sums: the margin w.x_i + bias_value * w_bias, then C_i loss and
// the dual value of each present row, summed by thread 0 of the row's block.
template <int kThreads, typename Loss>
__global__ void __launch_bounds__(kThreads)
    objective_kernel(const Loss loss, const CsrView x, const RowData rows, const WeightsView w,
                     double* __restrict__ partials) {
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  const double* __restrict__ weights = w.weights;
  const double bias_term = w.bias_value * weights[w.bias_index];
  double loss_sum = 0.0;
  double dual_sum = 0.0;
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    const double cost = rows.cost[row];
    if (!(cost > 0.0)) continue;  // a zero-cost row is absent from both problems
    const double dot = block_sum<kThreads>(
        partial_row_dot<kThreads, double>(x, row, [weights](std::int32_t column) { return weights[column]; }),
        scratch);
    if (threadIdx.x == 0) {
      const double y = rows.target[row];
      loss_sum += cost * loss.loss(y, dot + bias_term);
      dual_sum += loss.dual_value(y, rows.alpha[row], cost);
    }
  }
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = loss_sum;
    partials[2 * blockIdx.x + 1] = dual_sum;
  }
}

__global__ void squared_norms_kernel(const CsrView x, const double bias_square, double* __restrict__ out) {
  for (std::int64_t row = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; row < x.n_rows;
       row += std::int64_t{gridDim.x} * blockDim.x)
    out[row] = row_squared_norm(x, row) + bias_square;
}

// Calls launch(loss, block) with the loss struct and the block size of the chunk.
template <typename Launch>
void dispatch(const LossSetup& setup, std::int64_t n_rows, std::int64_t nnz, Launch&& launch) {
  with_loss(setup.kind, setup.epsilon, setup.newton_tolerance, [&](const auto& loss) {
    with_block_size(block_size_for(n_rows, nnz), [&](auto block) { launch(loss, block); });
  });
}

unsigned stride_grid(std::int64_t n_rows) {
  return static_cast<unsigned>(std::min(n_rows, kStrideBlocks));
}

}  // namespace

int block_size_for(std::int64_t n_rows, std::int64_t nnz) {
  return row_dots_block_size(n_rows > 0 ? static_cast<double>(nnz) / static_cast<double>(n_rows) : 0.0);
}

void launch_squared_norms(const CsrView& x, double bias_square, double* squared_norm, cudaStream_t stream) {
  if (x.n_rows == 0) return;
  const int threads = 256;
  const auto grid = static_cast<unsigned>(std::min<std::int64_t>((x.n_rows + threads - 1) / threads, 65535));
  squared_norms_kernel<<<grid, threads, 0, stream>>>(x, bias_square, squared_norm);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_initialise(const LossSetup& setup, const CsrView& x, std::int64_t nnz, const RowData& rows,
                       StartFrom start, const double* start_weights, const WeightsView& w,
                       cudaStream_t stream) {
  if (x.n_rows == 0) return;
  dispatch(setup, x.n_rows, nnz, [&](const auto& loss, auto block) {
    using Loss = std::decay_t<decltype(loss)>;
    constexpr int kThreads = decltype(block)::value;
    initialise_kernel<kThreads, Loss>
        <<<stride_grid(x.n_rows), kThreads, 0, stream>>>(loss, x, rows, start, start_weights, w);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_epoch(const LossSetup& setup, const CsrView& x, std::int64_t nnz, const RowData& rows,
                  const WeightsView& w, double sigma, const FeistelPermutation& order, cudaStream_t stream) {
  if (x.n_rows == 0) return;
  // One block per coordinate: the hardware scheduler starts them in position order
  // as earlier ones retire, which is the paper's asynchronous schedule.
  const auto grid = static_cast<unsigned>(std::min(x.n_rows, kMaxGrid));
  dispatch(setup, x.n_rows, nnz, [&](const auto& loss, auto block) {
    using Loss = std::decay_t<decltype(loss)>;
    constexpr int kThreads = decltype(block)::value;
    epoch_kernel<kThreads, Loss><<<grid, kThreads, 0, stream>>>(loss, x, rows, w, sigma, order);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_objective_sums(const LossSetup& setup, const CsrView& x, std::int64_t nnz, const RowData& rows,
                           const WeightsView& w, double* partials, cudaStream_t stream) {
  // Every block writes its two partials, so an empty chunk still zeroes them all.
  const unsigned grid = kObjectiveBlocks;
  dispatch(setup, x.n_rows, nnz, [&](const auto& loss, auto block) {
    using Loss = std::decay_t<decltype(loss)>;
    constexpr int kThreads = decltype(block)::value;
    objective_kernel<kThreads, Loss><<<grid, kThreads, 0, stream>>>(loss, x, rows, w, partials);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snapml::cuda::detail
