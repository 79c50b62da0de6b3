// The CPU SDCA solver on several threads: a shared w (copied or atomic) and
// replicas merged as CoCoA+ workers reach the one-thread optimum with w = w(alpha);
// the Auto choice between them and the divergence guard's remedy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>
#include <string>

#include "../fixtures/random_problem.h"
#include "../fixtures/references.h"
#include "../../../snapml/src/dual/threads/thread_copies.h"
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

// 1000 rows in chunks of 400 over `features` columns: 20 (a w the copies serve)
// or 3000 (past them, sparse).
Dataset threads_problem(std::int32_t features) {
  RandomProblemOptions o;
  o.rows = 1000;
  o.chunk_rows = 400;
  o.features = features;
  o.density = features > 100 ? 0.01 : 0.3;
  return random_problem(o);
}

// Two threads on the shared w: 21 weights, a copy per thread (thread_copies.h),
// and 3001 weights, too many to copy, where the threads add into w atomically
// and keep the intercept's (in every row: hot_columns.h) pending.
TEST(SdcaCpu, TwoThreadsConvergeToTheSameOptimum) {
  for (const std::int32_t features : {20, 3000}) {
    const Dataset data = threads_problem(features);
    for (LossKind loss : {LossKind::Logistic, LossKind::Hinge}) {
      const std::string what = std::string(loss_name(loss)) + ", " + std::to_string(features) + " features";
      SolverParameters p = tight(loss);
      p.tol = 1e-6;  // both within 1e-6 of the optimum, so within 2e-6 of each other
      const Fit one = fit(data, p);
      p.threads = 2;
      const Fit two = fit(data, p);
      ASSERT_TRUE(two.result.converged) << what;
      const double p1 = one.result.history.back().primal, p2 = two.result.history.back().primal;
      EXPECT_NEAR(p1, p2, 2e-6 * p1) << what;
      EXPECT_LE(two.result.history.back().gap, p.tol * p2) << what;
      // Every thread's changes reached w when the pass ended (the copies folded,
      // the pending changes flushed): w = w(alpha), the certificate's invariant.
      expect_weights_of_alpha(data, p, two, what);
    }
  }
}

// The hinge loss (cocoa_round.h, IterateAverage): stopped early, the fit returns
// the average of its iterates, whose primal is the smaller; the returned pair
// still has w = w(alpha), the reported primal is the returned w's, and the
// reported gap bounds its distance to the optimum (the dual below P*).
TEST(SdcaCpu, AnUnfinishedHingeFitReturnsTheAveragedIterateWithAValidCertificate) {
  RandomProblemOptions o;
  o.rows = 1000;
  o.chunk_rows = 400;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Hinge);
  const DenseProblem problem = dense(data, p);
  const double optimum = hinge_primal(problem, hinge_reference(problem));
  for (const int threads : {1, 2}) {
    p.threads = threads;
    p.max_epochs = 12;
    const Fit f = fit(data, p);
    const std::string what = std::to_string(threads) + " threads";
    ASSERT_FALSE(f.result.converged) << what;
    // The fit ends on whichever of the average and the last iterate has the smaller
    // primal (cocoa_round.cpp). One thread's path is fixed and the average wins it;
    // two threads' interleaving changes the path, and the last iterate won 1 run in
    // 20 to 40 here: the certificate below holds either way.
    if (threads == 1) {
      EXPECT_TRUE(f.result.averaged) << what;
    }
    expect_weights_of_alpha(data, p, f, what);
    const EpochRecord& last = f.result.history.back();
    const double primal = hinge_primal(problem, as_vector(f.state.weights));
    EXPECT_NEAR(last.primal, primal, 1e-11 * primal) << what;
    EXPECT_LE(last.dual, optimum * (1.0 + 1e-12)) << what;
    EXPECT_GE(last.gap, (primal - optimum) * (1.0 - 1e-9)) << what;
    // Squared hinge is smooth: its last iterate is the result.
    SolverParameters smooth = p;
    smooth.loss = LossKind::SquaredHinge;
    EXPECT_FALSE(fit(data, smooth).result.averaged) << what;
  }
}

// What a replicas fit `many` must show against one thread's `one`: every row
// visited once an epoch, the same optimum, its certificate met, w = w(alpha)
// after the merges, and the dual never decreasing (CoCoA+'s Lemma 3).
void expect_replicas_reach(const Dataset& data, const SolverParameters& p, const Fit& one, const Fit& many,
                           const std::string& what) {
  EXPECT_EQ(many.result.rows_visited, std::int64_t{many.result.epochs} * data.n_rows()) << what;
  const double p1 = one.result.history.back().primal, pk = many.result.history.back().primal;
  EXPECT_NEAR(p1, pk, 2e-6 * p1) << what;
  EXPECT_LE(many.result.history.back().gap, p.tol * pk) << what;
  expect_weights_of_alpha(data, p, many, what);
  double previous_dual = -HUGE_VAL;
  for (const EpochRecord& r : many.result.history) {
    ASSERT_GE(r.dual, previous_dual - 1e-12 * std::fabs(r.dual)) << what << " epoch " << r.epoch;
    previous_dual = r.dual;
  }
}

// Replicas (thread_updates.h): every L2 loss, with and without the intercept, 2
// and 3 threads, on sparse columns and ten dense ones (which every thread moves
// alike: the overlap that makes CoCoA+ shorten rounds, gamma < 1): the same
// optimum as one thread, a certificate that holds (w = w(alpha) after every
// merge), the dual never decreasing (CoCoA+'s Lemma 3 over the threads), and the
// replicas reported.
TEST(SdcaCpu, ReplicasReachTheOneThreadOptimumWithTheCertificate) {
  RandomProblemOptions o;
  o.rows = 2000;
  o.features = 400;
  o.density = 0.03;
  o.chunk_rows = 700;
  for (LossKind loss : {LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge, LossKind::Squared}) {
    o.regression = loss == LossKind::Squared;
    Dataset data = random_problem(o);
    // Ten dense columns on top of the sparse ones: hot, as a click log's integer fields.
    {
      std::vector<CsrChunk> chunks;
      const Dataset merged = data.merged();
      const CsrChunk& all = merged.chunk(0);
      std::mt19937_64 random(3);
      std::normal_distribution<double> normal(0.0, 1.0);
      chunks.emplace_back();
      for (std::size_t r = 0; r + 1 < all.row_offsets.size(); ++r) {
        std::vector<std::int32_t> indices(all.col_indices.begin() + all.row_offsets[r],
                                          all.col_indices.begin() + all.row_offsets[r + 1]);
        std::vector<float> values(all.values.begin() + all.row_offsets[r], all.values.begin() + all.row_offsets[r + 1]);
        for (std::int32_t j = 0; j < 10; ++j) {
          indices.push_back(o.features + j);
          values.push_back(static_cast<float>(0.3 * normal(random)));
        }
        chunks[0].add_row(all.labels[r], indices.data(), values.data(), static_cast<std::int64_t>(indices.size()));
      }
      data = Dataset(std::move(chunks), o.features + 10);
    }
    for (double intercept : {1.0, 0.0}) {
      SolverParameters p = tight(loss);
      p.intercept_scaling = intercept;
      p.tol = 1e-6;
      const Fit one = fit(data, p);
      ASSERT_TRUE(one.result.converged);
      EXPECT_EQ(one.result.replicas, 0);
      for (int threads : {2, 3}) {
        const std::string what =
            std::string(loss_name(loss)) + " intercept " + std::to_string(intercept) + " threads " + std::to_string(threads);
        p.threads = threads;
        p.thread_updates = ThreadUpdates::Replicas;
        const Fit many = fit(data, p);
        ASSERT_TRUE(many.result.converged) << what;
        EXPECT_EQ(many.result.replicas, threads) << what;
        // Two rounds an epoch at two threads, three at three (replica_rounds_per_epoch;
        // at three on the replicas' changes only, replica_changes.h), whose shares of
        // the epoch's permutation visit every row once.
        EXPECT_EQ(many.result.rounds, threads * many.result.epochs) << what;
        expect_replicas_reach(data, p, one, many, what);
        p.threads = 1;
        p.thread_updates = ThreadUpdates::Auto;
      }
    }
  }
}

// H local epochs a round (--local-epochs) in one process: the rounds span them
// and every epoch is whole, so every row is still visited once an epoch.
TEST(SdcaCpu, ReplicasWithSeveralLocalEpochsVisitWholeEpochs) {
  RandomProblemOptions o;
  o.rows = 1000;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-6;
  const double optimum = fit(data, p).result.history.back().primal;
  p.threads = 2;
  p.thread_updates = ThreadUpdates::Replicas;
  p.local_epochs = 2;
  const Fit many = fit(data, p);
  ASSERT_TRUE(many.result.converged);
  EXPECT_EQ(many.result.rounds, (many.result.epochs + 1) / 2);
  EXPECT_EQ(many.result.rows_visited, std::int64_t{many.result.epochs} * data.n_rows());
  EXPECT_NEAR(many.result.history.back().primal, optimum, 2e-6 * optimum);
  expect_weights_of_alpha(data, p, many, "local epochs 2");
}

// Replicas merge twice an epoch up to two threads, and past two once every
// kReplicaRowsPerRound rows a worker, or as often as the threads where w is narrow.
TEST(SdcaCpu, ReplicasMergeMoreOftenAnEpochAsTheTeamGrows) {
  EXPECT_EQ(replica_rounds_per_epoch(2, 2'000'000, 70'233'906, 1'048'616), kReplicaRoundsPerEpoch);
  // The 2M-row click log: 2M / (16 x 512) rows, where its width affords 4.
  EXPECT_EQ(replica_rounds_per_epoch(16, 2'000'000, 70'233'906, 1'048'616), 244);
  EXPECT_EQ(replica_rounds_per_epoch(16, 200'000, 7'000'000, 65'537), 24);
  // a9a: as many as the threads while the width affords them (64: 56).
  EXPECT_EQ(replica_rounds_per_epoch(16, 32'561, 451'592, 124), 16);
  EXPECT_EQ(replica_rounds_per_epoch(64, 32'561, 451'592, 124), 56);
  EXPECT_EQ(replica_rounds_per_epoch(4, 32'561, 451'592, 124), 15);
  EXPECT_EQ(replica_rounds_per_epoch(16, 1'000, 10'000, 10'000), kReplicaRoundsPerEpoch);  // never fewer
  EXPECT_EQ(replica_rounds_per_epoch(64, std::int64_t{1} << 62, std::int64_t{1} << 62, 1), kMostReplicaRounds);
}

// Under mpirun a rank merges every kReplicaRowsPerRound rows a worker (its
// replicas' rule where that asks more), while a round's passes over w stay within
// the rank's epoch.
TEST(SdcaCpu, RanksMergeSeveralTimesAnEpochWhileTheirWidthAffordsIt) {
  // Half of a9a on one thread: 16,282 / 512 rounds; its 124 weights cost nothing.
  EXPECT_EQ(distributed_rounds_per_epoch(1, 1, 16'282, 225'796, 124), 31);
  // With 64 replicas, their own rule's 28 (kReplicaRowsPerRound would give none).
  EXPECT_EQ(distributed_rounds_per_epoch(64, 28, 16'282, 225'796, 124), 28);
  // Half of news20 binary: 62,062 weights, 636k non-zeros: two rounds, not 15.
  EXPECT_EQ(distributed_rounds_per_epoch(1, 1, 8'028, 636'284, 62'062), 2);
  // The larger share of a 200k-row click log (2^16 columns): 17, not 256.
  EXPECT_EQ(distributed_rounds_per_epoch(1, 1, 131'072, 4'579'000, 65'537), 17);
  EXPECT_EQ(distributed_rounds_per_epoch(1, 1, 1'000, 10'000, 1'000'000), 1);  // never fewer than one
  EXPECT_EQ(distributed_rounds_per_epoch(1, 1, std::int64_t{1} << 62, std::int64_t{1} << 62, 1), kMostReplicaRounds);
}

// Rows for replicas past two threads: 6,200 rows of 3,000 sparse columns in three chunks.
RandomProblemOptions changes_only_rows() {
  RandomProblemOptions o;
  o.rows = 6200;
  o.features = 3000;
  o.density = 0.004;
  o.chunk_rows = 2500;
  return o;
}

// Past two threads the replicas keep their changes only and merge more often
// (here 4 rounds an epoch at four threads): the same optimum as one
// thread's, w = w(alpha) after every merge, the dual never decreasing.
TEST(SdcaCpu, ReplicasKeepingChangesOnlyReachTheOneThreadOptimum) {
  const RandomProblemOptions o = changes_only_rows();
  const Dataset data = random_problem(o);
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    SolverParameters p = tight(loss);
    p.tol = 1e-6;
    const Fit one = fit(data, p);
    ASSERT_TRUE(one.result.converged);
    p.threads = 4;
    p.thread_updates = ThreadUpdates::Replicas;
    const Fit many = fit(data, p);
    const std::string what = loss_name(loss);
    ASSERT_TRUE(many.result.converged) << what;
    EXPECT_EQ(many.result.replicas, 4) << what;
    const int rounds = replica_rounds_per_epoch(4, data.n_rows(), data.nnz(), o.features + 1);
    EXPECT_GT(rounds, kReplicaRoundsPerEpoch);
    EXPECT_EQ(many.result.rounds, rounds * many.result.epochs) << what;
    expect_replicas_reach(data, p, one, many, what);
  }
}

// Past two threads one process runs an epoch's rounds in one parallel region,
// each round's rows dealt to the threads (sdca_team_rounds.cpp), not claimed
// block by block: a worker's rows do not depend on which thread held a core, so
// a seed and a team give the same fit, bit for bit (claimed blocks give each
// fit its own partition on a busy machine: 4 threads on 2 cores here).
TEST(SdcaCpu, ReplicasInOneRegionGiveTheSameFitForASeedAndATeam) {
  const Dataset data = random_problem(changes_only_rows());
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-6;
  p.threads = 4;
  p.thread_updates = ThreadUpdates::Replicas;
  const Fit first = fit(data, p);
  ASSERT_TRUE(first.result.converged);
  for (int again = 0; again < 3; ++again) {
    const Fit other = fit(data, p);
    EXPECT_EQ(other.result.epochs, first.result.epochs);
    ASSERT_EQ(other.state.weights.size(), first.state.weights.size());
    EXPECT_EQ(0, std::memcmp(other.state.weights.data(), first.state.weights.data(),
                             first.state.weights.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(other.state.alpha.data(), first.state.alpha.data(), first.state.alpha.size() * sizeof(double)));
  }
}

TEST(SdcaCpu, AutoTakesReplicasOnlyForASkewedProblemPastTheCopies) {
  ReplicaProblem click_log;  // the generated click log of docs/benchmarks/threads.md
  click_log.epoch_nnz = 30766368;
  click_log.n_features = 1048615;
  click_log.skewed_columns = true;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, click_log));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 1, click_log));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Replicas, 1, click_log));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Shared, 2, click_log));
  // 16 threads: 16 x 1,048,616 x 2 non-zeros needed, more than the epoch has: the
  // shared w (the divergence guard halves the team if its gap stalls).
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 16, click_log));
  // More than kSharedSkewedMaxThreads threads take replicas for a skewed w the
  // epoch affords, whatever its size or shrinking: stale PASSCoDe steps kept a9a's
  // gap near 1 on 16 cores at 4 to 16 threads (thread_updates.h).
  ReplicaProblem large = click_log;
  large.epoch_nnz *= 64;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, kSharedSkewedMaxThreads, large));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, kSharedSkewedMaxThreads + 1, large));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 16, large));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 16, large));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Shared, 16, large));
  ReplicaProblem a9a;  // 451,592 non-zeros, 123 features, one-hot columns
  a9a.epoch_nnz = 451592;
  a9a.n_features = 123;
  a9a.skewed_columns = true;
  a9a.shrinks = true;  // the hinge
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, a9a));  // the copies serve two threads
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 4, a9a));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 16, a9a));
  a9a.skewed_columns = false;  // uniform columns: PASSCoDe's conflicts are few
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 16, a9a));
  ReplicaProblem p = click_log;
  p.skewed_columns = false;  // uniform columns
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 2, p));
  p = click_log;
  p.shrinks = true;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 2, p));
  // A w past the copies' size takes replicas (news20 binary's 62k weights, the
  // click log hashed to 2^12 columns); one the copies serve keeps them (a9a).
  p = click_log;
  const auto copies_limit = static_cast<std::int64_t>(detail::ThreadCopies::max_weights(2));  // weights, two threads
  p.n_features = copies_limit - 1;  // n_features + 1 weights: the copies serve
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 2, p));
  p.n_features = copies_limit;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.n_features = 62061;  // news20 binary: 1,272,569 non-zeros, 10 a weight of two copies
  p.epoch_nnz = 1272569;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.epoch_nnz = 2 * (p.n_features + 1) * kReplicaNnzPerWeight - 1;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.epoch_nnz += 1;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.n_features = std::int64_t{1} << 62;  // no overflow at two threads either
  p.epoch_nnz = std::int64_t{1} << 62;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.n_features = std::int64_t{1} << 62;  // no overflow
  p.epoch_nnz = std::int64_t{1} << 62;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 64, p));
  EXPECT_EQ(thread_updates_from_name("replicas"), ThreadUpdates::Replicas);
  EXPECT_STREQ(thread_updates_name(ThreadUpdates::Shared), "shared");
  EXPECT_EQ(thread_updates_from_name("atomic"), ThreadUpdates::Atomic);
  EXPECT_STREQ(thread_updates_name(ThreadUpdates::Atomic), "atomic");
  EXPECT_THROW(thread_updates_from_name("hogwild"), InvalidArgument);
  EXPECT_FALSE(use_replicas(ThreadUpdates::Atomic, 16, p));  // the one w, whatever the problem
}

// The divergence guard's remedy on the CPU: a shared w's team halves down to one
// thread; replicas (CoCoA+'s merge keeps the dual from falling) and one thread
// have nothing to lower.
TEST(SdcaCpu, TheSharedTeamHalvesWhenTheGuardAsksAndReplicasDoNot) {
  int threads = 16;
  for (const int expected : {8, 4, 2, 1}) {
    EXPECT_TRUE(reduce_shared_threads(threads, false));
    EXPECT_EQ(threads, expected);
  }
  EXPECT_FALSE(reduce_shared_threads(threads, false));
  EXPECT_EQ(threads, 1);
  threads = 3;
  EXPECT_FALSE(reduce_shared_threads(threads, true));
  EXPECT_EQ(threads, 3);
}

// Atomic (thread_updates.h): the one w, every step's change added at once, on a
// w the copies would serve (21 weights) and one past them whose intercept Shared
// keeps pending (3001): the one-thread optimum, w = w(alpha) when each pass ends.
TEST(SdcaCpu, AtomicThreadsReachTheOneThreadOptimumWithTheCertificate) {
  for (const std::int32_t features : {20, 3000}) {
    const Dataset data = threads_problem(features);
    for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Hinge}) {
      const std::string what = std::string(loss_name(loss)) + ", " + std::to_string(features) + " features";
      SolverParameters p = tight(loss);
      p.tol = 1e-6;
      const Fit one = fit(data, p);
      p.threads = 3;
      p.thread_updates = ThreadUpdates::Atomic;
      const Fit three = fit(data, p);
      ASSERT_TRUE(three.result.converged) << what;
      EXPECT_EQ(three.result.replicas, 0) << what;
      const double p1 = one.result.history.back().primal, p3 = three.result.history.back().primal;
      EXPECT_NEAR(p1, p3, 2e-6 * p1) << what;
      EXPECT_LE(three.result.history.back().gap, p.tol * p3) << what;
      expect_weights_of_alpha(data, p, three, what);
    }
  }
}

// Past two threads Auto's replicas step on a team sized by the rows' overlap
// (thread_updates.h, replica_team): rows sharing a column in every row (rho near
// 0.4, a click log's) get a few workers, the team's fit is certified, and
// replicas asked for by name are every thread.
TEST(SdcaCpu, AutoSizesTheReplicaTeamByTheRowsOverlap) {
  std::mt19937_64 random(5);
  std::uniform_int_distribution<std::int32_t> column(1, 399);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<CsrChunk> chunks;
  for (std::int64_t row = 0; row < 6000; ++row) {
    if (row % 1000 == 0) chunks.emplace_back();
    std::int32_t columns[5] = {0, column(random), column(random), column(random), column(random)};
    std::sort(columns + 1, columns + 5);
    const std::int64_t n = std::unique(columns + 1, columns + 5) - columns;
    const float values[5] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
    const double label = normal(random) + 0.3 * (columns[1] % 3) > 0.5 ? 1.0 : -1.0;
    chunks.back().add_row(label, columns, values, n);
  }
  const Dataset data(std::move(chunks), 400);
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-5;
  p.threads = 16;
  const Fit chosen = fit(data, p);
  // Unit rows put about 2/6 of their square on column 0 and the intercept: rho
  // near 0.35, a team of 4 or 5 (f is flat there). 6,000 rows are sampled
  // whole, so the team is the exact rho's.
  EXPECT_EQ(chosen.result.replicas, replica_team(16, unit_rows_overlap(data, p.intercept_scaling)));
  EXPECT_GE(chosen.result.replicas, 3);
  EXPECT_LE(chosen.result.replicas, 5);
  ASSERT_TRUE(chosen.result.converged);
  EXPECT_LE(chosen.result.history.back().gap, p.tol * chosen.result.history.back().primal);
  expect_weights_of_alpha(data, p, chosen, "Auto's team");
  p.thread_updates = ThreadUpdates::Replicas;
  EXPECT_EQ(fit(data, p).result.replicas, 16);
}

// Auto on a fit: a small w stays shared (every data set of the tests), what the
// solver reports.
TEST(SdcaCpu, AutoKeepsASmallProblemShared) {
  SolverParameters p = tight(LossKind::Logistic);
  p.threads = 2;
  p.tol = 1e-3;
  const Fit two = fit(random_problem({}), p);
  EXPECT_TRUE(two.result.converged);
  EXPECT_EQ(two.result.replicas, 0);
}

}  // namespace
