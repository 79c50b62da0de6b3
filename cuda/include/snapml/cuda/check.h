// The one way the CUDA backend checks a CUDA runtime, cuBLAS or cuSPARSE call.
//
//   SNAPML_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
//
// A failed call throws snapml::cuda::CudaError (a snapml::Error) whose message names
// the call as written, the library's error string, the device that was current, and
// the file and line:
//
//   "CUDA call cudaMalloc(&ptr, bytes) failed: out of memory (cudaErrorMemoryAllocation)
//    on device 0 at cuda/src/device/device_csr.cpp:41"
//
// After a kernel launch, SNAPML_CUDA_CHECK(cudaGetLastError()) catches a bad launch
// configuration; errors inside the kernel surface at the next synchronizing call.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <string>

#include "snapml/error.h"

namespace snapml::cuda {

class CudaError : public Error {
 public:
  CudaError(const std::string& message, std::string call, int device_id)
      : Error(message), call_(std::move(call)), device_id_(device_id) {}
  // The failed call as written in the source.
  const std::string& call() const { return call_; }
  // The device that was current when the call failed, -1 when it could not be read.
  int device_id() const { return device_id_; }

 private:
  std::string call_;
  int device_id_;
};

namespace detail {
// One overload per status type, so one macro serves all three libraries. Each
// returns normally on success and throws CudaError otherwise.
void check(cudaError_t status, const char* call, const char* file, int line);
void check(cublasStatus_t status, const char* call, const char* file, int line);
void check(cusparseStatus_t status, const char* call, const char* file, int line);
}  // namespace detail

}  // namespace snapml::cuda

#define SNAPML_CUDA_CHECK(call) ::snapml::cuda::detail::check((call), #call, __FILE__, __LINE__)
