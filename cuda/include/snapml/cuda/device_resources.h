// Everything the CUDA backend needs on one device, in one object that callers
// create for a device id and pass in; there are no globals. It holds
//
//   - a compute stream, and the cuBLAS and cuSPARSE handles bound to it, made on
//     first use (the primal Newton solver uses neither: a handle costs a fresh
//     process milliseconds and device memory),
//   - a copy stream for host-to-device uploads, so that a later out-of-core
//     pipeline can upload chunk k+1 while chunk k trains (docs/gpu.md),
//   - a growable pinned host staging buffer through which uploads go.
//
// Both streams are created non-blocking: they never synchronize with the legacy
// default stream, so every copy and kernel in this backend names its stream.
// One object is used by one host thread at a time.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>
#include <string>

namespace snapml::cuda {

// Number of CUDA devices this process can see; 0 (never an exception) when there
// is no driver, no device, or CUDA_VISIBLE_DEVICES hides them all.
int visible_gpu_count();

// Throws snapml::Unsupported when `device_id` cannot be used: no device visible at
// all, or fewer than device_id + 1. Throws InvalidArgument for a negative id.
void require_gpu(int device_id);

// Makes `device_id` current for its lifetime and restores the previous device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device_id);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

class DeviceResources {
 public:
  // Checks the id with require_gpu, then creates the streams and handles on it.
  explicit DeviceResources(int device_id);
  ~DeviceResources();
  DeviceResources(const DeviceResources&) = delete;
  DeviceResources& operator=(const DeviceResources&) = delete;

  int device_id() const { return device_id_; }
  const cudaDeviceProp& properties() const { return properties_; }
  // "NVIDIA H100 80GB HBM3 (device 0, sm_90, 132 SMs, 79.1 GiB)"
  std::string description() const;

  cudaStream_t compute_stream() const { return compute_stream_; }
  cudaStream_t copy_stream() const { return copy_stream_; }
  // Bound to compute_stream(); created by the first call.
  cublasHandle_t cublas() const;
  cusparseHandle_t cusparse() const;

  // The pinned staging buffer, grown to at least `bytes` (it never shrinks). Growing
  // first waits for the uploads that still read the old buffer.
  void* pinned_staging(std::size_t bytes);
  std::size_t pinned_staging_bytes() const { return staging_bytes_; }

  // Copies `bytes` of ordinary (pageable) host memory to device memory on the copy
  // stream, through the staging buffer, and makes the compute stream wait for the
  // copy. Returns as soon as `host_src` may be reused; the tail of the copy may still
  // be in flight, so work queued on the compute stream afterwards sees the data and
  // the host does not stall. See the timeline in device_resources.cpp.
  void upload(void* device_dst, const void* host_src, std::size_t bytes);

  // Waits for everything queued on both streams.
  void synchronize() const;

 private:
  void release() noexcept;
  void wait_for_staging() const;

  int device_id_;
  cudaDeviceProp properties_{};
  cudaStream_t compute_stream_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;
  mutable cublasHandle_t cublas_ = nullptr;
  mutable cusparseHandle_t cusparse_ = nullptr;
  // Pinned staging memory, used as two halves by upload(); each half's event marks
  // the end of the last copy that read it.
  void* staging_ = nullptr;
  std::size_t staging_bytes_ = 0;
  cudaEvent_t half_free_[2] = {nullptr, nullptr};
  cudaEvent_t upload_done_ = nullptr;
};

}  // namespace snapml::cuda
