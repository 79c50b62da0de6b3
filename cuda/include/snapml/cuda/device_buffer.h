// An owned, typed array in device memory: allocated with cudaMalloc on the device
// that is current at construction, freed on that device when it goes out of scope.
// Move-only. The contents start uninitialised.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "snapml/cuda/check.h"

namespace snapml::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    SNAPML_CUDA_CHECK(cudaGetDevice(&device_id_));
    if (count_ > 0) SNAPML_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() { reset(); }

  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      swap(other);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  bool empty() const { return count_ == 0; }
  int device_id() const { return device_id_; }

  // Queues a copy of `count` host elements into the buffer's start on `stream`. For a
  // pageable `source` the runtime returns once the source has been read.
  void copy_from_host(const T* source, std::size_t count, cudaStream_t stream) {
    if (count > count_)
      throw InvalidArgument("copy of " + std::to_string(count) + " elements into a device buffer of " +
                            std::to_string(count_));
    if (count > 0)
      SNAPML_CUDA_CHECK(
          cudaMemcpyAsync(data_, source, count * sizeof(T), cudaMemcpyHostToDevice, stream));
  }

  // Copies the buffer back after the work queued on `stream`; waits for it.
  std::vector<T> to_host(cudaStream_t stream) const {
    std::vector<T> host(count_);
    if (count_ > 0) {
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream));
      SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return host;
  }

  // Sets every byte to `byte` on `stream` (0xFF poisons a float buffer with NaNs).
  void fill_bytes(int byte, cudaStream_t stream) {
    if (count_ > 0) SNAPML_CUDA_CHECK(cudaMemsetAsync(data_, byte, bytes(), stream));
  }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    std::swap(device_id_, other.device_id_);
  }
  // Frees on the owning device; errors are ignored since this runs in destructors.
  void reset() noexcept {
    if (data_ == nullptr) return;
    int current = -1;
    const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device_id_ &&
                          cudaSetDevice(device_id_) == cudaSuccess;
    cudaFree(data_);
    if (switched) cudaSetDevice(current);
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
  int device_id_ = -1;
};

}  // namespace snapml::cuda
