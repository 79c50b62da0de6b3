#include "snapml/cuda/row_dots.h"

#include <algorithm>
#include <cstdint>

#include "snapml/cuda/check.h"

namespace snapml::cuda {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ float warp_sum(float value) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(kFullMask, value, offset);
  return value;
}

// One block per row, looping over rows when there are more rows than blocks. Each
// thread accumulates a strided slice of the row (consecutive threads read consecutive
// non-zeros, so the loads of values and columns coalesce), each warp reduces with
// shuffles, and warp 0 reduces the per-warp sums left in shared memory.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) row_dots_kernel(const CsrView x, const float* __restrict__ w,
                                                            float* __restrict__ out) {
  constexpr int kWarps = kThreads / kWarp;
  __shared__ float warp_sums[kWarps];
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const float* __restrict__ values = x.values;
  const std::int32_t* __restrict__ columns = x.col_indices;

  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    float sum = 0.0f;
    const std::int64_t end = x.row_end(row);
    for (std::int64_t k = x.row_begin(row) + threadIdx.x; k < end; k += kThreads)
      sum += values[k] * w[columns[k]];
    sum = warp_sum(sum);
    if (kWarps == 1) {
      if (lane == 0) out[row] = sum;
      continue;
    }
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
      sum = lane < kWarps ? warp_sums[lane] : 0.0f;
      sum = warp_sum(sum);
      if (lane == 0) out[row] = sum;
    }
    __syncthreads();  // warp_sums is rewritten for the next row
  }
}

template <int kThreads>
void launch(const CsrView& x, const float* w, float* out, cudaStream_t stream) {
  // Enough blocks to fill the device many times over; the kernel loops for the rest.
  constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 20;
  const auto blocks = static_cast<unsigned>(std::min(x.n_rows, kMaxBlocks));
  row_dots_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(x, w, out);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

int row_dots_block_size(double mean_row_nnz) {
  for (int threads : {32, 64, 128})
    if (mean_row_nnz <= threads) return threads;
  return 256;
}

void row_dots(const DeviceCsr& matrix, const float* w, float* out, cudaStream_t stream) {
  if (matrix.n_rows() == 0) return;
  DeviceGuard guard(matrix.device_id());
  const CsrView& x = matrix.view();
  switch (row_dots_block_size(static_cast<double>(matrix.nnz()) / static_cast<double>(x.n_rows))) {
    case 32: return launch<32>(x, w, out, stream);
    case 64: return launch<64>(x, w, out, stream);
    case 128: return launch<128>(x, w, out, stream);
    default: return launch<256>(x, w, out, stream);
  }
}

}  // namespace snapml::cuda
