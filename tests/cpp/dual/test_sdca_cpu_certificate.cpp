// The CPU SDCA solver's duality-gap certificate and its passes: the gap bounds the
// distance to the optimum and the dual ascends; the same bits for a seed, any
// chunking and any thread count of the gap pass; margin bounds and shrinking
// leave rows out of the work but not out of the certificate.
#include <gtest/gtest.h>

#include <algorithm>
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

// certify_every_epoch (snapml 1.x's full history, snap-train's --history): a record
// after every epoch, numbered 1..epochs, in time order, each exact, the last the
// fit's certificate. The records between the schedule's are `observed`: the fit
// does not read them, so with one thread it takes the same steps, stops at the
// same epoch and returns the same bits; the schedule's records are among them
// (their loss sums equal up to the margin bounds' rounding, 1e-12: see
// MarginBoundsSkipRowsWithoutChangingTheSums).
TEST(SdcaCpu, CertifyEveryEpochRecordsEveryEpochAndChangesNothing) {
  RandomProblemOptions o;
  o.rows = 600;
  for (LossKind loss : {LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge, LossKind::Squared}) {
    o.regression = loss == LossKind::Squared;
    const Dataset data = random_problem(o);
    for (int threads : {1, 2}) {
      const std::string what = std::string(loss_name(loss)) + ", " + std::to_string(threads) + " threads";
      SolverParameters p = tight(loss);
      p.tol = 1e-6;
      p.threads = threads;
      const Fit scheduled = fit(data, p);
      p.certify_every_epoch = true;
      std::size_t reported = 0;
      p.on_epoch = [&reported](const EpochRecord&) { ++reported; };
      const Fit every = fit(data, p);
      ASSERT_TRUE(every.result.converged) << what;
      const std::vector<EpochRecord>& history = every.result.history;
      ASSERT_EQ(history.size(), static_cast<std::size_t>(every.result.epochs)) << what;
      EXPECT_EQ(reported, history.size()) << what;
      for (std::size_t k = 0; k < history.size(); ++k) {
        EXPECT_EQ(history[k].epoch, static_cast<int>(k) + 1) << what;
        EXPECT_TRUE(std::isfinite(history[k].primal) && std::isfinite(history[k].dual)) << what;
        EXPECT_NEAR(history[k].gap, history[k].primal - history[k].dual, 1e-12 * std::fabs(history[k].primal));
        if (k > 0) {
          EXPECT_GE(history[k].seconds, history[k - 1].seconds) << what;
        }
      }
      EXPECT_FALSE(history.back().observed) << what;
      EXPECT_LE(history.back().gap, p.tol * history.back().primal) << what;
      // Both fits are certified: P* <= P <= P* + tol * P for each.
      const double p_scheduled = scheduled.result.history.back().primal;
      EXPECT_NEAR(history.back().primal, p_scheduled, p.tol * std::max(p_scheduled, history.back().primal)) << what;
      if (threads > 1) continue;  // the threads' steps race: another path each run
      EXPECT_EQ(every.result.epochs, scheduled.result.epochs) << what;
      EXPECT_EQ(every.state.weights, scheduled.state.weights) << what;
      std::size_t checked = 0;
      for (const EpochRecord& r : history) checked += r.observed ? 0 : 1;
      EXPECT_EQ(checked, scheduled.result.history.size()) << what;
      for (const EpochRecord& r : scheduled.result.history) {
        const EpochRecord& same = history[static_cast<std::size_t>(r.epoch) - 1];
        EXPECT_FALSE(same.observed) << what << " epoch " << r.epoch;
        EXPECT_NEAR(same.primal, r.primal, 1e-12 * r.primal) << what << " epoch " << r.epoch;
        EXPECT_EQ(same.dual, r.dual) << what << " epoch " << r.epoch;
      }
    }
  }
}

// A large intercept scaling makes one column carry most of every row's norm: the
// primal of w(alpha) swings from epoch to epoch while the dual creeps up, and a
// fit that stops at max_epochs ends on its best certified iterate
// (cocoa_round.h, "The best certified iterate"), which is a dual point of its
// own (w = w(alpha)) whose primal is the record's.
TEST(SdcaCpu, AFitStoppedAtMaxEpochsEndsOnItsBestCertifiedIterate) {
  RandomProblemOptions o;
  o.rows = 400;
  const Dataset data = random_problem(o);
  for (LossKind loss : {LossKind::SquaredHinge, LossKind::Logistic}) {
    SolverParameters p = tight(loss);
    p.intercept_scaling = 100.0;
    p.max_epochs = 250;
    const Fit swinging = fit(data, p);
    const std::string what = loss_name(loss);
    EXPECT_FALSE(swinging.result.converged) << what;
    ASSERT_GT(swinging.result.best_epoch, 0) << what;
    EXPECT_LT(swinging.result.best_epoch, p.max_epochs) << what;
    expect_weights_of_alpha(data, p, swinging, what);
    const DenseProblem problem = dense(data, p);
    const Eigen::VectorXd w = as_vector(swinging.state.weights);
    const double primal = loss == LossKind::Logistic ? logistic_primal(problem, w) : squared_hinge_primal(problem, w);
    const EpochRecord& last = swinging.result.history.back();
    EXPECT_NEAR(primal, last.primal, 1e-9 * primal) << what;
    // The same fit certifying every epoch: the record of the epoch the model is
    // from has its primal, and no certified iterate's primal is smaller.
    p.certify_every_epoch = true;
    const Fit every = fit(data, p);
    EXPECT_EQ(every.result.best_epoch, swinging.result.best_epoch) << what;
    EXPECT_EQ(every.state.weights, swinging.state.weights) << what;
    bool found = false;
    bool swung = false;
    for (const EpochRecord& r : every.result.history) {
      if (!r.observed && r.epoch == every.result.best_epoch) {
        found = true;
        EXPECT_DOUBLE_EQ(r.primal, last.primal) << what;
      }
      // The iterates after it: some of them worse (the records every epoch are
      // each iterate's own objectives).
      swung = swung || (r.observed && r.epoch > every.result.best_epoch && r.primal > last.primal);
    }
    EXPECT_TRUE(found) << what;
    EXPECT_TRUE(swung) << what;
  }
}

// A free intercept's best iterate keeps the intercept its certificate found
// (free_intercept.h: the offset besides alpha): the returned model's primal,
// the intercept unpenalised, is the last record's.
TEST(SdcaCpu, AFreeInterceptsBestCertifiedIterateKeepsItsIntercept) {
  RandomProblemOptions o;
  o.rows = 400;
  const Dataset data = random_problem(o);
  // Configurations whose primal swings (found by a sweep): one thread, and four
  // replicas (dealt rows: one fit for a seed).
  struct Case {
    LossKind loss;
    int threads;
    int max_epochs;
  };
  for (const Case c : {Case{LossKind::SquaredHinge, 1, 20}, Case{LossKind::Logistic, 4, 80}}) {
    SolverParameters p = tight(c.loss);
    p.penalise_intercept = false;
    p.intercept_scaling = 10.0;
    p.max_epochs = c.max_epochs;
    p.threads = c.threads;
    if (c.threads > 1) p.thread_updates = ThreadUpdates::Replicas;
    const Fit fitted = fit(data, p);
    const std::string what = loss_name(c.loss);
    ASSERT_GT(fitted.result.best_epoch, 0) << what;
    InMemorySource source(data);
    const ObjectiveSums sums = objective_sums(source, p, fitted.state.weights.data(), data.n_features(), nullptr, 1);
    const Objectives own = combine(sums, fitted.state.weights.data(), data.n_features());  // w without the intercept
    EXPECT_NEAR(own.primal, fitted.result.history.back().primal, 1e-9 * own.primal) << what;
  }
}

}  // namespace
