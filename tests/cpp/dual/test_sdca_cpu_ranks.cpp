// The CPU SDCA solver under CoCoA+ over ranks (threads standing in for mpirun's
// processes): uneven and empty partitions, replicas within ranks and the fixed
// sigma' reach the single-process optimum with the same w on every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "../fixtures/random_problem.h"
#include "../fixtures/references.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"
#include "sdca_cpu_fixture.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using namespace snapml::testing;
using namespace snapml::testing::sdca_cpu;

// Rows [begin, end) of `data` as a dataset of their own (one chunk, or none).
Dataset rows(const Dataset& data, std::int64_t begin, std::int64_t end) {
  const Dataset all = data.merged();
  const CsrChunk& c = all.chunk(0);
  std::vector<CsrChunk> out;
  if (end > begin) {
    out.emplace_back();
    for (std::int64_t r = begin; r < end; ++r) {
      const auto b = c.row_offsets[static_cast<std::size_t>(r)];
      out[0].add_row(c.labels[static_cast<std::size_t>(r)], c.col_indices.data() + b, c.values.data() + b,
                     c.row_offsets[static_cast<std::size_t>(r) + 1] - b);
      if (!c.weights.empty()) out[0].weights.push_back(c.weights[static_cast<std::size_t>(r)]);
    }
  }
  // A partition may not reach the highest feature: the solver agrees on the count.
  std::int32_t features = 0;
  for (const CsrChunk& chunk : out)
    for (std::int32_t j : chunk.col_indices) features = std::max(features, j + 1);
  return Dataset(std::move(out), features);
}

void expect_cocoa_matches_single_process(LossKind loss, const std::vector<std::int64_t>& cuts, int local_epochs,
                                         bool adaptive_sigma = true, int replica_threads = 0) {
  RandomProblemOptions o;
  o.rows = 300;
  o.regression = loss == LossKind::Squared;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(loss);
  p.tol = 1e-9;
  const double optimum = fit(data, p).result.history.back().primal;

  const int ranks = static_cast<int>(cuts.size()) - 1;
  p.tol = 1e-6;
  p.local_epochs = local_epochs;
  p.adaptive_sigma = adaptive_sigma;
  if (replica_threads > 0) {
    p.threads = replica_threads;
    p.thread_updates = ThreadUpdates::Replicas;
  }
  std::vector<Fit> fits(static_cast<std::size_t>(ranks));
  run_ranks(ranks, [&](Communicator& communicator) {
    const int r = communicator.rank();
    const Dataset part = rows(data, cuts[static_cast<std::size_t>(r)], cuts[static_cast<std::size_t>(r) + 1]);
    InMemorySource source(part);
    Fit& out = fits[static_cast<std::size_t>(r)];
    out.result = make_sdca_cpu_solver(p)->fit(source, communicator, out.state);
  });
  const FitResult& result = fits[0].result;
  ASSERT_TRUE(result.converged) << loss_name(loss) << " K=" << ranks;
  const EpochRecord& last = result.history.back();
  EXPECT_LE(last.gap, p.tol * last.primal);
  EXPECT_NEAR(last.primal, optimum, 1e-4 * optimum) << loss_name(loss) << " K=" << ranks;
  EXPECT_GE(last.primal, optimum * (1.0 - 1e-9));
  // CoCoA+'s bound (snapml/impl/cocoa.h) holds for every round, adaptive sigma' or not:
  // the global dual never decreases.
  double previous_dual = -HUGE_VAL;
  for (const EpochRecord& r : result.history) {
    EXPECT_GE(r.dual, previous_dual - 1e-12 * std::fabs(r.dual)) << loss_name(loss) << " epoch " << r.epoch;
    previous_dual = r.dual;
  }
  // A rank whose partition is smaller than its team still keeps one copy per thread.
  for (const Fit& f : fits) EXPECT_EQ(f.result.replicas, replica_threads);
  for (const Fit& other : fits) {  // every rank holds the same w and history
    EXPECT_EQ(other.state.weights, fits[0].state.weights);
    EXPECT_EQ(other.result.epochs, result.epochs);
    EXPECT_EQ(other.result.rounds, result.rounds);
  }
  // A round is H epochs; with one, every rank cuts its epochs into the same
  // rounds (distributed_rounds_per_epoch), replicas at least as often as their
  // own rule asks (two an epoch).
  if (local_epochs > 1) {
    EXPECT_EQ(result.rounds, (result.epochs + local_epochs - 1) / local_epochs);
  } else {
    EXPECT_EQ(result.rounds % result.epochs, 0) << result.rounds << " rounds, " << result.epochs << " epochs";
    EXPECT_GE(result.rounds, (replica_threads > 0 ? 2 : 1) * result.epochs);
  }
  // The global P(w) the ranks agreed on is the single-process P of that w.
  InMemorySource whole(data);
  EXPECT_NEAR(primal_objective(whole, p, fits[0].state.weights.data(), data.n_features()), last.primal,
              1e-10 * last.primal);
}

TEST(SdcaCpuCocoa, TwoRanksUnevenPartitionReachTheOptimum) {
  expect_cocoa_matches_single_process(LossKind::Logistic, {0, 37, 300}, 1);
  expect_cocoa_matches_single_process(LossKind::SquaredHinge, {0, 37, 300}, 2);
}

TEST(SdcaCpuCocoa, ThreeRanksWithAnEmptyPartitionReachTheOptimum) {
  expect_cocoa_matches_single_process(LossKind::Logistic, {0, 0, 120, 300}, 1);
  expect_cocoa_matches_single_process(LossKind::Hinge, {0, 200, 200, 300}, 3);
  expect_cocoa_matches_single_process(LossKind::Squared, {0, 100, 299, 300}, 1);
}

// Ranks x threads with replicas: every thread of every rank a CoCoA+ worker
// (no column shared in w under mpirun), the dual non-decreasing as with ranks.
TEST(SdcaCpuCocoa, TwoRanksOfReplicasReachTheOptimum) {
  expect_cocoa_matches_single_process(LossKind::Logistic, {0, 150, 300}, 1, true, 2);
  expect_cocoa_matches_single_process(LossKind::SquaredHinge, {0, 37, 300}, 2, true, 3);
}

TEST(SdcaCpuCocoa, FixedSigmaEqualToKReachesTheOptimum) {
  expect_cocoa_matches_single_process(LossKind::Logistic, {0, 100, 200, 300}, 1, false);
  expect_cocoa_matches_single_process(LossKind::Hinge, {0, 150, 300}, 1, false);
}

// Ranks that stop at max_epochs while the primal swings (a large intercept
// scaling) end on the same best certified iterate on every rank (each keeps its
// rows' alpha; the decisions follow the reduced objectives): the same w on all,
// whose single-process P is the record's.
TEST(SdcaCpuCocoa, RanksEndOnTheSameBestCertifiedIterate) {
  RandomProblemOptions o;
  o.rows = 400;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::SquaredHinge);
  p.intercept_scaling = 100.0;
  p.max_epochs = 250;
  std::vector<Fit> fits(2);
  run_ranks(2, [&](Communicator& communicator) {
    const int r = communicator.rank();
    const Dataset part = rows(data, r == 0 ? 0 : 150, r == 0 ? 150 : 400);
    InMemorySource source(part);
    Fit& out = fits[static_cast<std::size_t>(r)];
    out.result = make_sdca_cpu_solver(p)->fit(source, communicator, out.state);
  });
  ASSERT_FALSE(fits[0].result.converged);
  ASSERT_GT(fits[0].result.best_epoch, 0);
  EXPECT_EQ(fits[1].result.best_epoch, fits[0].result.best_epoch);
  EXPECT_EQ(fits[1].state.weights, fits[0].state.weights);
  InMemorySource whole(data);
  const double primal = primal_objective(whole, p, fits[0].state.weights.data(), data.n_features());
  EXPECT_NEAR(primal, fits[0].result.history.back().primal, 1e-10 * primal);
  // The ranks' alpha together give that w (w = w(alpha)).
  Fit joined = fits[0];
  joined.state.alpha.insert(joined.state.alpha.end(), fits[1].state.alpha.begin(), fits[1].state.alpha.end());
  expect_weights_of_alpha(data, p, joined, "two ranks");
}

}  // namespace
