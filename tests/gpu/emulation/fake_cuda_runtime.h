// What the emulated runtime (fake_cuda_runtime.cpp) offers the host kernels.
#pragma once

#include <cuda_runtime_api.h>

namespace snapml::cuda::emulation {

// Throws std::logic_error unless `stream` belongs to the current device (CUDA's
// rule for a kernel launch).
void require_current_device(cudaStream_t stream);

}  // namespace snapml::cuda::emulation
