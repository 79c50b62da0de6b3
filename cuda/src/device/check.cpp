#include "snapml/cuda/check.h"

namespace snapml::cuda::detail {
namespace {

// The device current on this thread. Reading it is itself a runtime call that may
// fail (no driver, a sticky error); the message then says "device unknown".
int current_device() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();  // do not leave our own probe's error behind
    return -1;
  }
  return device;
}

[[noreturn]] void fail(const char* library, const std::string& what, const char* call,
                       const char* file, int line) {
  const int device = current_device();
  std::string message = std::string(library) + " call " + call + " failed: " + what + " on ";
  message += device >= 0 ? "device " + std::to_string(device) : std::string("device unknown");
  message += " at " + std::string(file) + ":" + std::to_string(line);
  throw CudaError(message, call, device);
}

}  // namespace

void check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  fail("CUDA",
       std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) + ")", call,
       file, line);
}

void check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  fail("cuBLAS",
       std::string(cublasGetStatusString(status)) + " (" + cublasGetStatusName(status) + ")", call,
       file, line);
}

void check(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  fail("cuSPARSE",
       std::string(cusparseGetErrorString(status)) + " (" + cusparseGetErrorName(status) + ")",
       call, file, line);
}

}  // namespace snapml::cuda::detail
