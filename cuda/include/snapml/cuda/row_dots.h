// out[i] = x_i . w for every row of a device-resident chunk, by a hand-written kernel
// of the TPA-SCD shape (Parnell, Dünner, Atasu, Sifalakis & Pozidis 2017, "Large-scale
// stochastic learning using GPUs"): one thread block per row; its threads stride over
// the row's non-zeros, then reduce their partial sums with warp shuffles and shared
// memory. The GPU SDCA solver grows from this kernel (the block that reduces x_i . w
// then takes the coordinate step and scatters into w); cuSPARSE's SpMV (spmv.h) is the
// library path it is tested against.
#pragma once

#include <cuda_runtime_api.h>

#include "snapml/cuda/device_csr.h"

namespace snapml::cuda {

// `w` holds n_features floats and `out` n_rows floats, in the chunk's device memory.
// Queued on `stream`; returns without waiting.
void row_dots(const DeviceCsr& x, const float* w, float* out, cudaStream_t stream);

// The threads per block row_dots picks for a mean row length: the smallest of
// 32, 64, 128, 256 that covers it, so short rows do not leave most threads idle.
int row_dots_block_size(double mean_row_nnz);

}  // namespace snapml::cuda
