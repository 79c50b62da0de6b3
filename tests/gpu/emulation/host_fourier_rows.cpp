// launch_fourier_rows (cuda/src/features/fourier_rows.h) as a host loop for the
// emulated build (README.md): the host side of the GPU random Fourier features
// (the map's upload, the batches, their rebased offsets, the copies back) runs and
// is checked against the CPU's features without a device. The kernel itself is
// checked by test_random_features_gpu on a device.
#include "features/fourier_rows.h"

#include "fake_cuda_runtime.h"
#include "snapml/random_features.h"

namespace snapml::cuda {

void launch_fourier_rows(std::int64_t n_rows, const std::int64_t* row_offsets, const std::int32_t* columns,
                         const float* values, const double* weights, const double* offsets, std::int32_t D,
                         double scale, float* out, cudaStream_t stream) {
  emulation::require_current_device(stream);
  for (std::int64_t row = 0; row < n_rows; ++row) {
    for (std::int32_t j = 0; j < D; ++j) {
      double projection = offsets[j];
      for (std::int64_t k = row_offsets[row]; k < row_offsets[row + 1]; ++k)
        projection += static_cast<double>(values[k]) * weights[static_cast<std::int64_t>(columns[k]) * D + j];
      out[row * D + j] = fourier_feature(projection, scale);
    }
  }
}

}  // namespace snapml::cuda
