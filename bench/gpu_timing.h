// Timing helpers shared by the GPU benchmarks: CUDA-event timing of a piece of
// work on a stream, and the device-to-device copy bandwidth that sets the memory
// floor each benchmark compares against.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <cstddef>

#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"

namespace snapml::bench {

// Host wall seconds since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Mean milliseconds of work(i), i = 0 .. repeats-1, on `stream`, after `warmups`
// untimed calls of work(-1).
template <typename Work>
double time_ms(cudaStream_t stream, int repeats, Work work, int warmups = 1) {
  cudaEvent_t start, stop;
  SNAPML_CUDA_CHECK(cudaEventCreate(&start));
  SNAPML_CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmups; ++i) work(-1);
  SNAPML_CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < repeats; ++i) work(i);
  SNAPML_CUDA_CHECK(cudaEventRecord(stop, stream));
  SNAPML_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  SNAPML_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / repeats;
}

// Device-to-device copy bandwidth in GB/s, counting bytes read plus bytes written.
inline double copy_bandwidth_gbs(cudaStream_t stream, int repeats) {
  const std::size_t bytes = std::size_t{2} << 30;
  cuda::DeviceBuffer<std::byte> a(bytes), b(bytes);
  a.fill_bytes(1, stream);
  const double ms = time_ms(stream, repeats, [&](int) {
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  });
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

// Milliseconds of one `bytes` copy from pinned host memory to the device: the link.
inline double pinned_upload_ms(cudaStream_t stream, std::size_t bytes, int repeats) {
  void* pinned = nullptr;
  SNAPML_CUDA_CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
  std::memset(pinned, 1, bytes);
  double ms = 0.0;
  {
    cuda::DeviceBuffer<std::byte> device(bytes);
    ms = time_ms(stream, repeats, [&](int) {
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(device.data(), pinned, bytes, cudaMemcpyHostToDevice, stream));
    });
  }
  SNAPML_CUDA_CHECK(cudaFreeHost(pinned));
  return ms;
}

}  // namespace snapml::bench
