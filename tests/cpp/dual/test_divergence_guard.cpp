// The divergence guard (snapml/src/dual/divergence_guard.h) and the round driver's use
// of it (snapml/impl/cocoa_round.h): a backend that diverges on purpose never ends a
// fit with a model; one that can lower its concurrency recovers and goes on; a
// fit that merely runs out of epochs while converging returns as before.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../../../snapml/src/dual/divergence_guard.h"
#include "snapml/impl/cocoa_round.h"
#include "snapml/error.h"

namespace snapml {
namespace {

Objectives at(double primal, double dual) { return Objectives{primal, dual, primal - dual}; }

TEST(DivergenceGuard, AConvergingSequenceNeverDiverges) {
  detail::DivergenceGuard guard;
  for (int epoch = 1; epoch < 200; ++epoch) {
    const double gap = 1.0 / epoch;
    EXPECT_EQ(guard.check(at(10.0 + gap, 10.0 - gap * 1e-3)), "") << epoch;
  }
}

TEST(DivergenceGuard, ADualFallOfHalfTheGapIsDivergence) {
  detail::DivergenceGuard guard;
  EXPECT_EQ(guard.check(at(12.0, 8.0)), "");  // gap 4
  EXPECT_EQ(guard.check(at(12.0, 7.0)), "");  // fell 1 < 2: an asynchronous wobble
  const std::string verdict = guard.check(at(12.0, 4.0));  // fell 3 > 2.5
  EXPECT_NE(verdict.find("dual objective fell from 7 to 4"), std::string::npos) << verdict;
}

TEST(DivergenceGuard, RoundingFallsNearTheOptimumAreNotDivergence) {
  detail::DivergenceGuard guard;
  EXPECT_EQ(guard.check(at(1e6, 1e6 - 1e-6)), "");
  EXPECT_EQ(guard.check(at(1e6, 1e6 - 2e-4)), "");  // fell 2e-4, far above the gap, below 1e-9 * 1e6
}

TEST(DivergenceGuard, AGapThatStaysFarAboveItsBestForAWindowIsDivergence) {
  detail::DivergenceGuard guard;
  EXPECT_EQ(guard.check(at(11.0, 10.0)), "");  // best gap 1
  for (int k = 1; k < detail::DivergenceGuard::kGrowthWindow; ++k) EXPECT_EQ(guard.check(at(40.0, 10.0)), "") << k;
  const std::string verdict = guard.check(at(40.0, 10.0));
  EXPECT_NE(verdict.find("duality gap rose from 1 to 30"), std::string::npos) << verdict;
}

// The device's a9a at 16 unpinned PASSCoDe threads (shared w): the relative gap
// 0.94-0.99 for 1,000 epochs, the dual never falling by half the gap nor the gap
// rising tenfold (--history, device run of 2026-11-27). Its first six
// certificates: a stall, which asks for fewer threads but fails no fit.
TEST(DivergenceGuard, AGapThatDoesNotHalveAfterTheFirstCertificateIsAStall) {
  const double history[][2] = {{40065.24, 1602.68}, {54444.32, 759.79}, {30900.86, 1850.05},
                               {33089.77, 1728.47}, {68109.06, 2033.88}, {32852.88, 2050.73}};
  detail::DivergenceGuard guard;
  std::string verdict;
  for (const auto& h : history) {
    EXPECT_EQ(verdict, "") << "before the window ended";
    verdict = guard.check(at(h[0], h[1]));
  }
  EXPECT_NE(verdict.find("stayed at"), std::string::npos) << verdict;
  EXPECT_TRUE(guard.stalled());
  // A gap that halves within the window is no stall (a9a, one thread: 0.74 to 0.08
  // relative in five certificates), nor is one that halves only at its last.
  detail::DivergenceGuard healthy;
  for (int k = 0; k <= detail::DivergenceGuard::kStallWindow; ++k) {
    const double gap = k < detail::DivergenceGuard::kStallWindow ? 100.0 - k : 49.0;
    EXPECT_EQ(healthy.check(at(1000.0 + gap, 1000.0)), "") << k;
  }
  EXPECT_FALSE(healthy.stalled());
  // The rule reads one window: a later slow stretch is not a stall.
  for (int k = 0; k < 3 * detail::DivergenceGuard::kStallWindow; ++k) EXPECT_EQ(healthy.check(at(1049.0, 1000.0)), "");
  // Nor does a non-smooth loss's stall count (its primal wanders by design).
  detail::DivergenceGuard hinge(false);
  for (const auto& h : history) EXPECT_EQ(hinge.check(at(h[0], std::max(h[1], 2100.0))), "");
}

TEST(DivergenceGuard, ANonSmoothLossesWanderingGapIsNotDivergence) {
  detail::DivergenceGuard guard(false);  // the hinge: its last iterate's primal wanders
  EXPECT_EQ(guard.check(at(11.0, 10.0)), "");
  for (int k = 0; k < 3 * detail::DivergenceGuard::kGrowthWindow; ++k) EXPECT_EQ(guard.check(at(400.0, 10.0)), "");
  EXPECT_NE(guard.check(at(400.0, -400.0)), "");  // its dual still may not fall
}

TEST(DivergenceGuard, ARiseThatComesBackIsNotDivergence) {
  detail::DivergenceGuard guard;
  EXPECT_EQ(guard.check(at(11.0, 10.0)), "");
  for (int k = 1; k < detail::DivergenceGuard::kGrowthWindow; ++k) EXPECT_EQ(guard.check(at(40.0, 10.0)), "");
  EXPECT_EQ(guard.check(at(10.5, 10.0)), "");  // back below 10x the best: the window starts again
  for (int k = 1; k < detail::DivergenceGuard::kGrowthWindow; ++k) EXPECT_EQ(guard.check(at(40.0, 10.0)), "");
}

TEST(DivergenceGuard, NonFiniteObjectivesAreDivergence) {
  detail::DivergenceGuard guard;
  EXPECT_NE(guard.check(at(std::numeric_limits<double>::quiet_NaN(), 1.0)), "");
  detail::DivergenceGuard other;
  EXPECT_NE(other.check(at(std::numeric_limits<double>::infinity(), 1.0)), "");
}

// One worker whose dual rises for `good_epochs` epochs, then falls at every
// epoch while its primal grows (the GPU's one-block-per-row pass on a9a), until
// the driver lowers its concurrency, after which it converges.
class DivergingBackend final : public RoundBackend {
 public:
  int good_epochs = 4;
  int reductions_allowed = 0;  // how many times reduce_concurrency() succeeds
  int reductions = 0;
  int epochs_run = 0;
  int epochs_since_reduction = 0;
  bool diverging = false;
  bool stalls = false;  // before any reduction: a gap that stays put (the device's a9a)

  std::int64_t n_rows() const override { return 10; }
  std::size_t weight_count() const override { return 2; }
  void begin_round() override {}
  std::int64_t epoch(int, EpochShare, double, double) override {
    ++epochs_run;
    ++epochs_since_reduction;
    return 10;
  }
  void local_change(double, double*) override {}
  void apply_change(double, const double*) override {}
  void scale_alpha(double) override {}
  ObjectiveSums objective_sums(int next_epoch) override {
    ObjectiveSums sums;
    const bool calm = reductions > 0 || next_epoch <= good_epochs;
    const double e = reductions > 0 ? epochs_since_reduction : next_epoch;
    if (stalls && reductions == 0) {
      sums.loss = 20.0 + (next_epoch % 2);
      sums.dual = 10.0 - 0.1 * (next_epoch % 3);
    } else if (calm) {
      sums.loss = 10.0 + 1.0 / e;
      sums.dual = 10.0 - 1.0 / e;
    } else {  // the dual falls and the primal runs away
      sums.loss = 10.0 + next_epoch;
      sums.dual = 10.0 - 2.0 * next_epoch;
    }
    return sums;
  }
  double squared_weight_norm() override { return 0.0; }
  std::vector<double> copy_alpha() override { return {}; }
  bool reduce_concurrency() override {
    if (reductions >= reductions_allowed) return false;
    ++reductions;
    epochs_since_reduction = 0;
    return true;
  }
  std::string divergence_remedy() const override { return "train by the test's remedy"; }
};

TEST(DivergenceGuard, ADivergingFitThrowsInsteadOfReturningAModel) {
  DivergingBackend backend;
  SolverParameters parameters;
  parameters.tol = 1e-6;
  parameters.max_epochs = 1000;
  LocalCommunicator local;
  try {
    run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
    FAIL() << "a diverging fit returned";
  } catch (const FitDiverged& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("diverged after " + std::to_string(backend.epochs_run) + " epochs"), std::string::npos)
        << message;
    EXPECT_NE(message.find("dual objective fell"), std::string::npos) << message;
    EXPECT_NE(message.find("no model is returned. Train by the test's remedy"), std::string::npos) << message;
  }
  // Stopped at the first certificate after the fall (the schedule certifies every
  // epoch or two while the gap's rate predicts more than two to go).
  EXPECT_LE(backend.epochs_run, 10);
}

TEST(DivergenceGuard, ADivergingFitAtItsLastEpochStillThrows) {
  DivergingBackend backend;
  SolverParameters parameters;
  parameters.tol = 1e-6;
  parameters.max_epochs = 5;  // the fall comes with the last certificate
  LocalCommunicator local;
  EXPECT_THROW(run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now()), FitDiverged);
}

TEST(DivergenceGuard, ABackendThatLowersItsConcurrencyRecoversAndRecordsIt) {
  DivergingBackend backend;
  backend.reductions_allowed = 1;
  SolverParameters parameters;
  parameters.tol = 1e-2;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.concurrency_reductions, 1);
  int marked = 0;
  for (const EpochRecord& record : result.history) marked += record.concurrency_reduced ? 1 : 0;
  EXPECT_EQ(marked, 1);
}

TEST(DivergenceGuard, AFitThatRunsOutOfEpochsWhileConvergingReturnsUnconverged) {
  DivergingBackend backend;
  backend.good_epochs = 1000;
  SolverParameters parameters;
  parameters.tol = 1e-9;
  parameters.max_epochs = 20;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.epochs, 20);
  EXPECT_EQ(result.concurrency_reductions, 0);
}

// A stall asks the backend for less concurrency; where it has some, the fit
// recovers and records it; where it has none, the fit goes on (a slow fit is no
// diverged one) and ends unconverged at max_epochs, never with FitDiverged.
TEST(DivergenceGuard, AStallLowersConcurrencyWhereThereIsSomeAndFailsNothing) {
  SolverParameters parameters;
  parameters.tol = 1e-2;
  parameters.max_epochs = 200;
  LocalCommunicator local;
  DivergingBackend backend;
  backend.stalls = true;
  backend.reductions_allowed = 1;
  const FitResult recovered = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(recovered.converged);
  EXPECT_EQ(recovered.concurrency_reductions, 1);

  DivergingBackend alone;  // one thread: nothing to lower
  alone.stalls = true;
  parameters.max_epochs = 40;
  const FitResult slow = run_cocoa_rounds(alone, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_FALSE(slow.converged);
  EXPECT_EQ(slow.epochs, 40);
  EXPECT_EQ(slow.concurrency_reductions, 0);
}

}  // namespace
}  // namespace snapml
