// The primal Newton solver on the GPU (cuda/src/primal/, snapml/cuda/primal_gpu.h)
// against the CPU. Products: every product of the GPU matrix operations equals
// the CPU backend's to 1e-10 relative (a9a; generated chunks with empty and long
// rows, with and without the intercept; one part, two parts on one device, and
// many small tiles), outputs poisoned with NaN first. Fits: the device-resident
// solver reaches the CPU fit's objective to 1e-8 relative for every scalar loss,
// the intercept penalised and free, penalty none, devices {0} and {0, 0}, many
// tiles, two ranks; warm starts from weights and from alpha start where the CPU's
// do; an on_progress snapshot holds the iterate its record describes; the session
// reuses the rows; an upload through tiny pinned slots, from a resident and a
// forward-only source, gives the same fit; rows beyond max_gpu_memory are
// refused naming the sizes; an objective that overflows fails with an error. The GPU tests skip without a
// device; TronGpuProblems runs everywhere (the CPU half of the comparisons).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "device/peer_transfers.h"
#include "gpu_test.h"
#include "primal/newton_gpu.h"
#include "primal/staging_ring.h"
#include "random_csr.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/cuda/primal_gpu.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"
#include "test_data.h"
#include "thread_communicator.h"

namespace snapml::cuda {
namespace {

// Tiles of a few hundred rows: generated data of ~2700 rows spans several.
constexpr TileLimits kSmallTiles{400, 12000};

std::vector<double> random_doubles(std::size_t n, std::mt19937_64& rng, double zero_share = 0.0) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::bernoulli_distribution zero(zero_share);
  std::vector<double> out(n);
  for (double& v : out) v = zero(rng) ? 0.0 : value(rng);
  return out;
}

// ||got - expected|| <= tol ||expected||, and no entry off by more than tol of
// the largest (NaN fails both).
void expect_close(const std::vector<double>& got, const std::vector<double>& expected, const char* what,
                  double tol = 1e-10) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  double error = 0.0, norm = 0.0, largest = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    error += (got[i] - expected[i]) * (got[i] - expected[i]);
    norm += expected[i] * expected[i];
    largest = std::max(largest, std::fabs(expected[i]));
  }
  EXPECT_LE(std::sqrt(error), tol * std::sqrt(norm)) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - expected[i]), tol * largest) << what << " entry " << i;
}

void expect_same_products(const Dataset& data, double bias_value, const std::vector<int>& devices,
                          TileLimits tiles = {}) {
  SCOPED_TRACE("bias " + std::to_string(bias_value) + ", " + std::to_string(devices.size()) + " part(s), tiles of " +
               std::to_string(tiles.rows) + " rows");
  InMemorySource source(data);
  const auto cpu = make_cpu_matrix_operations(source, data.n_features(), bias_value, 2);
  const auto gpu = primal::make_matrix_operations(source, data.n_features(), bias_value, devices, 0, tiles);
  ASSERT_EQ(gpu->n_rows(), cpu->n_rows());
  ASSERT_EQ(gpu->n_weights(), cpu->n_weights());
  const auto rows = static_cast<std::size_t>(cpu->n_rows());
  const std::size_t width = cpu->n_weights();
  const double nan = std::numeric_limits<double>::quiet_NaN();

  std::vector<double> labels[2] = {std::vector<double>(rows), std::vector<double>(rows, nan)};
  std::vector<double> weights[2] = {std::vector<double>(rows), std::vector<double>(rows, nan)};
  cpu->rows(labels[0].data(), weights[0].data());
  gpu->rows(labels[1].data(), weights[1].data());
  EXPECT_EQ(labels[0], labels[1]);
  EXPECT_EQ(weights[0], weights[1]);

  std::mt19937_64 rng(17);
  const std::vector<double> w = random_doubles(width, rng);
  const std::vector<double> v = random_doubles(width, rng);
  const std::vector<double> d = random_doubles(rows, rng);
  std::vector<double> curvature = random_doubles(rows, rng, 0.3);  // inactive rows: 0
  for (double& c : curvature) c = std::fabs(c);
  std::vector<double> expected(rows), got(rows, nan);
  cpu->margins(w.data(), expected.data());
  gpu->margins(w.data(), got.data());
  expect_close(got, expected, "margins");
  expected.assign(width, 0.0);
  got.assign(width, nan);
  cpu->transpose_times(d.data(), expected.data());
  gpu->transpose_times(d.data(), got.data());
  expect_close(got, expected, "transpose_times");
  got.assign(width, nan);
  cpu->hessian_product(curvature.data(), v.data(), expected.data());
  gpu->hessian_product(curvature.data(), v.data(), got.data());
  expect_close(got, expected, "hessian_product");
  got.assign(width, nan);
  cpu->hessian_diagonal(curvature.data(), expected.data());
  gpu->hessian_diagonal(curvature.data(), got.data());
  expect_close(got, expected, "hessian_diagonal");
}

// ~2700 rows; 3000 features by default (more than rows: penalty none has no
// unique optimum there), 300 for the problems without a penalty.
Dataset generated(std::uint64_t seed, std::int32_t n_features = 3000) {
  std::mt19937_64 rng(seed);
  std::vector<CsrChunk> chunks;
  for (int c = 0; c < 3; ++c) {
    testing::RandomCsrShape shape;
    shape.n_rows = 700 + 300 * c;
    shape.n_features = n_features;
    shape.mean_row_nnz = 30;
    shape.long_row_share = 0.01;  // rows longer than a thread block
    shape.weights = c != 1;
    chunks.push_back(testing::random_csr(shape, rng));
  }
  return Dataset(std::move(chunks), n_features);
}

TEST(GpuMatrixOperations, ProductsEqualTheCpuOnGeneratedRows) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(5);
  expect_same_products(data, 1.0, {0});
  expect_same_products(data, 0.0, {0});
  expect_same_products(data, 2.5, {0, 0});  // two parts: rows cut inside a chunk, sums over parts
  expect_same_products(data, 0.5, {0}, kSmallTiles);
  expect_same_products(data, 1.0, {0, 0}, kSmallTiles);
}

TEST(GpuMatrixOperations, ProductsEqualTheCpuOnA9a) {
  SNAPML_REQUIRE_GPU();
  SNAPML_REQUIRE_DATASET(path, "a9a");
  const Dataset data = datasets::read_svmlight(path);
  expect_same_products(data, 1.0, {0});  // a9a's 123 columns are long: the pieces
  expect_same_products(data, 1.0, {0, 0});
  expect_same_products(data, 1.0, {0}, TileLimits{5000, 1 << 20});
}

TEST(GpuMatrixOperations, RefusesRowsBeyondTheBudgetNamingTheSizes) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(6);
  InMemorySource source(data);
  try {
    make_gpu_matrix_operations(source, data.n_features(), 1.0, {0}, 4096);
    FAIL() << "no refusal";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("what max_gpu_memory leaves on the device is 4096 bytes"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("does not stream"));
  }
}

struct Fit {
  FitResult result;
  SolverState state;
};

Fit fit(Solver& solver, const Dataset& data, SolverState start = {}) {
  InMemorySource source(data);
  LocalCommunicator local;
  Fit out;
  out.state = std::move(start);
  out.result = solver.fit(source, local, out.state);
  return out;
}

SolverParameters primal(LossKind loss) {
  SolverParameters p;
  p.loss = loss;
  p.solver = SolverChoice::Primal;
  p.C = 1.0;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = 500;
  p.threads = 2;
  return p;
}

// The problems EveryPrimalLoss... compares, where the CPU solver converges well
// inside max_epochs (TronGpuProblems checks it on any machine). C = 0.1: at C = 1
// the piecewise-quadratic losses crawl on these rows, on the CPU as on the GPU
// (the trust region stays on its boundary, moving ~0.05 an iteration: 489
// iterations for the squared hinge, and the squared loss had not converged after
// 500, which failed the device run of 2026-11-26). The gradient rule (a free
// intercept, penalty none) at tol 1e-7: at 1e-8 to 1e-10 it is at the rounding
// floor of ||g|| (X^T d sums terms that cancel), where a fit ends at the optimum
// (objectives equal to 1e-15) without meeting it, on either path; at 1e-7 every
// fit of 117 problems meets it, the objectives within 1e-11.
SolverParameters compared(LossKind loss, bool penalise_intercept) {
  SolverParameters p = primal(loss);
  p.C = 0.1;
  p.epsilon = loss == LossKind::Squared ? 0.1 : 0.0;
  p.penalise_intercept = penalise_intercept;
  if (!penalise_intercept) p.tol = 1e-7;
  p.max_epochs = 1000;
  return p;
}

// Penalty none, on rows with fewer features than rows (a unique optimum).
SolverParameters unpenalised(LossKind loss) {
  SolverParameters p = compared(loss, false);
  p.penalty = Penalty::None;
  return p;
}

constexpr LossKind kScalarLosses[] = {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Squared};

std::unique_ptr<Solver> gpu_solver(const SolverParameters& p, std::vector<int> devices, TileLimits tiles = {},
                                   std::shared_ptr<primal::FitTimings> timings = nullptr) {
  primal::NewtonGpuOptions options;
  options.tiles = tiles;
  options.timings = std::move(timings);
  return primal::make_newton_gpu_solver(p, std::move(devices), std::make_shared<detail::PrimalRowsCache>(), options);
}

double norm_of_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t j = 0; j < a.size(); ++j) sum += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(sum);
}

double norm(const std::vector<double>& a) { return norm_of_difference(a, std::vector<double>(a.size(), 0.0)); }

// Both converged, to objectives within 1e-8 relative, and the same weights and
// alpha up to what that allows: weights within 1e-4 relative, or, certified
// (everything penalised: H >= I, so ||w - w*|| <= ||g||), within the two final
// gradient norms, what the certificate allows (a9a at C = 100, tol 1e-10: 4e-3).
// A free intercept's certified fit (`penalised` false) has no such H >= I.
void expect_same_fit(const Fit& gpu, const Fit& cpu, bool penalised = true) {
  ASSERT_TRUE(cpu.result.converged);
  ASSERT_TRUE(gpu.result.converged) << "after " << gpu.result.epochs << " iterations";
  const double f_gpu = gpu.result.history.back().primal;
  const double f_cpu = cpu.result.history.back().primal;
  EXPECT_NEAR(f_gpu, f_cpu, 1e-8 * std::fabs(f_cpu));
  ASSERT_EQ(gpu.state.weights.size(), cpu.state.weights.size());
  const bool certified = penalised && !std::isnan(cpu.result.history.back().gap);
  const double within = certified ? gpu.result.history.back().gradient_norm + cpu.result.history.back().gradient_norm
                                  : 0.0;
  EXPECT_LE(norm_of_difference(gpu.state.weights, cpu.state.weights),
            std::max(within, 1e-4 * (1.0 + norm(cpu.state.weights))));
  ASSERT_EQ(gpu.state.alpha.size(), cpu.state.alpha.size());
  EXPECT_LE(norm_of_difference(gpu.state.alpha, cpu.state.alpha), 1e-4 * (1.0 + norm(cpu.state.alpha)));
  for (const double a : gpu.state.alpha) ASSERT_TRUE(std::isfinite(a));
  EXPECT_GT(gpu.result.data_passes, 0);
}

// The CPU half of EveryPrimalLossOnGeneratedRowsEqualsTheCpuFit, on any machine:
// each compared problem converges well inside its max_epochs (room for the GPU's
// rounding to take another path).
TEST(TronGpuProblems, TheCpuConvergesOnTheComparedProblems) {
  const Dataset data = generated(7);
  const Dataset tall = generated(7, 300);
  for (const LossKind loss : kScalarLosses)
    for (int kind = 0; kind < 3; ++kind) {
      SCOPED_TRACE(std::string(loss_name(loss)) + (kind == 0 ? ", penalised" : kind == 1 ? ", intercept free" : ", none"));
      const SolverParameters p = kind < 2 ? compared(loss, kind == 0) : unpenalised(loss);
      const Fit cpu = fit(*make_tron_cpu_solver(p), kind < 2 ? data : tall);
      EXPECT_TRUE(cpu.result.converged);
      EXPECT_LE(cpu.result.epochs, p.max_epochs / 4);
      if (kind == 1) {  // the free intercept's CPU fit that the GPU's is compared with
        SolverParameters certified = p;
        certified.tol = 1e-10;
        const Fit tight = fit(*make_tron_cpu_solver(certified), data);
        EXPECT_TRUE(tight.result.converged);
        EXPECT_LE(tight.result.epochs, p.max_epochs / 4);
        EXPECT_LE(tight.result.history.back().gap, 1e-10 * tight.result.history.back().primal);
      }
    }
}

TEST(TronGpu, A9aFitEqualsTheCpuFit) {
  SNAPML_REQUIRE_GPU();
  SNAPML_REQUIRE_DATASET(path, "a9a");
  const Dataset data = datasets::read_svmlight(path);
  for (const double C : {1.0, 100.0}) {
    SolverParameters p = primal(LossKind::Logistic);
    p.C = C;
    SCOPED_TRACE("C = " + std::to_string(C));
    expect_same_fit(fit(*gpu_solver(p, {0}), data), fit(*make_tron_cpu_solver(p), data));
  }
}

TEST(TronGpu, EveryPrimalLossOnGeneratedRowsEqualsTheCpuFit) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(7);
  const Dataset tall = generated(7, 300);
  for (const LossKind loss : kScalarLosses) {
    SCOPED_TRACE(loss_name(loss));
    SolverParameters p = compared(loss, true);
    expect_same_fit(fit(*gpu_solver(p, {0}), data), fit(*make_tron_cpu_solver(p), data));
    expect_same_fit(fit(*gpu_solver(p, {0, 0}, kSmallTiles), data), fit(*make_tron_cpu_solver(p), data));
    // A free intercept: the GPU solver stops on the gradient rule at tol 1e-7, the
    // CPU solver on its repaired gap (primal_newton_solver.cpp), asked for 1e-10
    // so that its objective is the optimum's to well within the 1e-8 compared.
    p = compared(loss, false);
    SolverParameters certified = p;
    certified.tol = 1e-10;
    const Fit cpu_free = fit(*make_tron_cpu_solver(certified), data);
    expect_same_fit(fit(*gpu_solver(p, {0, 0}), data), cpu_free, false);
    expect_same_fit(fit(*gpu_solver(p, {0}, kSmallTiles), data), cpu_free, false);
    p = unpenalised(loss);
    expect_same_fit(fit(*gpu_solver(p, {0, 0}, kSmallTiles), tall), fit(*make_tron_cpu_solver(p), tall));
  }
}

// The first device id is the master (the weight vectors, the sweeps) whatever
// device is current: {1, 0} where two devices are visible.
TEST(TronGpu, TheFirstDeviceIdNeedNotBeZero) {
  SNAPML_REQUIRE_GPU();
  if (visible_gpu_count() < 2) GTEST_SKIP() << "one device visible";
  const Dataset data = generated(14);
  expect_same_products(data, 1.0, {1, 0}, kSmallTiles);
  const SolverParameters p = compared(LossKind::SquaredHinge, true);
  expect_same_fit(fit(*gpu_solver(p, {1, 0}, kSmallTiles), data), fit(*make_tron_cpu_solver(p), data));
  expect_same_fit(fit(*gpu_solver(p, {1}), data), fit(*make_tron_cpu_solver(p), data));
}

TEST(TronGpu, TwoRanksReachTheSingleProcessObjective) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(9);
  std::vector<CsrChunk> first, second;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) (c % 2 == 0 ? first : second).push_back(data.chunk(c));
  const Dataset parts[2] = {Dataset(std::move(first), data.n_features()), Dataset(std::move(second), data.n_features())};
  const SolverParameters p = compared(LossKind::Logistic, true);
  const Fit single = fit(*make_tron_cpu_solver(p), data);
  std::vector<FitResult> results(2);
  std::vector<SolverState> states(2);
  testing::run_ranks(2, [&](Communicator& communicator) {
    InMemorySource source(parts[communicator.rank()]);
    const auto rank = static_cast<std::size_t>(communicator.rank());
    results[rank] = gpu_solver(p, {0}, kSmallTiles)->fit(source, communicator, states[rank]);
  });
  for (std::size_t rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(results[rank].converged);
    EXPECT_NEAR(results[rank].history.back().primal, single.result.history.back().primal,
                1e-8 * single.result.history.back().primal);
    EXPECT_EQ(results[rank].history.size(), results[0].history.size());  // the ranks took the same steps
    EXPECT_EQ(states[rank].weights, states[0].weights);
    EXPECT_EQ(states[rank].alpha.size(), parts[rank].n_rows());
  }
}

// A warm start (weights, or alpha: w = w(alpha)) starts where the CPU's does and
// ends at its optimum.
TEST(TronGpu, WarmStartsStartWhereTheCpuStarts) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(10);
  for (const LossKind loss : {LossKind::Logistic, LossKind::Squared}) {
    SCOPED_TRACE(loss_name(loss));
    const SolverParameters p = compared(loss, true);
    const Fit cold = fit(*make_tron_cpu_solver(p), data);
    std::mt19937_64 rng(4);
    SolverState from_weights;
    from_weights.weights = random_doubles(static_cast<std::size_t>(data.n_features()), rng);  // no intercept: padded
    for (double& w : from_weights.weights) w *= 0.05;
    SolverState from_alpha;
    from_alpha.alpha = cold.state.alpha;
    for (std::size_t i = 0; i < from_alpha.alpha.size(); i += 3) from_alpha.alpha[i] *= 0.5;
    for (const SolverState& start : {from_weights, from_alpha}) {
      const Fit cpu = fit(*make_tron_cpu_solver(p), data, start);
      const Fit gpu = fit(*gpu_solver(p, {0, 0}), data, start);
      EXPECT_NEAR(gpu.result.history.front().primal, cpu.result.history.front().primal,
                  1e-10 * cpu.result.history.front().primal);
      EXPECT_NEAR(gpu.result.history.front().gap, cpu.result.history.front().gap,
                  1e-8 * cpu.result.history.front().primal);
      expect_same_fit(gpu, cpu);
    }
  }
}

// The snapshot an accepted step's on_progress hands out holds the iterate the
// step's record describes: the CPU's value of those weights is that record's primal.
TEST(TronGpu, ACheckpointSnapshotHoldsTheRecordedIterate) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(11);
  SolverParameters p = compared(LossKind::Logistic, true);
  std::vector<EpochRecord> records;
  std::vector<std::pair<int, SolverState>> snapshots;
  p.on_epoch = [&](const EpochRecord& record) { records.push_back(record); };
  p.on_progress = [&](int epochs, const std::function<SolverState()>& snapshot) {
    if (epochs == 2) snapshots.emplace_back(epochs, snapshot());
  };
  const Fit gpu = fit(*gpu_solver(p, {0}), data);
  ASSERT_TRUE(gpu.result.converged);
  ASSERT_EQ(records.size(), gpu.result.history.size());
  ASSERT_EQ(snapshots.size(), 1u);
  SolverParameters evaluate = compared(LossKind::Logistic, true);
  evaluate.max_epochs = 1;  // the start's record is the first
  const Fit at_snapshot = fit(*make_tron_cpu_solver(evaluate), data, snapshots[0].second);
  const EpochRecord* second = nullptr;
  for (const EpochRecord& record : records)
    if (record.epoch == 2) second = &record;
  ASSERT_NE(second, nullptr);
  EXPECT_NEAR(at_snapshot.result.history.front().primal, second->primal, 1e-10 * second->primal);
}

// A second problem over the same rows uploads nothing; the timings add up.
TEST(TronGpu, TheSessionCacheKeepsTheRows) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(12);
  auto cache = std::make_shared<detail::PrimalRowsCache>();
  auto timings = std::make_shared<primal::FitTimings>();
  primal::NewtonGpuOptions options;
  options.timings = timings;
  SolverParameters p = compared(LossKind::Logistic, true);
  const Fit first = fit(*primal::make_newton_gpu_solver(p, {0}, cache, options), data);
  EXPECT_GT(timings->upload, 0.0);
  EXPECT_EQ(timings->n_rows, data.n_rows());
  EXPECT_EQ(timings->stored_entries, data.nnz());
  EXPECT_EQ(timings->transposed_entries, data.nnz() + data.n_rows());
  EXPECT_GT(timings->cg_iterations, 0);
  ASSERT_EQ(timings->cg_at_record.size(), first.result.history.size());
  EXPECT_EQ(timings->cg_at_record.front(), 0);
  EXPECT_EQ(timings->cg_at_record.back(), timings->cg_iterations);
  EXPECT_EQ(timings->total.passes(), first.result.data_passes);
  EXPECT_EQ(timings->total.curvature_rows, timings->cg_iterations);  // one Hessian product each
  EXPECT_EQ(timings->at_start.margin_rows, 1);                      // certified: no g(0) pass
  EXPECT_EQ(timings->at_start.gradient_columns, 1);
  EXPECT_GT(primal::pass_bytes(*timings, timings->total), primal::pass_bytes(*timings, timings->at_start));
  const primal::PrimalRows* rows = cache->current().get();
  p.C = 0.3;
  const Fit second = fit(*primal::make_newton_gpu_solver(p, {0}, cache, options), data);
  EXPECT_EQ(cache->current().get(), rows);
  EXPECT_EQ(timings->upload, 0.0);
  expect_same_fit(second, fit(*make_tron_cpu_solver(p), data));
  p.intercept_scaling = 0.0;  // no intercept column: other rows
  fit(*primal::make_newton_gpu_solver(p, {0}, cache, options), data);
  EXPECT_GT(timings->upload, 0.0);
}

// A source that only goes forward, each view valid until the next call: next()
// poisons the chunk it handed out last (NaN values, column -1, NaN labels)
// before copying the next, so rows read after their chunk's visit are wrong.
class ForwardOnlySource final : public ChunkSource {
 public:
  explicit ForwardOnlySource(const Dataset& data) : data_(data) {}
  bool next(CsrView& chunk) override {
    std::fill(held_.values.begin(), held_.values.end(), std::numeric_limits<float>::quiet_NaN());
    std::fill(held_.col_indices.begin(), held_.col_indices.end(), -1);
    std::fill(held_.labels.begin(), held_.labels.end(), std::numeric_limits<double>::quiet_NaN());
    if (position_ >= data_.n_chunks()) return false;
    held_ = data_.chunk(position_++);
    chunk = held_.view(data_.n_features());
    return true;
  }
  void reset() override { position_ = 0; }
  std::int32_t n_features() const override { return data_.n_features(); }
  std::int64_t n_rows() const override { return data_.n_rows(); }
  std::int64_t nnz() const override { return data_.nnz(); }
  std::size_t n_chunks() const override { return data_.n_chunks(); }

 private:
  const Dataset& data_;
  std::size_t position_ = 0;
  CsrChunk held_;
};

// The upload through slots of 256 bytes (thousands of copies, each ring slot
// reused many times, tiles spanning chunks and, for a forward-only source, the
// runs of several chunks), on 4 threads, one part and two: the fit equals the
// CPU's, and the upload's split counts every byte of offsets and entries.
TEST(TronGpu, TheUploadThroughSmallSlotsFromAnySourceEqualsTheCpuFit) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(16);
  SolverParameters p = compared(LossKind::Logistic, true);
  p.threads = 4;
  const Fit cpu = fit(*make_tron_cpu_solver(p), data);
  for (const bool resident : {true, false})
    for (const std::vector<int>& devices : {std::vector<int>{0}, std::vector<int>{0, 0}}) {
      SCOPED_TRACE(std::string(resident ? "resident" : "forward-only") + ", " + std::to_string(devices.size()) +
                   " part(s)");
      auto cache = std::make_shared<detail::PrimalRowsCache>();
      cache->staging = std::make_shared<primal::StagingRings>(256);
      auto timings = std::make_shared<primal::FitTimings>();
      primal::NewtonGpuOptions options;
      options.tiles = kSmallTiles;
      options.timings = timings;
      const auto solver = primal::make_newton_gpu_solver(p, devices, cache, options);
      Fit gpu;
      LocalCommunicator local;
      InMemorySource in_memory(data);
      ForwardOnlySource forward(data);
      ChunkSource& source = resident ? static_cast<ChunkSource&>(in_memory) : forward;
      gpu.result = solver->fit(source, local, gpu.state);
      expect_same_fit(gpu, cpu);
      const primal::UploadTimings& split = timings->upload_split;
      EXPECT_GT(timings->tiles, 2 * static_cast<std::int64_t>(devices.size()));
      EXPECT_EQ(split.copies.bytes, 8 * data.nnz() + 4 * (data.n_rows() + timings->tiles));
      EXPECT_GE(split.copies.copies, split.copies.bytes / 256);
      EXPECT_EQ(split.threads, 4);
      EXPECT_LE(cache->staging->pinned_bytes(), std::size_t{256} * primal::kMaxSlots);
    }
}

// Rows of `seed` with labels 0 to classes - 1 drawn at random.
Dataset with_classes(int seed, std::int64_t rows, int classes) {
  const Dataset tall = generated(seed, rows);
  std::vector<CsrChunk> chunks(tall.chunks());
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  for (CsrChunk& chunk : chunks)
    for (double& label : chunk.labels) label = std::uniform_int_distribution<int>(0, classes - 1)(rng);
  return Dataset(std::move(chunks), tall.n_features());
}

SolverParameters multinomial(int classes) {
  SolverParameters p = primal(LossKind::Multinomial);
  p.C = 0.1;
  p.primal_method = PrimalMethod::TrustRegion;
  for (int k = 0; k < classes; ++k) {
    p.classes.push_back(k);
    p.class_weights.push_back(k == 1 ? 0.5 : k == 2 ? 2.0 : 1.0);
  }
  p.max_epochs = 1000;
  return p;
}

// The multinomial loss device-resident (the K-class kernels, the K x n_weights
// vectors on the device): the CPU trust-region fit, on one part and two, in many
// tiles, with 3 classes (one class chunk) and 6 (two chunks, the second partial),
// the intercept penalised and free, and a warm start from the CPU's weights.
TEST(TronGpu, TheMultinomialLossOnTheDeviceEqualsTheCpuFit) {
  SNAPML_REQUIRE_GPU();
  for (const int classes : {3, 6}) {
    SCOPED_TRACE(std::to_string(classes) + " classes");
    const Dataset data = with_classes(15, 300, classes);
    SolverParameters p = multinomial(classes);
    const Fit cpu = fit(*make_tron_cpu_solver(p), data);
    EXPECT_TRUE(primal::newton_gpu_takes(p));
    expect_same_fit(fit(*gpu_solver(p, {0}), data), cpu);
    expect_same_fit(fit(*gpu_solver(p, {0, 0}, kSmallTiles), data), cpu);
    SolverState warm;
    warm.weights = cpu.state.weights;
    const Fit resumed = fit(*gpu_solver(p, {0}), data, warm);
    EXPECT_LE(resumed.result.epochs, 1);
    p.penalise_intercept = false;  // the gradient rule
    p.tol = 1e-7;
    expect_same_fit(fit(*gpu_solver(p, {0, 0}, kSmallTiles), data), fit(*make_tron_cpu_solver(p), data));
  }
}

// The multinomial loss by L-BFGS on a GPU: the CPU solver over the GPU matrix
// operations (the same rows and kernels; not device-resident), to the CPU fit; the
// rows the device-resident fit left at K classes serve it again.
TEST(TronGpu, TheMultinomialLossByLbfgsRunsOverTheGpuMatrixOperations) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = with_classes(15, 300, 3);
  SolverParameters p = multinomial(3);
  p.primal_method = PrimalMethod::Lbfgs;
  EXPECT_FALSE(primal::newton_gpu_takes(p));
  expect_same_fit(fit(*make_tron_gpu_solver(p, {0, 0}), data), fit(*make_tron_cpu_solver(p), data));
  auto cache = std::make_shared<detail::PrimalRowsCache>();
  SolverParameters resident = multinomial(3);
  fit(*primal::make_newton_gpu_solver(resident, {0}, cache), data);
  fit(*detail::make_tron_gpu_solver(p, {0}, cache), data);  // the same rows, back to one class
  expect_same_fit(fit(*detail::make_tron_gpu_solver(p, {0}, cache), data), fit(*make_tron_cpu_solver(p), data));
}

// Two devices ({1, 0}) split the rows as two parts on one device ({0, 0}) do, and
// the master adds the parts' sums in part order either way, whether the join moves
// them by NCCL or by peer copies (SNAPML_NCCL=0): the fits agree bit for bit, for a
// scalar loss and the multinomial loss. In the emulated CI the two devices are
// emulated and the copies are the fallback's.
TEST(TronGpu, TwoDevicesSumThePartsInPartOrderAsOneDeviceDoes) {
  SNAPML_REQUIRE_GPU();
  if (visible_gpu_count() < 2) GTEST_SKIP() << "one device visible";
  const Dataset data = generated(14);
  const Dataset classes = with_classes(15, 300, 3);
  for (const bool nccl : {true, false}) {
    SCOPED_TRACE(nccl ? "NCCL where it loads" : "SNAPML_NCCL=0");
    if (!nccl) setenv("SNAPML_NCCL", "0", 1);
    const PeerTransfers transfers({1, 0});
#if defined(SNAPML_GPU_EMULATION)
    EXPECT_FALSE(transfers.uses_nccl());
#endif
    std::printf("copies between devices: %s\n",
                transfers.uses_nccl() ? "NCCL" : ("peer copies (" + transfers.fallback_reason() + ")").c_str());
    for (const SolverParameters& p : {compared(LossKind::Logistic, true), multinomial(3)}) {
      const Dataset& rows = p.loss == LossKind::Multinomial ? classes : data;
      const Fit two = fit(*gpu_solver(p, {1, 0}, kSmallTiles), rows);
      const Fit one = fit(*gpu_solver(p, {0, 0}, kSmallTiles), rows);
      EXPECT_EQ(two.result.epochs, one.result.epochs);
      EXPECT_EQ(two.state.weights, one.state.weights);
      EXPECT_EQ(two.state.alpha, one.state.alpha);
      EXPECT_EQ(two.result.history.back().primal, one.result.history.back().primal);
    }
    unsetenv("SNAPML_NCCL");
  }
}

TEST(TronGpu, AMultinomialLabelOutsideTheClassesIsRefusedNamingTheRow) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = with_classes(15, 300, 3);
  const SolverParameters p = multinomial(2);  // the data has a third class
  try {
    fit(*gpu_solver(p, {0}), data);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("not among the multinomial loss's classes"));
  }
}

TEST(TronGpu, RefusesRowsBeyondTheBudgetNamingTheSizes) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(6);
  SolverParameters p = primal(LossKind::Logistic);
  p.max_gpu_memory = 100000;
  try {
    fit(*gpu_solver(p, {0}), data);
    FAIL() << "no refusal";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("what max_gpu_memory leaves on the device is 100000 bytes"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("transposed copy"));
  }
}

// Weights near the double range: the squared loss overflows and the fit throws,
// on the CPU and on the GPU alike (trust_region.h's record rule).
TEST(TronGpu, AnObjectiveThatOverflowsFailsWithAnError) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(13);
  const SolverParameters p = compared(LossKind::Squared, true);
  SolverState huge;
  huge.weights.assign(static_cast<std::size_t>(data.n_features()) + 1, 1e200);
  EXPECT_THROW(fit(*make_tron_cpu_solver(p), data, huge), Error);
  try {
    fit(*gpu_solver(p, {0}), data, huge);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("non-finite"));
  }
}

TEST(TronGpu, RefusesWhatItDoesNotSolve) {
  SNAPML_REQUIRE_GPU();
  SolverParameters p = primal(LossKind::Hinge);
  EXPECT_THROW(gpu_solver(p, {0}), InvalidArgument);
  p.loss = LossKind::Logistic;
  p.primal_method = PrimalMethod::Lbfgs;  // the session gives that the matrix operations
  EXPECT_FALSE(primal::newton_gpu_takes(p));
  EXPECT_THROW(gpu_solver(p, {0}), InvalidArgument);
}

// Through the factory: use_gpu with solver primal, and penalty none (which only
// the primal solver trains), run the Newton solver on the GPU; L-BFGS asked for
// runs the CPU solver over the GPU matrix operations.
TEST(TronGpu, TheSessionRunsThePrimalSolverOnTheGpu) {
  SNAPML_REQUIRE_GPU();
#if defined(SNAPML_GPU_EMULATION)
  GTEST_SKIP() << "the solver factory loads the real GPU plugin";
#endif
  const Dataset data = generated(8);
  SolverParameters p = compared(LossKind::Logistic, true);
  const auto session = make_solver_session(true, {0});
  const Fit first = fit(*session->make(p), data);
  expect_same_fit(first, fit(*make_tron_cpu_solver(p), data));
  p.C = 0.3;  // a second problem over the same rows (they stay on the device)
  expect_same_fit(fit(*session->make(p), data), fit(*make_tron_cpu_solver(p), data));
  p.primal_method = PrimalMethod::Lbfgs;
  expect_same_fit(fit(*session->make(p), data), fit(*make_tron_cpu_solver(p), data));
  SolverParameters none = unpenalised(LossKind::Squared);
  none.solver = SolverChoice::Auto;
  const Dataset tall = generated(8, 300);
  const Fit gpu = fit(*make_solver(none, true, {0}), tall);
  EXPECT_GT(gpu.result.history.back().gradient_norm, 0.0);  // a Newton record
  none.solver = SolverChoice::Primal;
  expect_same_fit(gpu, fit(*make_tron_cpu_solver(none), tall));
}

}  // namespace
}  // namespace snapml::cuda
