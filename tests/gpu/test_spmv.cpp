// y = X w on the device by both paths, cuSPARSE's SpMV (CsrSpmv) and the TPA-SCD
// shaped row_dots kernel, against a double-precision product on the CPU, on random
// chunks of random size: empty rows, rows longer than a thread block, chunks of many
// more rows than one launch has blocks, and chunks cut into several cuSPARSE row blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gpu_test.h"
#include "random_csr.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/row_dots.h"
#include "snapml/cuda/spmv.h"

namespace snapml::cuda {
namespace {

// Float accumulation of n terms errs by at most about n * 2^-24 of the sum of their
// magnitudes; 1e-4 of that magnitude (rows here stay under 3000 terms) passes every
// correct summation order and fails any wrong index or unwritten row (NaN poison).
void expect_matches(const std::vector<float>& got, const testing::ReferenceProduct& ref,
                    const char* path) {
  ASSERT_EQ(got.size(), ref.value.size()) << path;
  double error = 0.0;
  double norm = 0.0;
  int reported = 0;
  for (std::size_t row = 0; row < got.size(); ++row) {
    const double diff = std::fabs(static_cast<double>(got[row]) - ref.value[row]);
    const bool ok = diff <= 1e-4 * ref.magnitude[row] + 1e-6;  // false for NaN
    if (!ok && reported++ < 5)
      ADD_FAILURE() << path << ": row " << row << " got " << got[row] << ", expected " << ref.value[row];
    error += diff * diff;
    norm += ref.value[row] * ref.value[row];
  }
  if (norm > 0) {
    EXPECT_LT(std::sqrt(error / norm), 1e-5) << path << ": relative error";
  }
  EXPECT_EQ(reported, 0) << path << ": " << reported << " rows out of tolerance";
}

struct Products {
  std::vector<float> spmv;
  std::vector<float> row_dots;
};

// Runs both paths on a freshly uploaded chunk; outputs are poisoned with NaN first so
// a row either path leaves unwritten fails the comparison.
Products device_products(const CsrView& host, const std::vector<float>& w, DeviceResources& resources,
                         std::int64_t max_block_nnz, std::size_t* n_blocks = nullptr) {
  const DeviceCsr x(host, resources);
  const cudaStream_t stream = resources.compute_stream();
  DeviceBuffer<float> device_w(w.size());
  device_w.copy_from_host(w.data(), w.size(), stream);
  DeviceBuffer<float> y(static_cast<std::size_t>(host.n_rows));
  DeviceBuffer<float> dots(static_cast<std::size_t>(host.n_rows));
  y.fill_bytes(0xFF, stream);
  dots.fill_bytes(0xFF, stream);

  CsrSpmv spmv(x, resources, max_block_nnz);
  if (n_blocks) *n_blocks = spmv.n_blocks();
  spmv.multiply(device_w.data(), y.data());
  row_dots(x, device_w.data(), dots.data(), stream);
  return {y.to_host(stream), dots.to_host(stream)};
}

TEST(Spmv, BothPathsMatchTheCpuOnRandomChunks) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  std::mt19937_64 rng(std::random_device{}());
  const auto seed = rng();
  rng.seed(seed);
  for (int trial = 0; trial < 8; ++trial) {
    testing::RandomCsrShape shape;
    // Up to 2^21 rows: more rows than row_dots launches blocks (2^20), so blocks loop.
    shape.n_rows = trial == 0 ? 2100000 : std::uniform_int_distribution<std::int64_t>(1, 60000)(rng);
    shape.n_features = std::uniform_int_distribution<std::int32_t>(1, 1 << 20)(rng);
    shape.mean_row_nnz = trial == 0 ? 3 : std::uniform_int_distribution<int>(1, 300)(rng);
    shape.empty_row_share = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
    shape.long_row_share = trial == 0 ? 0.0001 : 0.02;
    const CsrChunk chunk = testing::random_csr(shape, rng);
    const CsrView host = chunk.view(shape.n_features);
    const auto w = testing::random_vector(static_cast<std::size_t>(shape.n_features), rng);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", trial " + std::to_string(trial) + ": " +
                 std::to_string(shape.n_rows) + " rows, " + std::to_string(chunk.nnz()) + " non-zeros");
    const auto ref = testing::reference_product(host, w);
    const Products got = device_products(host, w, resources, CsrSpmv::kMaxBlockNnz);
    expect_matches(got.spmv, ref, "cuSPARSE SpMV");
    expect_matches(got.row_dots, ref, "row_dots");
  }
}

TEST(Spmv, ChunkCutIntoSeveralRowBlocksMatches) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  std::mt19937_64 rng(99);
  testing::RandomCsrShape shape;
  shape.n_rows = 30000;
  shape.n_features = 5000;
  shape.mean_row_nnz = 40;
  const CsrChunk chunk = testing::random_csr(shape, rng);
  const CsrView host = chunk.view(shape.n_features);
  const auto w = testing::random_vector(static_cast<std::size_t>(shape.n_features), rng);
  const auto ref = testing::reference_product(host, w);
  // A limit of a seventh of the non-zeros stands in for 2^31 - 1; 1000 is below the
  // longest rows (up to 3000), which then form blocks of their own.
  for (const std::int64_t limit : {chunk.nnz() / 7, std::int64_t{1000}}) {
    std::size_t n_blocks = 0;
    const Products got = device_products(host, w, resources, limit, &n_blocks);
    SCOPED_TRACE("max_block_nnz " + std::to_string(limit) + ", " + std::to_string(n_blocks) + " blocks");
    EXPECT_GE(n_blocks, 7u);
    expect_matches(got.spmv, ref, "cuSPARSE SpMV in row blocks");
  }
}

TEST(Spmv, ChunkWithoutNonZerosGivesZeros) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  CsrChunk chunk;
  for (int row = 0; row < 300; ++row) chunk.add_row(-1.0, nullptr, nullptr, 0);
  const std::vector<float> w(16, 1.5f);
  const Products got = device_products(chunk.view(16), w, resources, CsrSpmv::kMaxBlockNnz);
  EXPECT_EQ(got.spmv, std::vector<float>(300, 0.0f));
  EXPECT_EQ(got.row_dots, std::vector<float>(300, 0.0f));
}

}  // namespace
}  // namespace snapml::cuda
