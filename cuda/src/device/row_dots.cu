#include "snapml/cuda/row_dots.h"

#include <algorithm>
#include <cstdint>

#include "block_reduce.cuh"
#include "snapml/cuda/check.h"
#include "snapml/cuda/epoch_schedule.h"

namespace snapml::cuda {
namespace {

// One block per row, looping over rows when there are more rows than blocks; the
// reduction is block_reduce.cuh's, shared with the SDCA kernels.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) row_dots_kernel(const CsrView x, const float* __restrict__ w,
                                                            float* __restrict__ out) {
  __shared__ float scratch[detail::kBlockSumSlots<kThreads>];
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    const float partial =
        detail::partial_row_dot<kThreads, float>(x, row, [w](std::int32_t column) { return w[column]; });
    const float sum = detail::block_sum<kThreads>(partial, scratch);
    if (threadIdx.x == 0) out[row] = sum;
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

int row_dots_block_size(double mean_row_nnz) { return row_block_size(mean_row_nnz); }

void row_dots(const DeviceCsr& matrix, const float* w, float* out, cudaStream_t stream) {
  if (matrix.n_rows() == 0) return;
  DeviceGuard guard(matrix.device_id());
  const CsrView& x = matrix.view();
  const int threads = row_dots_block_size(static_cast<double>(matrix.nnz()) / static_cast<double>(x.n_rows));
  detail::with_block_size(threads, [&](auto block) { launch<decltype(block)::value>(x, w, out, stream); });
}

}  // namespace snapml::cuda
