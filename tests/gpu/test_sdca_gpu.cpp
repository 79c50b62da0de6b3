// The GPU SDCA solver against the CPU one: on random data of random size, for every
// loss, with one worker, two workers on one device (device_ids {0, 0}) and two
// solver instances joined by a thread communicator (two "ranks" on one GPU), both
// reach the same optimum. The certificate is recomputed here on the host, in
// double, from the returned weights and dual variables through the core's
// objectives (objectives.h), so a wrong gap on the device cannot pass; the host
// executor of the same schedule (tests/support/gpu_epoch_model.h) reaches the same
// optimum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpu_epoch_model.h"
#include "gpu_test.h"
#include "host_certificate.h"
#include "random_csr.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"
#include "thread_communicator.h"

namespace snapml::cuda {
namespace {

constexpr LossKind kLosses[] = {LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge, LossKind::Squared};

// Random rows in 1 to 3 chunks; labels +-1 (targets of the regression too).
std::vector<CsrChunk> random_chunks(std::mt19937_64& rng, std::int32_t& n_features) {
  n_features = std::uniform_int_distribution<std::int32_t>(20, 600)(rng);
  const int n_chunks = std::uniform_int_distribution<int>(1, 3)(rng);
  const bool weighted = std::bernoulli_distribution(0.5)(rng);  // sample weights scale C_i
  std::vector<CsrChunk> chunks;
  for (int c = 0; c < n_chunks; ++c) {
    testing::RandomCsrShape shape;
    shape.n_rows = std::uniform_int_distribution<std::int64_t>(50, 700)(rng);
    shape.n_features = n_features;
    shape.mean_row_nnz = std::uniform_int_distribution<int>(3, 60)(rng);
    shape.long_row_share = 0.005;
    shape.weights = weighted;
    chunks.push_back(testing::random_csr(shape, rng));
  }
  return chunks;
}

SolverParameters parameters_for(LossKind loss, std::uint64_t seed) {
  SolverParameters p;
  p.loss = loss;
  p.C = 0.7;
  p.class_weight_positive = 1.5;
  p.class_weight_negative = 1.0;
  p.epsilon = loss == LossKind::Squared ? 0.1 : 0.0;
  p.intercept_scaling = 1.0;
  p.tol = 1e-4;
  p.max_epochs = 5000;
  p.local_epochs = 2;
  p.seed = seed;
  return p;
}

// The checks every GPU result passes against the CPU's on the full data.
void expect_same_optimum(const Dataset& data, const SolverParameters& p, const FitResult& gpu_fit,
                         const SolverState& gpu, const SolverState& cpu) {
  ASSERT_TRUE(gpu_fit.converged) << "no convergence in " << gpu_fit.epochs << " epochs";
  ASSERT_EQ(gpu.alpha.size(), static_cast<std::size_t>(data.n_rows()));
  const std::int32_t n = data.n_features();
  InMemorySource source(data);

  // The certificate, recomputed on the host in double (host_certificate.h).
  const Objectives gpu_objectives = testing::host_certificate(data, p, gpu);
  EXPECT_LE(gpu_objectives.gap, p.tol * gpu_objectives.primal * (1.0 + 1e-9))
      << "primal " << gpu_objectives.primal << " dual " << gpu_objectives.dual;
  EXPECT_NEAR(gpu_fit.history.back().gap, gpu_objectives.gap, 1e-8 * gpu_objectives.primal);

  // Same optimum: both primal values are within tol * P of P(w*).
  const double cpu_primal = primal_objective(source, p, cpu.weights.data(), n);
  const double top = std::max(cpu_primal, gpu_objectives.primal);
  EXPECT_NEAR(gpu_objectives.primal, cpu_primal, p.tol * top);

  // Same predictions: P is 1-strongly convex, so ||w - w*||^2 <= 2 (P(w) - P*) <=
  // 2 tol P, and the two margins of a row differ by at most 2 sqrt(2 tol P) ||x_i||.
  const double radius = 2.0 * std::sqrt(2.0 * p.tol * top);
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double bias = p.intercept_scaling;
      const double g = row_dot(x, row, gpu.weights.data()) + bias * gpu.weights[static_cast<std::size_t>(n)];
      const double h = row_dot(x, row, cpu.weights.data()) + bias * cpu.weights[static_cast<std::size_t>(n)];
      const double bound = radius * std::sqrt(row_squared_norm(x, row) + bias * bias) + 1e-9;
      ASSERT_LE(std::fabs(g - h), bound) << "row " << x.first_row + row;
      if (is_classification(p.loss) && std::fabs(h) > bound) {
        EXPECT_EQ(g > 0.0, h > 0.0) << "row " << x.first_row + row;
      }
    }
  }
}

SolverState cpu_optimum(const Dataset& data, SolverParameters p) {
  p.tol = p.tol / 10.0;  // the reference sits closer to w* than the solver under test
  p.threads = 1;
  p.max_epochs = 20000;
  InMemorySource source(data);
  LocalCommunicator local;
  SolverState state;
  const FitResult fit = make_sdca_cpu_solver(p)->fit(source, local, state);
  EXPECT_TRUE(fit.converged) << "the CPU reference did not converge";
  return state;
}

class SdcaGpuTest : public ::testing::TestWithParam<LossKind> {
 protected:
  void SetUp() override {
    SNAPML_REQUIRE_GPU();
    const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(GetParam());
    std::mt19937_64 rng(seed);
    std::int32_t n_features = 0;
    chunks_ = random_chunks(rng, n_features);
    data_ = Dataset(chunks_, n_features);
    parameters_ = parameters_for(GetParam(), seed);
    cpu_ = cpu_optimum(data_, parameters_);
  }

  std::vector<CsrChunk> chunks_;
  Dataset data_;
  SolverParameters parameters_;
  SolverState cpu_;
};

TEST_P(SdcaGpuTest, OneDeviceReachesTheCpuOptimum) {
  InMemorySource source(data_);
  LocalCommunicator local;
  SolverState gpu;
  const FitResult fit = make_sdca_gpu_solver(parameters_, {0})->fit(source, local, gpu);
  expect_same_optimum(data_, parameters_, fit, gpu, cpu_);
  // The host executor of the schedule at the device's R reaches it too.
  testing::GpuModelOptions options;
  options.rows_in_flight = 4224;
  SolverState model;
  const FitResult modelled = testing::fit_gpu_model(data_, parameters_, options, model);
  ASSERT_TRUE(modelled.converged);
  const double top = std::max(modelled.history.back().primal, fit.history.back().primal);
  EXPECT_NEAR(modelled.history.back().primal, fit.history.back().primal, parameters_.tol * top);
}

TEST_P(SdcaGpuTest, TwoWorkersOnOneDeviceReachTheCpuOptimum) {
  InMemorySource source(data_);
  LocalCommunicator local;
  SolverState gpu;
  const FitResult fit = make_sdca_gpu_solver(parameters_, {0, 0})->fit(source, local, gpu);
  expect_same_optimum(data_, parameters_, fit, gpu, cpu_);
}

// Two solver instances, one per "rank", each with part of the rows: the CoCoA+
// aggregation through a Communicator, as between processes or GPUs.
TEST_P(SdcaGpuTest, TwoSolverInstancesThroughACommunicatorReachTheCpuOptimum) {
  // Rank 0 takes the first chunk's first half, rank 1 the rest: cut inside a chunk.
  std::vector<CsrChunk> parts[2];
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    const CsrChunk& chunk = chunks_[c];
    const std::int64_t cut = c == 0 ? chunk.n_rows() / 2 : 0;
    for (int part = 0; part < 2; ++part) {
      CsrChunk piece;
      const std::int64_t begin = part == 0 ? 0 : cut;
      const std::int64_t end = part == 0 ? cut : chunk.n_rows();
      for (std::int64_t row = begin; row < end; ++row) {
        const auto first = static_cast<std::size_t>(chunk.row_offsets[row]);
        piece.add_row(chunk.labels[row], chunk.col_indices.data() + first, chunk.values.data() + first,
                      chunk.row_offsets[row + 1] - chunk.row_offsets[row]);
        if (!chunk.weights.empty()) piece.weights.push_back(chunk.weights[row]);
      }
      if (piece.n_rows() > 0) parts[part].push_back(std::move(piece));
    }
  }
  const Dataset rank_data[2] = {Dataset(parts[0], data_.n_features()), Dataset(parts[1], data_.n_features())};
  SolverState states[2];
  FitResult fits[2];
  testing::run_ranks(2, [&](Communicator& communicator) {
    const int rank = communicator.rank();
    InMemorySource source(rank_data[rank]);
    fits[rank] = make_sdca_gpu_solver(parameters_, {0})->fit(source, communicator, states[rank]);
  });
  EXPECT_EQ(states[0].weights, states[1].weights) << "the ranks disagree on w";
  SolverState joined;
  joined.weights = states[0].weights;
  joined.alpha = states[0].alpha;
  joined.alpha.insert(joined.alpha.end(), states[1].alpha.begin(), states[1].alpha.end());
  expect_same_optimum(data_, parameters_, fits[0], joined, cpu_);
}

// Warm start from the returned alpha is already optimal; from the CPU's weights
// (no alpha) it needs a few epochs at most and still certifies.
TEST_P(SdcaGpuTest, WarmStartsFromAlphaAndFromWeights) {
  InMemorySource source(data_);
  LocalCommunicator local;
  SolverState gpu;
  ASSERT_TRUE(make_sdca_gpu_solver(parameters_, {0})->fit(source, local, gpu).converged);
  SolverState again = gpu;
  const FitResult resumed = make_sdca_gpu_solver(parameters_, {0})->fit(source, local, again);
  EXPECT_TRUE(resumed.converged);
  EXPECT_LE(resumed.epochs, 2);

  SolverState from_weights;
  from_weights.weights = cpu_.weights;
  const FitResult fit = make_sdca_gpu_solver(parameters_, {0})->fit(source, local, from_weights);
  expect_same_optimum(data_, parameters_, fit, from_weights, cpu_);
}

INSTANTIATE_TEST_SUITE_P(EveryLoss, SdcaGpuTest, ::testing::ValuesIn(kLosses),
                         [](const ::testing::TestParamInfo<LossKind>& info) {
                           std::string name = loss_name(info.param);
                           name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
                           return name;
                         });

}  // namespace
}  // namespace snapml::cuda
