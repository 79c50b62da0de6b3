// A CUDA runtime, cuBLAS and cuSPARSE that run on the host, for the emulated
// build of the GPU Newton solver's host code (tests/gpu/emulation/README.md):
// "device" memory is host memory, streams and events are tokens. Allocations are
// filled with 0xFF bytes (NaN doubles, -1 indices), so a read of memory nobody
// wrote shows in the results.
//
// A copy from pinned memory (cudaHostAlloc) to the device is asynchronous, as on a
// device: it waits in its stream's queue and happens only when something needs it
// (later work on that stream, a wait on an event recorded after it, a synchronize,
// a free). So host code that overwrites a pinned buffer before the copy that reads
// it is known done, or a kernel that reads copied data without waiting for the
// copy's stream, reads the wrong bytes (or the poison) and fails its comparison.
// Every other copy and memset happens when it is queued (after its stream's
// earlier copies); kernels (host_kernels.cpp) run when launched, after their
// stream's queue. Only the calls the primal solver's host code makes are here;
// the link fails on any other.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>

#include "fake_cuda_runtime.h"

namespace {

thread_local int current_device = 0;
constexpr int kDevices = 2;

int token_storage;  // handles point here

// A stream (with its queue of copies not yet done) or an event (the stream and
// the queue position it was recorded at).
struct Token {
  int device;
  std::deque<std::pair<std::int64_t, std::function<void()>>> pending;  // a stream's
  std::int64_t queued = 0;                                             // a stream's copies queued so far
  Token* stream = nullptr;                                             // an event's
  std::int64_t position = 0;                                           // an event's
};

// Guards the queues, the streams and the pinned ranges: host threads queue and
// wait concurrently.
std::recursive_mutex runtime_lock;
std::set<Token*> streams;
std::set<Token*> events;
std::map<const char*, std::size_t> pinned;  // base -> bytes

bool is_pinned(const void* pointer) {
  const auto* p = static_cast<const char*>(pointer);
  auto it = pinned.upper_bound(p);
  if (it == pinned.begin()) return false;
  --it;
  return p < it->first + it->second;
}

// Does the copies of `stream` queued before `position` (all: -1).
void drain(Token* stream, std::int64_t position = -1) {
  if (stream == nullptr) return;
  while (!stream->pending.empty() && (position < 0 || stream->pending.front().first < position)) {
    std::function<void()> copy = std::move(stream->pending.front().second);
    stream->pending.pop_front();
    copy();
  }
}

void drain_all() {
  for (Token* stream : streams) drain(stream);
}

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
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain(reinterpret_cast<Token*>(stream));  // a kernel runs after its stream's copies
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
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain_all();  // as on a device, a free waits for the work queued before it
  std::free(pointer);
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** pointer, std::size_t bytes, unsigned int) {
  const cudaError_t status = cudaMalloc(pointer, bytes);
  if (status != cudaSuccess) return status;
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  pinned[static_cast<const char*>(*pointer)] = bytes;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* pointer) {
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain_all();
  pinned.erase(static_cast<const char*>(pointer));
  std::free(pointer);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) return cudaErrorInvalidResourceHandle;
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  auto* queue = reinterpret_cast<Token*>(stream);
  if (queue != nullptr && kind == cudaMemcpyHostToDevice && is_pinned(from)) {
    queue->pending.emplace_back(queue->queued++, [to, from, bytes] { std::memmove(to, from, bytes); });
    return cudaSuccess;
  }
  drain(queue);
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void* to, int to_device, const void* from, int from_device, std::size_t bytes,
                                cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) return cudaErrorInvalidResourceHandle;
  if (to_device < 0 || to_device >= kDevices || from_device < 0 || from_device >= kDevices)
    return cudaErrorInvalidDevice;
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain(reinterpret_cast<Token*>(stream));
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* to, int value, std::size_t bytes, cudaStream_t stream) {
  if (on_current_device(stream) != cudaSuccess) return cudaErrorInvalidResourceHandle;
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain(reinterpret_cast<Token*>(stream));
  std::memset(to, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  auto* token = new Token{current_device};
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  streams.insert(token);
  *stream = reinterpret_cast<cudaStream_t>(token);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  auto* token = reinterpret_cast<Token*>(stream);
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain(token);
  streams.erase(token);
  for (Token* event : events)
    if (event->stream == token) event->stream = nullptr;  // its work is done
  delete token;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  drain(reinterpret_cast<Token*>(stream));
  return cudaSuccess;
}
// Work queued on `stream` later runs after the event's work: in the emulation,
// that work happens now.
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t event, unsigned int) {
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  const auto* token = reinterpret_cast<Token*>(event);
  drain(token->stream, token->position);
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  auto* token = new Token{current_device};
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  events.insert(token);
  *event = reinterpret_cast<cudaEvent_t>(token);
  return cudaSuccess;
}
// Emulated time: every interval between two events is 1 ms.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 1.0f;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  auto* token = reinterpret_cast<Token*>(event);
  if (stream != nullptr && token->device != reinterpret_cast<Token*>(stream)->device)
    return cudaErrorInvalidResourceHandle;
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  token->stream = reinterpret_cast<Token*>(stream);
  token->position = token->stream ? token->stream->queued : 0;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  const auto* token = reinterpret_cast<Token*>(event);
  drain(token->stream, token->position);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  auto* token = reinterpret_cast<Token*>(event);
  const std::lock_guard<std::recursive_mutex> lock(runtime_lock);
  events.erase(token);
  delete token;
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
