// Random Fourier features (snapml/random_features.h) on one CUDA device: the
// GPU backend's RandomFeaturesGpu.
#pragma once

#include <cstdint>

#include "snapml/csr_view.h"
#include "snapml/random_features.h"

namespace snapml::cuda {

// z(x) of every row into host memory `out` (rows.n_rows x n_components), on
// device `device_id`. The map is uploaded once; the rows go up and the features
// come back `rows_per_batch` rows at a time (0: as many as keep a batch's features
// within 256 MiB of device memory). Every CUDA call is checked (CudaError).
void random_fourier_features(const CsrView& rows, const RandomFourierMap& map, float* out, int device_id,
                             std::int64_t rows_per_batch = 0);

}  // namespace snapml::cuda
