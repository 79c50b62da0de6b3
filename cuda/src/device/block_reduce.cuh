// The block-wide reduction of the TPA-SCD kernels (Parnell et al. 2017): one
// thread block per row; its threads stride over the row's non-zeros (consecutive
// threads read consecutive non-zeros, so the loads of values and columns
// coalesce), each warp reduces with shuffles, and warp 0 reduces the per-warp
// sums left in shared memory. row_dots.cu and the GPU dual solver's kernels (dual/cold_pass.cu, dual/hot_passes.cu) share this one copy.
#pragma once

#include <cstdint>
#include <type_traits>

#include "snapml/csr_view.h"

namespace snapml::cuda::detail {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

template <typename Real>
__device__ __forceinline__ Real warp_sum(Real value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(kFullMask, value, offset);
  return value;
}

// Shared memory a block of kThreads needs for block_sum.
template <int kThreads>
constexpr int kBlockSumSlots = kThreads / kWarp;

// The sum of `value` over the block's kThreads threads, valid in thread 0 only.
// Every thread must call it. `scratch` is kBlockSumSlots<kThreads> entries of
// shared memory; it may be reused as soon as the call returns.
template <int kThreads, typename Real>
__device__ __forceinline__ Real block_sum(Real value, Real* scratch) {
  static_assert(kThreads % kWarp == 0 && kThreads <= kWarp * kWarp, "a block of whole warps, at most 1024 threads");
  constexpr int kWarps = kThreads / kWarp;
  value = warp_sum(value);
  if constexpr (kWarps > 1) {
    const int lane = threadIdx.x % kWarp;
    const int warp = threadIdx.x / kWarp;
    if (lane == 0) scratch[warp] = value;
    __syncthreads();
    if (warp == 0) value = warp_sum(lane < kWarps ? scratch[lane] : Real(0));
    __syncthreads();  // the next call rewrites scratch
  }
  return value;
}

// This thread's share of x_row . w: the non-zeros threadIdx.x, + kThreads, ...
// `load(column)` reads w[column] (a plain load, or an L2 load while other blocks
// write w). Accumulates in Real.
template <int kThreads, typename Real, typename Load>
__device__ __forceinline__ Real partial_row_dot(const CsrView& x, std::int64_t row, Load load) {
  Real sum = 0;
  const float* __restrict__ values = x.values;
  const std::int32_t* __restrict__ columns = x.col_indices;
  const std::int64_t end = x.row_end(row);
  for (std::int64_t k = x.row_begin(row) + threadIdx.x; k < end; k += kThreads)
    sum += static_cast<Real>(values[k]) * load(columns[k]);
  return sum;
}

// The threads per block for a mean row length: the smallest of 32, 64, 128, 256
// that covers it, so short rows do not leave most threads idle (row_dots.h).
// Calls function(std::integral_constant<int, threads>{}).
template <typename Function>
decltype(auto) with_block_size(int threads, Function&& function) {
  switch (threads) {
    case 32: return function(std::integral_constant<int, 32>{});
    case 64: return function(std::integral_constant<int, 64>{});
    case 128: return function(std::integral_constant<int, 128>{});
    default: return function(std::integral_constant<int, 256>{});
  }
}

}  // namespace snapml::cuda::detail
