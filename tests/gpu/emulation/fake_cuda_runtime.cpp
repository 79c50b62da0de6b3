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

namespace {

thread_local int current_device = 0;
constexpr int kDevices = 2;

int token_storage;  // streams, events and handles point here

}  // namespace

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
cudaError_t cudaMemcpyAsync(void* to, const void* from, std::size_t bytes, cudaMemcpyKind, cudaStream_t) {
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void* to, int, const void* from, int, std::size_t bytes, cudaStream_t) {
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* to, int value, std::size_t bytes, cudaStream_t) {
  std::memset(to, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  *stream = reinterpret_cast<cudaStream_t>(&token_storage);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  *event = reinterpret_cast<cudaEvent_t>(&token_storage);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
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
