// The CPU SDCA solver: optimum against independent references, the duality-gap
// certificate, reproducibility, threads, CoCoA+ over thread "ranks", weights and
// warm starts.
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
#include "../fixtures/fit_once.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

Fit fit(const Dataset& data, const SolverParameters& parameters, SolverState start = {}) {
  return fit_once(*make_sdca_cpu_solver(parameters), data, std::move(start));
}

SolverParameters tight(LossKind loss) {
  SolverParameters p;
  p.loss = loss;
  p.C = 1.5;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = 100000;
  p.threads = 1;
  p.seed = 42;
  return p;
}

// Fits to tol 1e-10 and compares P(w) with the reference optimum to 1e-6, and
// the solver's own reported primal with the reference's evaluation of it.
void expect_reference_optimum(const Dataset& data, const SolverParameters& p,
                              double (*primal)(const DenseProblem&, const Eigen::VectorXd&),
                              const Eigen::VectorXd& reference) {
  const DenseProblem problem = dense(data, p);
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  const double p_ours = primal(problem, as_vector(ours.state.weights));
  const double p_reference = primal(problem, reference);
  EXPECT_NEAR(p_ours, p_reference, 1e-6 * p_reference);
  EXPECT_GE(p_ours, p_reference - 1e-9 * p_reference);  // the reference is the optimum
  EXPECT_NEAR(ours.result.history.back().primal, p_ours, 1e-11 * p_ours);
  EXPECT_LT((as_vector(ours.state.weights) - reference).norm(), 1e-3 * (1.0 + reference.norm()));
}

TEST(SdcaCpu, LogisticMatchesNewtonReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::Logistic);
  expect_reference_optimum(data, p, logistic_primal, logistic_reference(dense(data, p)));
}

TEST(SdcaCpu, RidgeMatchesClosedForm) {
  RandomProblemOptions o;
  o.regression = true;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Squared);
  p.C = 0.3;
  expect_reference_optimum(data, p, ridge_primal, ridge_reference(dense(data, p)));
}

TEST(SdcaCpu, SquaredHingeMatchesNewtonReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::SquaredHinge);
  expect_reference_optimum(data, p, squared_hinge_primal, squared_hinge_reference(dense(data, p)));
}

TEST(SdcaCpu, HingeMatchesLongRunReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::Hinge);
  expect_reference_optimum(data, p, hinge_primal, hinge_reference(dense(data, p)));
}

TEST(SdcaCpu, ClassAndSampleWeightsEnterTheObjectiveAsInTheReference) {
  RandomProblemOptions o;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Logistic);
  p.class_weight_positive = 3.0;
  p.class_weight_negative = 0.5;
  const Eigen::VectorXd reference = logistic_reference(dense(data, p));
  expect_reference_optimum(data, p, logistic_primal, reference);
  // The weights matter: the unweighted optimum is measurably different.
  SolverParameters unweighted = tight(LossKind::Logistic);
  const Eigen::VectorXd plain = logistic_reference(dense(data, unweighted));
  EXPECT_GT((plain - reference).norm(), 1e-2);
}

TEST(SdcaCpu, ZeroWeightRowsAreAbsent) {
  RandomProblemOptions o;
  o.sample_weights = true;
  Dataset data = random_problem(o);
  std::vector<CsrChunk> chunks = data.chunks();
  std::vector<CsrChunk> kept(1);
  for (CsrChunk& chunk : chunks) {
    for (std::int64_t r = 0; r < chunk.n_rows(); ++r) {
      if (r % 3 == 0) {
        chunk.weights[static_cast<std::size_t>(r)] = 0.0f;
        continue;
      }
      const auto begin = chunk.row_offsets[static_cast<std::size_t>(r)];
      kept[0].add_row(chunk.labels[static_cast<std::size_t>(r)], chunk.col_indices.data() + begin,
                      chunk.values.data() + begin, chunk.row_offsets[static_cast<std::size_t>(r) + 1] - begin);
      kept[0].weights.push_back(chunk.weights[static_cast<std::size_t>(r)]);
    }
  }
  const Dataset zeroed(std::move(chunks), data.n_features());
  const Dataset removed(std::move(kept), data.n_features());
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Hinge}) {
    const SolverParameters p = tight(loss);
    const Fit a = fit(zeroed, p), b = fit(removed, p);
    EXPECT_NEAR(a.result.history.back().primal, b.result.history.back().primal,
                1e-7 * b.result.history.back().primal) << loss_name(loss);
  }
}

TEST(SdcaCpu, GapIsACertificateAndTheDualAscends) {
  const Dataset data = random_problem({});
  for (LossKind loss : {LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge, LossKind::Squared}) {
    RandomProblemOptions o;
    o.regression = loss == LossKind::Squared;
    const Dataset problem = random_problem(o);
    SolverParameters p = tight(loss);
    p.tol = 1e-6;
    const Fit f = fit(problem, p);
    ASSERT_TRUE(f.result.converged) << loss_name(loss);
    ASSERT_FALSE(f.result.history.empty());
    double previous_dual = -HUGE_VAL;
    for (const EpochRecord& r : f.result.history) {
      EXPECT_GE(r.gap, -1e-12 * std::fabs(r.primal)) << loss_name(loss) << " epoch " << r.epoch;
      EXPECT_NEAR(r.gap, r.primal - r.dual, 1e-12 * std::fabs(r.primal));
      EXPECT_GE(r.dual, previous_dual - 1e-12 * std::fabs(r.dual)) << loss_name(loss) << " epoch " << r.epoch;
      previous_dual = r.dual;
    }
    EXPECT_LE(f.result.history.back().gap, p.tol * f.result.history.back().primal);
    EXPECT_EQ(f.result.epochs, f.result.history.back().epoch);
    // With one epoch allowed the solver stops on max_iter, unconverged.
    p.max_epochs = 1;
    const Fit short_run = fit(problem, p);
    EXPECT_FALSE(short_run.result.converged);
    EXPECT_EQ(short_run.result.epochs, 1);
  }
}

TEST(SdcaCpu, OneThreadWithAFixedSeedIsBitForBitReproducible) {
  const Dataset data = random_problem({});
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-4;
  const Fit a = fit(data, p), b = fit(data, p);
  ASSERT_EQ(a.state.weights.size(), b.state.weights.size());
  EXPECT_EQ(0, std::memcmp(a.state.weights.data(), b.state.weights.data(), a.state.weights.size() * sizeof(double)));
  EXPECT_EQ(0, std::memcmp(a.state.alpha.data(), b.state.alpha.data(), a.state.alpha.size() * sizeof(double)));
  ASSERT_EQ(a.result.history.size(), b.result.history.size());
  for (std::size_t i = 0; i < a.result.history.size(); ++i)
    EXPECT_EQ(a.result.history[i].primal, b.result.history[i].primal);
  // The seed does choose the order: another seed gives other bits.
  p.seed = 43;
  const Fit c = fit(data, p);
  EXPECT_NE(0, std::memcmp(a.state.weights.data(), c.state.weights.data(), a.state.weights.size() * sizeof(double)));
}

// A resident source is visited in one permutation over all its rows, so how the
// rows are cut into chunks does not change a single bit of the result. (Permuting
// within chunks visited in a fixed order converged several times slower.) The
// chunk sizes straddle the 256-row blocks by which the epoch finds a row's chunk
// (ResidentRows::chunk_of): many chunks in a block, a boundary inside most blocks,
// one exactly at each block, a block or two in a chunk.
TEST(SdcaCpu, ResidentChunkingDoesNotChangeTheResult) {
  for (std::int64_t chunk_rows : {7, 255, 256, 257, 600}) {
    RandomProblemOptions o;
    o.rows = 1500;
    o.chunk_rows = chunk_rows;
    const Dataset chunked = random_problem(o);
    const Dataset merged = chunked.merged();
    ASSERT_GT(chunked.n_chunks(), 2u);
    SolverParameters p = tight(LossKind::Logistic);
    p.max_epochs = 5;
    const Fit a = fit(chunked, p), b = fit(merged, p);
    ASSERT_EQ(a.state.weights.size(), b.state.weights.size());
    EXPECT_EQ(0, std::memcmp(a.state.weights.data(), b.state.weights.data(), a.state.weights.size() * sizeof(double)))
        << "chunks of " << chunk_rows << " rows";
    EXPECT_EQ(0, std::memcmp(a.state.alpha.data(), b.state.alpha.data(), a.state.alpha.size() * sizeof(double)))
        << "chunks of " << chunk_rows << " rows";
  }
}

// The gap pass sums blocks of rows on their own and adds the block sums in order
// (objectives.cpp), so the certificate has the same bits for any thread count:
// a run's stopping epoch does not depend on how many threads evaluated it.
TEST(SdcaCpu, ObjectiveSumsHaveTheSameBitsForAnyThreadCount) {
  RandomProblemOptions o;
  o.rows = 3000;  // several row blocks in a chunk
  o.chunk_rows = 1200;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Logistic);
  p.max_epochs = 3;
  const Fit fitted = fit(data, p);
  InMemorySource source(data);
  const ObjectiveSums one = objective_sums(source, p, fitted.state.weights.data(), data.n_features(),
                                           fitted.state.alpha.data(), 1);
  ASSERT_GT(one.loss, 0.0);
  for (int threads : {2, 3}) {
    const ObjectiveSums many = objective_sums(source, p, fitted.state.weights.data(), data.n_features(),
                                              fitted.state.alpha.data(), threads);
    EXPECT_EQ(one.loss, many.loss) << threads << " threads";
    EXPECT_EQ(one.dual, many.dual) << threads << " threads";
  }
}

// A gap pass with MarginBounds skips the rows whose hinge-type loss it proves 0, and
// its sums are those of the full pass: after the pass that records the margins,
// after a small move of w (most rows skipped), and after a large one (none).
TEST(SdcaCpu, MarginBoundsSkipRowsWithoutChangingTheSums) {
  RandomProblemOptions o;
  o.rows = 1500;
  o.chunk_rows = 500;
  const Dataset data = random_problem(o);
  InMemorySource source(data);
  for (LossKind loss : {LossKind::Hinge, LossKind::SquaredHinge}) {
    SolverParameters p = tight(loss);
    p.tol = 1e-6;
    const Fit fitted = fit(data, p);
    std::vector<double> squared_norms;  // with the intercept, as the solver caches them
    for (std::size_t c = 0; c < data.n_chunks(); ++c) {
      const CsrView x = data.view(c);
      for (std::int64_t r = 0; r < x.n_rows; ++r) {
        double squared = p.intercept_scaling * p.intercept_scaling;
        for (std::int64_t k = x.row_begin(r); k < x.row_end(r); ++k) squared += double(x.values[k]) * x.values[k];
        squared_norms.push_back(squared);
      }
    }
    MarginBounds bounds(squared_norms.data(), squared_norms.size());
    std::vector<double> w = fitted.state.weights;
    const double* alpha = fitted.state.alpha.data();
    for (double move : {0.0, 1e-4, 1e-1}) {
      for (double& value : w) value += move * value;  // a move of |move| * ||w||
      bounds.moved_to(w.data(), w.size());
      const ObjectiveSums full = objective_sums(source, p, w.data(), data.n_features(), alpha, 2);
      const ObjectiveSums skipped = objective_sums(source, p, w.data(), data.n_features(), alpha, 2, &bounds);
      EXPECT_NEAR(skipped.loss, full.loss, 1e-12 * full.loss) << loss_name(loss) << " move " << move;
      EXPECT_EQ(skipped.dual, full.dual);
      EXPECT_EQ(full.rows_bounded, 0);
      if (move == 0.0) {
        EXPECT_EQ(skipped.rows_bounded, 0) << "the first pass computes every margin";
      } else if (move == 1e-4) {
        EXPECT_GT(skipped.rows_bounded, o.rows / 4) << loss_name(loss);
      }
    }
  }
  // Logistic regression's loss is never 0: the bounds are not used.
  SolverParameters p = tight(LossKind::Logistic);
  const std::vector<double> ones(static_cast<std::size_t>(o.rows), 1.0);
  MarginBounds bounds(ones.data(), ones.size());
  std::vector<double> w(static_cast<std::size_t>(data.n_features()) + 1, 0.0);
  bounds.moved_to(w.data(), w.size());
  objective_sums(source, p, w.data(), data.n_features(), nullptr, 1, &bounds);
  bounds.moved_to(w.data(), w.size());
  EXPECT_EQ(objective_sums(source, p, w.data(), data.n_features(), nullptr, 1, &bounds).rows_bounded, 0);
}

// Shrinking (hinge and squared hinge) leaves rows out of the passes but not out of
// the certificate: with and without it the fit reaches the same optimum, with 1
// and 2 threads, and with it fewer rows are visited and fewer certificates taken.
TEST(SdcaCpu, ShrinkingReachesTheSameOptimumVisitingFewerRows) {
  RandomProblemOptions o;
  o.rows = 1000;
  o.chunk_rows = 300;
  const Dataset data = random_problem(o);
  for (LossKind loss : {LossKind::Hinge, LossKind::SquaredHinge}) {
    for (int threads : {1, 2}) {
      SolverParameters p = tight(loss);
      p.tol = 1e-7;
      p.threads = threads;
      p.shrinking = false;
      const Fit full = fit(data, p);
      p.shrinking = true;
      const Fit shrunk = fit(data, p);
      ASSERT_TRUE(full.result.converged);
      ASSERT_TRUE(shrunk.result.converged) << loss_name(loss) << " " << threads << " threads";
      const double p_full = full.result.history.back().primal, p_shrunk = shrunk.result.history.back().primal;
      EXPECT_NEAR(p_full, p_shrunk, 2e-7 * p_full) << loss_name(loss);
      EXPECT_LE(shrunk.result.history.back().gap, p.tol * p_shrunk);
      EXPECT_EQ(full.result.rows_visited, std::int64_t{full.result.epochs} * o.rows);
      // Measured here: about 0.05 of the rows a pass for the hinge, 0.7 for the squared
      // hinge (and the hinge needed half the epochs with one thread, an eighth with two).
      EXPECT_LT(shrunk.result.rows_visited, std::int64_t{shrunk.result.epochs} * o.rows * 9 / 10)
          << loss_name(loss) << " " << threads << " threads";
      // The certificate follows the epochs the schedule names (certificate_schedule.h);
      // with shrinking, also not before the epochs since the last have visited as
      // many rows as the data holds; a fit ends on one.
      for (const Fit* f : {&full, &shrunk}) {
        EXPECT_LT(f->result.history.size(), static_cast<std::size_t>(f->result.epochs));
        EXPECT_EQ(f->result.history.back().epoch, f->result.epochs);
        for (std::size_t r = 1; r < f->result.history.size(); ++r)
          EXPECT_LT(f->result.history[r - 1].epoch, f->result.history[r].epoch);
      }
    }
  }
  // Logistic regression does not shrink (its dual variables never reach a bound).
  SolverParameters p = tight(LossKind::Logistic);
  p.max_epochs = 20;
  const Fit logistic = fit(data, p);
  EXPECT_EQ(logistic.result.rows_visited, std::int64_t{logistic.result.epochs} * o.rows);
  EXPECT_EQ(logistic.result.history.back().epoch, logistic.result.epochs);
}

// w = sum_i alpha_i y_i x_i (the intercept's column included): the certificate's
// invariant, which every way of sharing w between threads must restore by the
// end of a round.
void expect_weights_of_alpha(const Dataset& data, const SolverParameters& p, const Fit& fitted,
                             const std::string& what) {
  std::vector<double> w(fitted.state.weights.size(), 0.0);
  std::int64_t i = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    for (std::int64_t r = 0; r < x.n_rows; ++r, ++i) {
      const double y = p.loss == LossKind::Squared ? 1.0 : x.labels[r];
      const double scale = fitted.state.alpha[static_cast<std::size_t>(i)] * y;
      for (std::int64_t k = x.row_begin(r); k < x.row_end(r); ++k)
        w[static_cast<std::size_t>(x.col_indices[k])] += scale * x.values[k];
      w.back() += scale * p.intercept_scaling;
    }
  }
  for (std::size_t j = 0; j < w.size(); ++j)
    ASSERT_NEAR(fitted.state.weights[j], w[j], 1e-9 * (1.0 + std::fabs(w[j]))) << what << " j=" << j;
}

// Two threads on the shared w: 21 weights, a copy per thread (thread_copies.h),
// and 3001 weights, too many to copy, where the threads add into w atomically
// and keep the intercept's (in every row: hot_columns.h) pending.
TEST(SdcaCpu, TwoThreadsConvergeToTheSameOptimum) {
  for (const std::int32_t features : {20, 3000}) {
    RandomProblemOptions o;
    o.rows = 1000;
    o.chunk_rows = 400;
    o.features = features;
    o.density = features > 100 ? 0.01 : 0.3;
    const Dataset data = random_problem(o);
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
    EXPECT_TRUE(f.result.averaged) << what;
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
        // Two rounds an epoch (kReplicaRoundsPerEpoch), whose halves of the
        // epoch's permutation visit every row once.
        EXPECT_EQ(many.result.rounds, kReplicaRoundsPerEpoch * many.result.epochs) << what;
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

TEST(SdcaCpu, AutoTakesReplicasOnlyForALargeSkewedProblem) {
  ReplicaProblem click_log;  // the generated click log of docs/benchmarks/threads.md
  click_log.epoch_nnz = 30766368;
  click_log.n_features = 1048615;
  click_log.skewed_columns = true;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, click_log));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 1, click_log));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Replicas, 1, click_log));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Shared, 2, click_log));
  // 8 threads: 8 x 1,048,616 x 4 non-zeros needed, more than the epoch has.
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 8, click_log));
  // More than kReplicaMaxThreads threads share w however large the epoch (the
  // replicas' epochs grow with their number).
  ReplicaProblem large = click_log;
  large.epoch_nnz *= 64;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, kReplicaMaxThreads, large));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, kReplicaMaxThreads + 1, large));
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 16, large));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 16, large));
  ReplicaProblem p = click_log;
  p.skewed_columns = false;  // uniform columns
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 2, p));
  p = click_log;
  p.shrinks = true;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  EXPECT_TRUE(use_replicas(ThreadUpdates::Replicas, 2, p));
  p = click_log;
  p.n_features = kReplicaMinWeights - 2;  // w in the core's cache (a9a-like)
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.n_features = kReplicaMinWeights - 1;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.epoch_nnz = 2 * kReplicaMinWeights * kReplicaNnzPerWeight - 1;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.epoch_nnz += 1;
  EXPECT_TRUE(use_replicas(ThreadUpdates::Auto, 2, p));
  p.n_features = std::int64_t{1} << 62;  // no overflow
  p.epoch_nnz = std::int64_t{1} << 62;
  EXPECT_FALSE(use_replicas(ThreadUpdates::Auto, 64, p));
  EXPECT_EQ(thread_updates_from_name("replicas"), ThreadUpdates::Replicas);
  EXPECT_STREQ(thread_updates_name(ThreadUpdates::Shared), "shared");
  EXPECT_THROW(thread_updates_from_name("atomic"), InvalidArgument);
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
    // Under several ranks a round is H epochs (each an allreduce of w's size):
    // a rank's replicas do not merge twice an epoch as one rank's do.
    EXPECT_EQ(other.result.rounds, (result.epochs + local_epochs - 1) / local_epochs);
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

TEST(SdcaCpu, WarmStartFromAlphaResumesWhereItStopped) {
  const Dataset data = random_problem({});
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-8;
  const Fit first = fit(data, p);
  const Fit again = fit(data, p, first.state);
  EXPECT_TRUE(again.result.converged);
  EXPECT_EQ(again.result.epochs, 1);
  EXPECT_NEAR(again.result.history.back().primal, first.result.history.back().primal,
              1e-8 * first.result.history.back().primal);
}

TEST(SdcaCpu, WarmStartFromWeightsNeedsFewerEpochs) {
  const Dataset data = random_problem({});
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    SolverParameters p = tight(loss);
    p.tol = 1e-8;
    const Fit cold = fit(data, p);
    SolverState start;
    start.weights = cold.state.weights;
    const Fit warm = fit(data, p, start);
    EXPECT_TRUE(warm.result.converged);
    EXPECT_LT(warm.result.epochs, cold.result.epochs / 2) << loss_name(loss);
    EXPECT_NEAR(warm.result.history.back().primal, cold.result.history.back().primal,
                1e-7 * cold.result.history.back().primal);
  }
}

TEST(SdcaCpu, RejectsBadParametersAndWarmStarts) {
  SolverParameters p;
  p.C = 0.0;
  EXPECT_THROW(make_sdca_cpu_solver(p), InvalidArgument);
  p = SolverParameters{};
  p.tol = -1.0;
  EXPECT_THROW(make_sdca_cpu_solver(p), InvalidArgument);
  const Dataset data = random_problem({});
  SolverState wrong;
  wrong.alpha.assign(5, 0.0);
  EXPECT_THROW(fit(data, SolverParameters{}, wrong), InvalidArgument);
}

}  // namespace
