// Out-of-core GPU training (docs/out-of-core.md, "GPU"). Skips without a device.
//
// 1. The chunk ring (chunk_ring.h) hands out the data that was uploaded, even when
//    the compute stream lags far behind the copy stream: a slot overwritten before
//    the kernels reading it had finished would show as wrong data here.
// 2. Streamed fits, with max_gpu_memory well below the data (two ring slots and
//    nothing else; some chunks kept resident), reach the same optimum as resident
//    fits: both certify gap <= tol * P when recomputed on the host, and their
//    primal values agree within tol * P. From a resident source (chunk order
//    shuffled per epoch) and from a forward-only one (next(), source order).
// 3. The refusals: a budget below two slots, and streaming with several devices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.h"
#include "host_certificate.h"
#include "random_csr.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/chunk_ring.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml::cuda {
namespace {

using ::testing::HasSubstr;

// Several chunks of fewer rows than features (chunk-by-chunk visiting converges
// slowly when a chunk alone determines the weights: docs/out-of-core.md,
// "Convergence"); one chunk is empty.
Dataset random_dataset(std::uint64_t seed, int n_chunks) {
  std::mt19937_64 rng(seed);
  const std::int32_t n_features = std::uniform_int_distribution<std::int32_t>(1000, 2000)(rng);
  const bool weighted = std::bernoulli_distribution(0.5)(rng);
  std::vector<CsrChunk> chunks;
  for (int c = 0; c < n_chunks; ++c) {
    testing::RandomCsrShape shape;
    shape.n_rows = c == n_chunks / 2 ? 0 : std::uniform_int_distribution<std::int64_t>(100, 300)(rng);
    shape.n_features = n_features;
    shape.mean_row_nnz = std::uniform_int_distribution<int>(5, 40)(rng);
    shape.long_row_share = 0.005;
    shape.weights = weighted;
    chunks.push_back(testing::random_csr(shape, rng));
  }
  return Dataset(chunks, n_features);
}

std::vector<ChunkShape> shapes_of(const Dataset& data) {
  std::vector<ChunkShape> shapes;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) shapes.push_back({data.view(c).n_rows, data.view(c).nnz()});
  return shapes;
}

// Counts the solver's reads; forward-only (resident() false) or resident. A
// resident GPU fit reads every chunk twice (the upload with the column counts,
// then the rows' cold curvatures, which need every chunk's counts first:
// SdcaGpuSolver::split_columns); a streamed one reads them every pass.
class CountingSource final : public ChunkSource {
 public:
  CountingSource(const Dataset& data, bool resident) : inner_(data), resident_(resident) {}
  bool next(CsrView& chunk) override {
    const bool more = inner_.next(chunk);
    reads_ += more;
    return more;
  }
  void reset() override { inner_.reset(); }
  std::int32_t n_features() const override { return inner_.n_features(); }
  std::int64_t n_rows() const override { return inner_.n_rows(); }
  std::int64_t nnz() const override { return inner_.nnz(); }
  std::size_t n_chunks() const override { return inner_.n_chunks(); }
  bool resident() const override { return resident_; }
  CsrView chunk(std::size_t index) const override {
    ++reads_;
    return inner_.chunk(index);
  }
  std::int64_t reads() const { return reads_; }

 private:
  InMemorySource inner_;
  bool resident_;
  mutable std::int64_t reads_ = 0;
};

// ---- 1. the ring ------------------------------------------------------------

template <typename T>
std::vector<T> download(const T* device, std::int64_t count) {
  std::vector<T> host(static_cast<std::size_t>(count));
  if (count > 0)
    SNAPML_CUDA_CHECK(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

TEST(ChunkRing, EveryLoadSeesItsChunkWhileTheComputeStreamLags) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  const Dataset data = random_dataset(11, 9);
  std::uint64_t largest = 0;
  for (const ChunkShape& shape : shapes_of(data)) largest = std::max(largest, device_chunk_bytes(shape));
  ChunkRing ring(resources, 2, largest);
  const cudaStream_t compute = resources.compute_stream();

  // Before each chunk's "kernels" the compute stream copies 256 MiB device to device
  // (~0.2 ms on an H100), so the copy stream, free to run ahead, would overwrite a
  // slot still to be read if free[s] were not respected.
  const std::size_t lag_bytes = std::size_t{256} << 20;
  DeviceBuffer<std::byte> lag_from(lag_bytes), lag_to(lag_bytes);
  lag_from.fill_bytes(0, compute);
  // What each load's "kernels" saw; allocated up front, as cudaMalloc may synchronize.
  const std::size_t n = data.n_chunks();
  std::vector<DeviceBuffer<std::byte>> copies;
  for (std::size_t k = 0; k < 2 * n; ++k) copies.emplace_back(static_cast<std::size_t>(largest));
  std::vector<std::size_t> copied_chunk;
  auto pass = [&](const std::vector<std::size_t>& order) {
    for (const std::size_t c : order) {
      const CsrView host = data.view(c);
      const CsrView device = ring.load(c, host);
      EXPECT_EQ(device.n_rows, host.n_rows);
      EXPECT_EQ(device.labels, nullptr);
      EXPECT_EQ(device.weights, nullptr);
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(lag_to.data(), lag_from.data(), lag_bytes, cudaMemcpyDeviceToDevice, compute));
      const ChunkLayout layout = chunk_layout({host.n_rows, host.nnz()});
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(copies[copied_chunk.size()].data(), device.row_offsets,
                                        static_cast<std::size_t>(layout.bytes), cudaMemcpyDeviceToDevice, compute));
      copied_chunk.push_back(c);
      ring.release();
    }
  };
  std::vector<std::size_t> order(n);
  for (std::size_t c = 0; c < n; ++c) order[c] = c;
  pass(order);
  EXPECT_EQ(ring.uploads(), n);
  // The ring holds the last two chunks: a pass that starts with them does not upload them again.
  EXPECT_TRUE(ring.holds(n - 1));
  EXPECT_TRUE(ring.holds(n - 2));
  EXPECT_FALSE(ring.holds(0));
  std::vector<std::size_t> second = {n - 1, n - 2};
  for (std::size_t c = 0; c + 2 < n; ++c) second.push_back(c);
  pass(second);
  EXPECT_EQ(ring.uploads(), 2 * n - 2);
  SNAPML_CUDA_CHECK(cudaStreamSynchronize(compute));

  for (std::size_t k = 0; k < copied_chunk.size(); ++k) {
    const CsrView host = data.view(copied_chunk[k]);
    const ChunkLayout layout = chunk_layout({host.n_rows, host.nnz()});
    const std::vector<std::byte> seen = download(copies[k].data(), static_cast<std::int64_t>(layout.bytes));
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(host.n_rows) + 1, 0);
    std::memcpy(offsets.data(), seen.data() + layout.offsets_at, offsets.size() * 8);
    std::vector<std::int32_t> columns(static_cast<std::size_t>(host.nnz()));
    std::memcpy(columns.data(), seen.data() + layout.indices_at, columns.size() * 4);
    std::vector<float> values(columns.size());
    std::memcpy(values.data(), seen.data() + layout.values_at, values.size() * 4);
    SCOPED_TRACE("load " + std::to_string(k) + ", chunk " + std::to_string(copied_chunk[k]));
    if (host.n_rows > 0) {
      ASSERT_TRUE(std::equal(offsets.begin(), offsets.end(), host.row_offsets));
    } else {
      ASSERT_EQ(offsets, std::vector<std::int64_t>{0});
    }
    ASSERT_TRUE(std::equal(columns.begin(), columns.end(), host.col_indices));
    ASSERT_TRUE(std::equal(values.begin(), values.end(), host.values));
  }
}

TEST(ChunkRing, RefusesMisuse) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  const Dataset data = random_dataset(12, 3);
  EXPECT_THROW(ChunkRing(resources, 1, 1024), InvalidArgument);
  ChunkRing ring(resources, 2, device_chunk_bytes({data.view(0).n_rows, data.view(0).nnz()}) - 1);
  EXPECT_THROW(ring.load(0, data.view(0)), InvalidArgument);  // larger than a slot
  EXPECT_THROW(ring.release(), InvalidArgument);               // nothing loaded
}

// ---- 2. streamed fits against resident ones ----------------------------------

// C = 0.05: chunk-by-chunk visiting takes tens to hundreds of epochs here (the CPU
// solver, streaming these chunks in file order: 40 to 690 epochs to tol 1e-4 over
// the four losses, against 3 to 25 with one permutation of all rows).
SolverParameters parameters_for(LossKind loss) {
  SolverParameters p;
  p.loss = loss;
  p.C = 0.05;
  p.class_weight_positive = 1.5;
  p.epsilon = loss == LossKind::Squared ? 0.1 : 0.0;
  p.intercept_scaling = 1.0;
  p.tol = 1e-4;
  p.max_epochs = 3000;
  p.seed = 5 + static_cast<std::uint64_t>(loss);
  return p;
}

struct Fit {
  FitResult result;
  SolverState state;
  Objectives certified;  // recomputed on the host, in double
  std::int64_t reads = 0;
};

Fit fit(const Dataset& data, const SolverParameters& p, bool resident_source, SolverState start = {}) {
  CountingSource source(data, resident_source);
  LocalCommunicator local;
  Fit out;
  out.state = std::move(start);
  out.result = make_sdca_gpu_solver(p, {0})->fit(source, local, out.state);
  out.reads = source.reads();
  out.certified = testing::host_certificate(data, p, out.state);  // host_certificate.h
  return out;
}

void expect_converged(const Fit& run, const SolverParameters& p, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(run.result.converged) << "no convergence in " << run.result.epochs << " epochs";
  EXPECT_LE(run.certified.gap, p.tol * run.certified.primal * (1.0 + 1e-9))
      << "primal " << run.certified.primal << " dual " << run.certified.dual;
  EXPECT_NEAR(run.result.history.back().gap, run.certified.gap, 1e-9 * run.certified.primal);
}

class StreamedFitTest : public ::testing::TestWithParam<LossKind> {
 protected:
  void SetUp() override {
    SNAPML_REQUIRE_GPU();
    data_ = random_dataset(100 + static_cast<std::uint64_t>(GetParam()), 16);
    parameters_ = parameters_for(GetParam());
    needs_ = device_memory_needs(shapes_of(data_), data_.n_features());
    largest_ = *std::max_element(needs_.chunk_bytes.begin(), needs_.chunk_bytes.end());
    resident_ = fit(data_, parameters_, true);
    expect_converged(resident_, parameters_, "resident");
    // Read twice (the counts, then the curvatures; the device run of 2026-11-27 saw
    // 32 reads of 16 chunks where this said once), then kept.
    EXPECT_EQ(resident_.reads, 2 * static_cast<std::int64_t>(data_.n_chunks()));
  }

  // Checks a streamed fit under `budget` against the resident one.
  void expect_streamed_matches(std::uint64_t budget, std::size_t kept, bool resident_source) {
    const DeviceMemoryPlan plan = plan_device_memory(needs_, budget);
    ASSERT_TRUE(plan.streamed);
    ASSERT_EQ(plan.resident_chunks(), kept);
    SolverParameters p = parameters_;
    p.max_gpu_memory = budget;
    const Fit streamed = fit(data_, p, resident_source);
    const std::string what = std::string(resident_source ? "resident" : "forward-only") + " source, budget " +
                             std::to_string(budget) + ", " + std::to_string(kept) + " chunks kept";
    expect_converged(streamed, p, what);
    // Streamed: the chunks not kept are read again on every pass (initialise,
    // each epoch, each gap), so far more reads than chunks.
    const auto streamed_chunks = static_cast<std::int64_t>(data_.n_chunks() - kept);
    EXPECT_GE(streamed.reads, streamed_chunks * (2 * streamed.result.epochs + 1)) << what;
    const double top = std::max(resident_.certified.primal, streamed.certified.primal);
    EXPECT_NEAR(streamed.certified.primal, resident_.certified.primal, parameters_.tol * top) << what;
  }

  Dataset data_;
  SolverParameters parameters_;
  DeviceMemoryNeeds needs_;
  std::uint64_t largest_ = 0;
  Fit resident_;
};

TEST_P(StreamedFitTest, TwoSlotsAndNothingElseMatchResidentTraining) {
  const std::uint64_t budget = needs_.fixed_bytes() + 2 * largest_;
  // Well below the data: the ring is at most half of the chunks' bytes.
  std::uint64_t data_bytes = 0;
  for (const std::uint64_t bytes : needs_.chunk_bytes) data_bytes += bytes;
  ASSERT_LE(2 * 2 * largest_, data_bytes);
  expect_streamed_matches(budget, 0, true);
  expect_streamed_matches(budget, 0, false);
}

TEST_P(StreamedFitTest, SomeChunksResidentTheRestStreamedMatchResidentTraining) {
  // Room for the first three chunks besides the ring: they stay, thirteen stream.
  const std::uint64_t budget =
      needs_.fixed_bytes() + 2 * largest_ + needs_.chunk_bytes[0] + needs_.chunk_bytes[1] + needs_.chunk_bytes[2];
  expect_streamed_matches(budget, 3, true);
  expect_streamed_matches(budget, 3, false);
}

TEST_P(StreamedFitTest, AStreamedWarmStartFromAlphaIsAlreadyOptimal) {
  SolverParameters p = parameters_;
  p.max_gpu_memory = needs_.fixed_bytes() + 2 * largest_;
  const Fit resumed = fit(data_, p, true, resident_.state);
  expect_converged(resumed, p, "warm start");
  EXPECT_LE(resumed.result.epochs, 2);
}

INSTANTIATE_TEST_SUITE_P(EveryLoss, StreamedFitTest,
                         ::testing::Values(LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge,
                                           LossKind::Squared),
                         [](const ::testing::TestParamInfo<LossKind>& info) {
                           std::string name = loss_name(info.param);
                           name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
                           return name;
                         });

// ---- 3. refusals ------------------------------------------------------------

TEST(StreamedFit, ABudgetBelowTwoSlotsIsRefusedWithTheBytesNeeded) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = random_dataset(7, 6);
  const DeviceMemoryNeeds needs = device_memory_needs(shapes_of(data), data.n_features());
  const std::uint64_t largest = *std::max_element(needs.chunk_bytes.begin(), needs.chunk_bytes.end());
  SolverParameters p = parameters_for(LossKind::Logistic);
  p.max_gpu_memory = needs.fixed_bytes() + 2 * largest - 1;
  InMemorySource source(data);
  LocalCommunicator local;
  SolverState state;
  try {
    make_sdca_gpu_solver(p, {0})->fit(source, local, state);
    FAIL() << "a budget below two ring slots was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("too small to stream"));
    EXPECT_THAT(e.what(), HasSubstr("need " + std::to_string(needs.fixed_bytes() + 2 * largest) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("snap-convert --chunk-rows"));
  }
}

TEST(StreamedFit, SeveralDevicesDoNotStream) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = random_dataset(8, 6);
  SolverParameters p = parameters_for(LossKind::Logistic);
  p.max_gpu_memory = resident_device_bytes(data.n_rows(), data.nnz(), data.n_chunks(), data.n_features()) / 2;
  InMemorySource source(data);
  LocalCommunicator local;
  SolverState state;
  try {
    make_sdca_gpu_solver(p, {0, 0})->fit(source, local, state);
    FAIL() << "two workers over a budget their rows exceed were accepted";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr("one device per process"));
  }
  // Under a budget they fit, several devices train as without one.
  p.max_gpu_memory = std::uint64_t{1} << 30;
  p.max_epochs = 5;
  EXPECT_NO_THROW(make_sdca_gpu_solver(p, {0, 0})->fit(source, local, state));
}

}  // namespace
}  // namespace snapml::cuda
