#include "snapml/cuda/device_resources.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "snapml/cuda/check.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

// Each half of the staging buffer: large enough that one cudaMemcpyAsync runs near
// the PCIe rate, small enough that the pinned allocation stays modest.
constexpr std::size_t kStagingHalfBytes = std::size_t{32} << 20;

struct DeviceCount {
  int count = 0;
  cudaError_t status = cudaSuccess;
};

DeviceCount probe_devices() {
  DeviceCount result;
  result.status = cudaGetDeviceCount(&result.count);
  if (result.status != cudaSuccess) {
    cudaGetLastError();  // the runtime keeps the last error; a probe must not leave one
    result.count = 0;
  }
  return result;
}

}  // namespace

int visible_gpu_count() { return probe_devices().count; }

void require_gpu(int device_id) {
  if (device_id < 0)
    throw InvalidArgument("device id " + std::to_string(device_id) +
                          " is negative; pass a device id from 0 to the number of visible GPUs - 1");
  const DeviceCount devices = probe_devices();
  if (devices.count == 0) {
    const std::string why = devices.status == cudaSuccess
                                ? std::string("0 devices")
                                : std::string(cudaGetErrorString(devices.status));
    throw Unsupported("no CUDA device is visible (cudaGetDeviceCount: " + why +
                      "); train without use_gpu/--gpu or run on a machine with a GPU");
  }
  if (device_id >= devices.count)
    throw Unsupported("device " + std::to_string(device_id) + " requested but only " +
                      std::to_string(devices.count) +
                      " visible; pass a device id below that (CUDA_VISIBLE_DEVICES decides "
                      "which devices are visible)");
}

DeviceGuard::DeviceGuard(int device_id) {
  SNAPML_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device_id) SNAPML_CUDA_CHECK(cudaSetDevice(device_id));
}

DeviceGuard::~DeviceGuard() {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != previous_) cudaSetDevice(previous_);
}

DeviceResources::DeviceResources(int device_id) : device_id_(device_id) {
  require_gpu(device_id);
  DeviceGuard guard(device_id_);
  try {
    SNAPML_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_id_));
    SNAPML_CUDA_CHECK(cudaStreamCreateWithFlags(&compute_stream_, cudaStreamNonBlocking));
    SNAPML_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& event : half_free_)
      SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&upload_done_, cudaEventDisableTiming));
  } catch (...) {
    release();
    throw;
  }
}

DeviceResources::~DeviceResources() { release(); }

// Frees what the constructor made, in reverse order, ignoring errors: it runs in a
// destructor, possibly while an exception from a sticky device error unwinds.
void DeviceResources::release() noexcept {
  int previous = -1;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device_id_ &&
                        cudaSetDevice(device_id_) == cudaSuccess;
  if (compute_stream_) cudaStreamSynchronize(compute_stream_);
  if (copy_stream_) cudaStreamSynchronize(copy_stream_);
  if (staging_) cudaFreeHost(staging_);
  if (upload_done_) cudaEventDestroy(upload_done_);
  for (cudaEvent_t event : half_free_)
    if (event) cudaEventDestroy(event);
  if (cusparse_) cusparseDestroy(cusparse_);
  if (cublas_) cublasDestroy(cublas_);
  if (copy_stream_) cudaStreamDestroy(copy_stream_);
  if (compute_stream_) cudaStreamDestroy(compute_stream_);
  staging_ = nullptr;
  upload_done_ = nullptr;
  half_free_[0] = half_free_[1] = nullptr;
  cusparse_ = nullptr;
  cublas_ = nullptr;
  copy_stream_ = compute_stream_ = nullptr;
  if (switched) cudaSetDevice(previous);
}

cublasHandle_t DeviceResources::cublas() const {
  if (cublas_ == nullptr) {
    DeviceGuard guard(device_id_);
    cublasHandle_t handle = nullptr;
    SNAPML_CUDA_CHECK(cublasCreate(&handle));
    const cublasStatus_t bound = cublasSetStream(handle, compute_stream_);
    if (bound != CUBLAS_STATUS_SUCCESS) cublasDestroy(handle);
    SNAPML_CUDA_CHECK(bound);
    cublas_ = handle;
  }
  return cublas_;
}

cusparseHandle_t DeviceResources::cusparse() const {
  if (cusparse_ == nullptr) {
    DeviceGuard guard(device_id_);
    cusparseHandle_t handle = nullptr;
    SNAPML_CUDA_CHECK(cusparseCreate(&handle));
    const cusparseStatus_t bound = cusparseSetStream(handle, compute_stream_);
    if (bound != CUSPARSE_STATUS_SUCCESS) cusparseDestroy(handle);
    SNAPML_CUDA_CHECK(bound);
    cusparse_ = handle;
  }
  return cusparse_;
}

std::string DeviceResources::description() const {
  const double gib = static_cast<double>(properties_.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  char memory[32];
  std::snprintf(memory, sizeof memory, "%.1f GiB", gib);
  return std::string(properties_.name) + " (device " + std::to_string(device_id_) + ", sm_" +
         std::to_string(properties_.major) + std::to_string(properties_.minor) + ", " +
         std::to_string(properties_.multiProcessorCount) + " SMs, " + memory + ")";
}

void DeviceResources::wait_for_staging() const {
  for (cudaEvent_t event : half_free_) SNAPML_CUDA_CHECK(cudaEventSynchronize(event));
}

void* DeviceResources::pinned_staging(std::size_t bytes) {
  if (bytes <= staging_bytes_) return staging_;
  DeviceGuard guard(device_id_);
  wait_for_staging();
  if (staging_) SNAPML_CUDA_CHECK(cudaFreeHost(staging_));
  staging_ = nullptr;
  staging_bytes_ = 0;
  SNAPML_CUDA_CHECK(cudaHostAlloc(&staging_, bytes, cudaHostAllocDefault));
  staging_bytes_ = bytes;
  return staging_;
}

// Double-buffered upload through the two halves A and B of the staging buffer:
//
//   host:  fill A(0) | fill B(1) | wait A free, fill A(2) | wait B free, fill B(3) ...
//   copy:            | A(0) -> device | B(1) -> device    | A(2) -> device ...
//
// The host copies piece k+1 into one half while the DMA engine reads piece k from the
// other, so a pageable source streams at about the slower of memcpy and PCIe. The
// event of each half is recorded after the copy that reads it; the host waits on it
// before overwriting that half. At the end the compute stream (not the host) waits
// for the last copy.
void DeviceResources::upload(void* device_dst, const void* host_src, std::size_t bytes) {
  if (bytes == 0) return;
  DeviceGuard guard(device_id_);
  auto* staging = static_cast<char*>(pinned_staging(std::max(staging_bytes_, 2 * kStagingHalfBytes)));
  const std::size_t half = staging_bytes_ / 2;
  auto* dst = static_cast<char*>(device_dst);
  const auto* src = static_cast<const char*>(host_src);
  int h = 0;
  for (std::size_t offset = 0; offset < bytes; offset += half, h ^= 1) {
    const std::size_t piece = std::min(half, bytes - offset);
    char* slot = staging + h * half;
    SNAPML_CUDA_CHECK(cudaEventSynchronize(half_free_[h]));
    std::memcpy(slot, src + offset, piece);
    SNAPML_CUDA_CHECK(
        cudaMemcpyAsync(dst + offset, slot, piece, cudaMemcpyHostToDevice, copy_stream_));
    SNAPML_CUDA_CHECK(cudaEventRecord(half_free_[h], copy_stream_));
  }
  SNAPML_CUDA_CHECK(cudaEventRecord(upload_done_, copy_stream_));
  SNAPML_CUDA_CHECK(cudaStreamWaitEvent(compute_stream_, upload_done_, 0));
}

void DeviceResources::synchronize() const {
  DeviceGuard guard(device_id_);
  SNAPML_CUDA_CHECK(cudaStreamSynchronize(compute_stream_));
  SNAPML_CUDA_CHECK(cudaStreamSynchronize(copy_stream_));
}

}  // namespace snapml::cuda
