// The sums of the GPU Newton solver's kernels, deterministic by construction:
// a group of lanes reduces a row by a fixed shuffle tree, a block its threads'
// values by block_sum's fixed tree (../../device/block_reduce.cuh), and the last block of a
// grid to finish adds the blocks' partials in block order (the CUDA samples'
// threadFenceReduction: each block publishes its partial, fences, and takes a
// ticket; the block with the last ticket reads them all). Grids are sized from the
// problem alone (kernels.h), so a sum has the same bits on every run and device.
#pragma once

#include <cstdint>

#include "../../device/block_reduce.cuh"
#include "kernels.h"

namespace snapml::cuda::primal {

using snapml::cuda::detail::block_sum;
using snapml::cuda::detail::kBlockSumSlots;
using snapml::cuda::detail::kFullMask;
using snapml::cuda::detail::kWarp;

template <int N>
struct Sums {
  static constexpr int kCount = N;
  double value[N > 0 ? N : 1] = {};
  __device__ Sums& operator+=(const Sums& other) {
    for (int k = 0; k < N; ++k) value[k] += other.value[k];
    return *this;
  }
};

// The sum of `value` over the kLanes lanes of this thread's group (aligned groups
// of a warp), valid in the group's first lane. Every lane of the warp must call it.
template <int kLanes>
__device__ __forceinline__ double group_sum(double value) {
  for (int offset = kLanes / 2; offset > 0; offset /= 2) value += __shfl_down_sync(kFullMask, value, offset, kLanes);
  return value;
}

// A grid of kThreads-thread blocks walking items (rows, columns) in aligned groups
// of kLanes lanes: this thread's group and place in it, and the grid-stride loop's
// first base and stride. Every lane of a warp runs the same bases (each group
// takes base + group), so every lane reaches the group's shuffles.
template <int kLanes>
struct LaneGroups {
  static constexpr int kGroups = kWarp / kLanes;
  int group = 0;
  int member = 0;
  std::int64_t first = 0;
  std::int64_t stride = 0;
  __device__ LaneGroups() {
    const int lane = threadIdx.x % kWarp;
    group = lane / kLanes;
    member = lane % kLanes;
    first = (blockIdx.x * std::int64_t{kThreads} + threadIdx.x) / kWarp * kGroups;
    stride = std::int64_t{gridDim.x} * (kThreads / kWarp) * kGroups;
  }
};

// Blocks of a grid of kThreads threads that covers `items` items with
// `per_thread` threads each, at most kMaxBlocks (the rest by grid-stride loops).
inline int blocks_for(std::int64_t items, int per_item = 1) {
  const std::int64_t threads = items * per_item;
  const std::int64_t blocks = (threads + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

// Adds the block's `mine` over its threads and the grid, and writes (or adds, with
// `accumulate`) the grid's totals into reduction.result. Every thread of every
// block must call it, once, at the kernel's end.
template <int N>
__device__ void finish_sums(const Sums<N>& mine, const Reduction& reduction, bool accumulate) {
  static_assert(N >= 1 && N <= kMaxSums, "1 to kMaxSums sums");
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ bool last;
  double total[N];
  for (int k = 0; k < N; ++k) total[k] = block_sum<kThreads>(mine.value[k], scratch);
  if (threadIdx.x == 0) {
    for (int k = 0; k < N; ++k) reduction.partials[blockIdx.x * N + k] = total[k];
    __threadfence();  // the partials are visible before the ticket is
    const unsigned int ticket = atomicAdd(reduction.counter, 1u);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int k = 0; k < N; ++k) {
    double sum = 0.0;
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += kThreads) sum += __ldcg(reduction.partials + b * N + k);
    sum = block_sum<kThreads>(sum, scratch);
    if (threadIdx.x == 0) reduction.result[k] = accumulate ? reduction.result[k] + sum : sum;
  }
  if (threadIdx.x == 0) *reduction.counter = 0;  // ready for the next kernel on this stream
}

// One 8-byte load of an entry that is read once per pass: cache-streaming, so the
// entries do not push the gathered vector out of L2.
__device__ __forceinline__ Entry load_entry(const Entry* at) {
  const int2 raw = __ldcs(reinterpret_cast<const int2*>(at));
  return {raw.x, __int_as_float(raw.y)};
}

// Calls function(std::integral_constant<int, lanes>{}) for lanes in {2, 4, 8, 16, 32}.
template <typename Function>
void with_lanes(int lanes, Function&& function) {
  switch (lanes) {
    case 2: return function(std::integral_constant<int, 2>{});
    case 4: return function(std::integral_constant<int, 4>{});
    case 8: return function(std::integral_constant<int, 8>{});
    case 16: return function(std::integral_constant<int, 16>{});
    default: return function(std::integral_constant<int, 32>{});
  }
}

}  // namespace snapml::cuda::primal
