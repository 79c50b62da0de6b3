// A tile's transposed copy, built on the device: each entry x_ij becomes the key
// j with the value {i, x_ij} (the intercept's column adds {i, 1} for every row),
// CUB's radix sort orders the pairs by key, stably, so each transposed row lists
// its rows in order (a fixed summation order: repeatable products), and each
// transposed row's first position is found by a binary search of the sorted keys.
// The sort reads only the bits below n_columns (3 passes of 8 bits for 2^20 to
// 2^24 columns).
#include <cub/device/device_radix_sort.cuh>

#include <limits>

#include "kernels.h"
#include "reduce.cuh"
#include "snapml/cuda/check.h"
#include "snapml/error.h"

namespace snapml::cuda::primal {
namespace {

__device__ __forceinline__ std::uint64_t pack(std::int64_t row, float value) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(row)) |
         (static_cast<std::uint64_t>(__float_as_uint(value)) << 32);
}

// One warp a row: its entries' keys and values, and the intercept's after all
// entries (at nnz + row).
__global__ void __launch_bounds__(kThreads)
    expand(RowTile tile, std::int64_t nnz, bool intercept, std::int32_t intercept_index,
           std::uint32_t* __restrict__ keys, std::uint64_t* __restrict__ values) {
  const int lane = threadIdx.x % kWarp;
  const std::int64_t warps = std::int64_t{gridDim.x} * (kThreads / kWarp);
  for (std::int64_t row = (blockIdx.x * std::int64_t{kThreads} + threadIdx.x) / kWarp; row < tile.n_rows;
       row += warps) {
    const std::int32_t end = tile.offsets[row + 1];
    for (std::int32_t k = tile.offsets[row] + lane; k < end; k += kWarp) {
      const Entry entry = tile.entries[k];
      keys[k] = static_cast<std::uint32_t>(entry.index);
      values[k] = pack(row, entry.value);
    }
    if (intercept && lane == 0) {
      keys[nnz + row] = static_cast<std::uint32_t>(intercept_index);
      values[nnz + row] = pack(row, 1.0f);
    }
  }
}

// t_offsets[j] = the first position whose key is >= j, for j = 0 .. n_columns.
__global__ void transposed_offsets(const std::uint32_t* __restrict__ sorted, std::int64_t items,
                                   std::int32_t n_columns, std::int32_t* __restrict__ t_offsets) {
  for (std::int64_t j = blockIdx.x * std::int64_t{kThreads} + threadIdx.x; j <= n_columns;
       j += std::int64_t{gridDim.x} * kThreads) {
    std::int64_t low = 0, high = items;
    while (low < high) {
      const std::int64_t middle = low + (high - low) / 2;
      if (static_cast<std::int64_t>(sorted[middle]) < j)
        low = middle + 1;
      else
        high = middle;
    }
    t_offsets[j] = static_cast<std::int32_t>(low);
  }
}

// Bits of the largest key, n_columns - 1 (at least 1).
int key_bits(std::int32_t n_columns) {
  int bits = 1;
  while (bits < 31 && (std::int64_t{1} << bits) < n_columns) ++bits;
  return bits;
}

int item_count(std::int64_t items) {
  require(items >= 0 && items <= std::numeric_limits<int>::max(),
          "a tile's transposed entries (" + std::to_string(items) + ") exceed 32-bit indices");
  return static_cast<int>(items);
}

}  // namespace

std::size_t transpose_temp_bytes(std::int64_t items, std::int32_t n_columns) {
  std::size_t bytes = 0;
  SNAPML_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr),
                                                    static_cast<std::uint32_t*>(nullptr),
                                                    static_cast<const std::uint64_t*>(nullptr),
                                                    static_cast<std::uint64_t*>(nullptr), item_count(items), 0,
                                                    key_bits(n_columns)));
  return bytes;
}

void launch_transpose(const RowTile& tile, std::int64_t nnz, bool intercept, std::int32_t intercept_index,
                      std::int32_t n_columns, const TransposeScratch& scratch, std::int32_t* t_offsets,
                      Entry* t_entries, cudaStream_t stream) {
  const std::int64_t items = nnz + (intercept ? tile.n_rows : 0);
  if (tile.n_rows > 0) {
    expand<<<blocks_for(tile.n_rows, kWarp), kThreads, 0, stream>>>(tile, nnz, intercept, intercept_index,
                                                                    scratch.keys_in, scratch.values_in);
    SNAPML_CUDA_CHECK(cudaGetLastError());
  }
  if (items > 0) {
    std::size_t bytes = scratch.temp_bytes;
    SNAPML_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.temp, bytes, scratch.keys_in, scratch.keys_out,
                                                      scratch.values_in, reinterpret_cast<std::uint64_t*>(t_entries),
                                                      item_count(items), 0, key_bits(n_columns), stream));
  }
  transposed_offsets<<<blocks_for(std::int64_t{n_columns} + 1), kThreads, 0, stream>>>(scratch.keys_out, items,
                                                                                       n_columns, t_offsets);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snapml::cuda::primal
