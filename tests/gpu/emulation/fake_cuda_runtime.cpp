// A CUDA runtime, cuBLAS and cuSPARSE that run on the host, for the emulated
// build of the GPU Newton solver's host code (tests/gpu/emulation/README.md):
// "device" memory is host memory, every copy and memset happens when it is
// queued, streams and events are tokens. Allocations are filled with 0xFF bytes
// (NaN doubles, -1 indices), so a read of memory nobody wrote shows in the
// results. Only the calls the primal solver's host code makes are here; the link
// fails on any other.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "fake_cuda_runtime.h"

namespace {

thread_local int current_device = 0;
constexpr int kDevices = 2;

int token_storage;  // handles point here

// A stream or an event: the device current when it was created.
struct Token {
  int device;
};

// CUDA's rule for work queued on a stream (a kernel, an asynchronous copy or
// memset, an event record): the stream belongs to the current device. A
// violation fails the call, as it does on a device with several GPUs.
cudaError_t on_current_device(cudaStream_t stream) {
  if (stream == nullptr) return cudaSuccess;
  return reinterpret_cast<Token*>(stream)->device == current_device ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

}  // namespace

namespace snapml::cuda::emulation {

void require_current_device(cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) throw std::logic_error("emulated launch on a stream of another device");
}

}  // namespace snapml::cuda::emulation

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  *count = kDevices;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = current_device;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= kDevices) return cudaErrorInvalidDevice;
  current_device = device;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device) {
  std::memset(properties, 0, sizeof *properties);
  std::strcpy(properties->name, "emulated device");
  properties->major = 9;
  properties->multiProcessorCount = 132;
  properties->totalGlobalMem = std::size_t{80} << 30;
  (void)device;
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  *free_bytes = std::size_t{64} << 30;
  *total_bytes = std::size_t{80} << 30;
  return cudaSuccess;
}
cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
  *pointer = std::malloc(bytes > 0 ? bytes : 1);
  if (*pointer == nullptr) return cudaErrorMemoryAllocation;
  std::memset(*pointer, 0xFF, bytes);  // poison
  return cudaSuccess;
}
cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** pointer, std::size_t bytes, unsigned int) { return cudaMalloc(pointer, bytes); }
cudaError_t cudaFreeHost(void* pointer) { return cudaFree(pointer); }
cudaError_t cudaMemcpyAsync(void* to, const void* from, std::size_t bytes, cudaMemcpyKind, cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) return cudaErrorInvalidResourceHandle;
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void* to, int to_device, const void* from, int from_device, std::size_t bytes,
                                cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) return cudaErrorInvalidResourceHandle;
  if (to_device < 0 || to_device >= kDevices || from_device < 0 || from_device >= kDevices)
    return cudaErrorInvalidDevice;
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* to, int value, std::size_t bytes, cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) return cudaErrorInvalidResourceHandle;
  std::memset(to, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  *stream = reinterpret_cast<cudaStream_t>(new Token{current_device});
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete reinterpret_cast<Token*>(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = reinterpret_cast<cudaEvent_t>(new Token{current_device});
  return cudaSuccess;
}
// Emulated time: every interval between two events is 1 ms.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 1.0f;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  *event = reinterpret_cast<cudaEvent_t>(new Token{current_device});
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (stream != nullptr && reinterpret_cast<Token*>(event)->device != reinterpret_cast<Token*>(stream)->device)
    return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete reinterpret_cast<Token*>(event);
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "emulated error"; }
const char* cudaGetErrorName(cudaError_t) { return "cudaErrorEmulated"; }

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  *handle = reinterpret_cast<cublasHandle_t>(&token_storage);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy(cublasHandle_t) { return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }
const char* cublasGetStatusString(cublasStatus_t) { return "emulated cuBLAS status"; }
const char* cublasGetStatusName(cublasStatus_t) { return "CUBLAS_STATUS_EMULATED"; }

cusparseStatus_t cusparseCreate(cusparseHandle_t* handle) {
  *handle = reinterpret_cast<cusparseHandle_t>(&token_storage);
  return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseDestroy(cusparseHandle_t) { return CUSPARSE_STATUS_SUCCESS; }
cusparseStatus_t cusparseSetStream(cusparseHandle_t, cudaStream_t) { return CUSPARSE_STATUS_SUCCESS; }
const char* cusparseGetErrorString(cusparseStatus_t) { return "emulated cuSPARSE status"; }
const char* cusparseGetErrorName(cusparseStatus_t) { return "CUSPARSE_STATUS_EMULATED"; }

}  // extern "C"
