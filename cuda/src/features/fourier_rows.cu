// The random Fourier features kernel (fourier_rows.h). The per-feature maths is
// snapml/random_features.h's fourier_feature, shared with the CPU.
#include "features/fourier_rows.h"

#include "snapml/cuda/check.h"
#include "snapml/random_features.h"

namespace snapml::cuda {
namespace {

constexpr int kThreads = 128;

__global__ void fourier_rows(std::int64_t n_rows, const std::int64_t* row_offsets, const std::int32_t* columns,
                             const float* values, const double* weights, const double* offsets, std::int32_t D,
                             double scale, float* out) {
  // Rows past 65,535 blocks wrap onto the grid's rows (grid-stride over rows).
  for (std::int64_t row = blockIdx.x; row < n_rows; row += gridDim.x) {
    const std::int64_t begin = row_offsets[row], end = row_offsets[row + 1];
    for (std::int32_t j = threadIdx.x; j < D; j += blockDim.x) {
      double projection = offsets[j];
      for (std::int64_t k = begin; k < end; ++k)
        projection += static_cast<double>(values[k]) * weights[static_cast<std::int64_t>(columns[k]) * D + j];
      out[row * D + j] = fourier_feature(projection, scale);
    }
  }
}

}  // namespace

void launch_fourier_rows(std::int64_t n_rows, const std::int64_t* row_offsets, const std::int32_t* columns,
                         const float* values, const double* weights, const double* offsets, std::int32_t D,
                         double scale, float* out, cudaStream_t stream) {
  if (n_rows == 0) return;
  const auto blocks = static_cast<unsigned>(n_rows < 65535 ? n_rows : 65535);
  fourier_rows<<<blocks, kThreads, 0, stream>>>(n_rows, row_offsets, columns, values, weights, offsets, D, scale, out);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snapml::cuda
