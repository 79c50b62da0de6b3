// Random Fourier features on one device (snapml/cuda/random_features_gpu.h): the
// map goes up once, then batch after batch of rows: their CSR up (offsets rebased
// to the batch), the kernel, their features back into the caller's array.
#include "snapml/cuda/random_features_gpu.h"

#include <algorithm>
#include <vector>

#include "features/fourier_rows.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_resources.h"

namespace snapml::cuda {

namespace {
// A batch's features on the device: at most this many bytes (the rows' CSR is
// smaller than its features whenever D exceeds the row's entries).
constexpr std::int64_t kBatchFeatureBytes = std::int64_t{256} << 20;
}  // namespace

void random_fourier_features(const CsrView& rows, const RandomFourierMap& map, float* out, int device_id,
                             std::int64_t rows_per_batch) {
  map.check();
  DeviceResources device(device_id);
  const DeviceGuard current(device_id);
  const cudaStream_t stream = device.compute_stream();
  const std::int64_t D = map.n_components;
  if (rows_per_batch <= 0)
    rows_per_batch = std::max<std::int64_t>(1, kBatchFeatureBytes / (D * static_cast<std::int64_t>(sizeof(float))));
  rows_per_batch = std::min(rows_per_batch, std::max<std::int64_t>(rows.n_rows, 1));

  DeviceBuffer<double> weights(map.weights.size());
  DeviceBuffer<double> offsets(map.offsets.size());
  weights.copy_from_host(map.weights.data(), map.weights.size(), stream);
  offsets.copy_from_host(map.offsets.data(), map.offsets.size(), stream);
  DeviceBuffer<float> features(static_cast<std::size_t>(rows_per_batch * D));
  DeviceBuffer<std::int64_t> batch_offsets(static_cast<std::size_t>(rows_per_batch + 1));
  std::vector<std::int64_t> rebased(static_cast<std::size_t>(rows_per_batch + 1));

  for (std::int64_t first = 0; first < rows.n_rows; first += rows_per_batch) {
    const std::int64_t n = std::min(rows_per_batch, rows.n_rows - first);
    const std::int64_t begin = rows.row_begin(first), entries = rows.row_end(first + n - 1) - begin;
    for (std::int64_t r = 0; r <= n; ++r) rebased[static_cast<std::size_t>(r)] = rows.row_offsets[first + r] - begin;
    DeviceBuffer<std::int32_t> columns(static_cast<std::size_t>(entries));
    DeviceBuffer<float> values(static_cast<std::size_t>(entries));
    batch_offsets.copy_from_host(rebased.data(), static_cast<std::size_t>(n + 1), stream);
    columns.copy_from_host(rows.col_indices + begin, static_cast<std::size_t>(entries), stream);
    values.copy_from_host(rows.values + begin, static_cast<std::size_t>(entries), stream);
    launch_fourier_rows(n, batch_offsets.data(), columns.data(), values.data(), weights.data(), offsets.data(),
                        map.n_components, map.scale(), features.data(), stream);
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(out + first * D, features.data(), static_cast<std::size_t>(n * D) * sizeof(float),
                                      cudaMemcpyDeviceToHost, stream));
    // The batch's buffers are freed (columns, values) or refilled (the offsets'
    // host copy) on the next pass: wait for this one.
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

}  // namespace snapml::cuda
