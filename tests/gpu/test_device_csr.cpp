// Uploading CSR chunks: what comes back from the device equals what went up, for
// random chunks of random size, with and without weights, and for empty chunks.
#include <gtest/gtest.h>

#include <random>

#include "gpu_test.h"
#include "random_csr.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

template <typename T>
std::vector<T> download(const T* device, std::int64_t count, cudaStream_t stream) {
  std::vector<T> host(static_cast<std::size_t>(count));
  if (count > 0) {
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(T),
                                      cudaMemcpyDeviceToHost, stream));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return host;
}

void expect_round_trip(const CsrChunk& chunk, std::int32_t n_features, DeviceResources& resources) {
  const CsrView host = chunk.view(n_features);
  const DeviceCsr device(host, resources);
  const cudaStream_t stream = resources.compute_stream();  // ordered after the upload
  EXPECT_EQ(device.n_rows(), chunk.n_rows());
  EXPECT_EQ(device.nnz(), chunk.nnz());
  EXPECT_EQ(device.n_features(), n_features);
  EXPECT_EQ(device.view().first_row, chunk.first_row);
  EXPECT_EQ(download(device.view().row_offsets, chunk.n_rows() + 1, stream), chunk.row_offsets);
  EXPECT_EQ(download(device.view().col_indices, chunk.nnz(), stream), chunk.col_indices);
  EXPECT_EQ(download(device.view().values, chunk.nnz(), stream), chunk.values);
  EXPECT_EQ(download(device.view().labels, chunk.n_rows(), stream), chunk.labels);
  if (chunk.weights.empty()) {
    EXPECT_EQ(device.view().weights, nullptr);
  } else {
    EXPECT_EQ(download(device.view().weights, chunk.n_rows(), stream), chunk.weights);
  }
}

TEST(DeviceCsr, RandomChunksRoundTrip) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  std::mt19937_64 rng(20240611);
  for (int trial = 0; trial < 6; ++trial) {
    testing::RandomCsrShape shape;
    shape.n_rows = std::uniform_int_distribution<std::int64_t>(1, 20000)(rng);
    shape.n_features = std::uniform_int_distribution<std::int32_t>(1, 50000)(rng);
    shape.mean_row_nnz = std::uniform_int_distribution<int>(1, 80)(rng);
    shape.weights = trial % 2 == 1;
    CsrChunk chunk = testing::random_csr(shape, rng);
    chunk.first_row = 1000 * trial;
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::to_string(shape.n_rows) + " rows, " +
                 std::to_string(chunk.nnz()) + " non-zeros");
    expect_round_trip(chunk, shape.n_features, resources);
  }
}

TEST(DeviceCsr, UploadLargerThanTheStagingBufferRoundTrips) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  std::mt19937_64 rng(7);
  testing::RandomCsrShape shape;  // about 25M non-zeros: 100 MB of values, several staging pages
  shape.n_rows = 250000;
  shape.n_features = 1 << 20;
  shape.mean_row_nnz = 100;
  shape.long_row_share = 0.0;
  expect_round_trip(testing::random_csr(shape, rng), shape.n_features, resources);
}

TEST(DeviceCsr, EmptyChunksUpload) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  expect_round_trip(CsrChunk{}, 10, resources);  // no rows
  CsrChunk no_nonzeros;
  for (int row = 0; row < 5; ++row) no_nonzeros.add_row(1.0, nullptr, nullptr, 0);
  expect_round_trip(no_nonzeros, 0, resources);
}

TEST(DeviceCsr, RejectsBrokenOffsets) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  CsrChunk chunk;
  const std::int32_t columns[] = {0, 1};
  const float values[] = {1.0f, 2.0f};
  chunk.add_row(1.0, columns, values, 2);
  chunk.add_row(1.0, columns, values, 1);
  // Offsets {0, 2, 3} become {0, 4, 3}: row 1 would end before it starts. (The
  // device run of 2026-11-26 found this test setting 3, which left valid
  // offsets {0, 3, 3}: nothing to reject.)
  chunk.row_offsets[1] = 4;
  EXPECT_THROW(DeviceCsr(chunk.view(2), resources), InvalidArgument);
}

}  // namespace
}  // namespace snapml::cuda
