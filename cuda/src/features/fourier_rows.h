// The kernel of random Fourier features: one block per row, its threads over the
// components (coalesced reads of the weights' rows).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace snapml::cuda {

// z for `n_rows` rows of a device CSR batch (offsets relative to the batch):
// out[r * D + j] = fourier_feature(offsets[j] + sum_k values[k] * weights[col_k * D + j], scale),
// summed in the order of the row's entries, in double, as on the CPU.
void launch_fourier_rows(std::int64_t n_rows, const std::int64_t* row_offsets, const std::int32_t* columns,
                         const float* values, const double* weights, const double* offsets, std::int32_t D,
                         double scale, float* out, cudaStream_t stream);

}  // namespace snapml::cuda
