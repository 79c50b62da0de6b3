// The CoCoA+ round driver (snapml/impl/cocoa_round.h) over a scripted backend: when it
// reduces, which gamma it applies and when it scales alpha, when it certifies and
// when it stops. The solvers' own tests check the maths on real data.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "snapml/impl/cocoa_round.h"

namespace snapml {
namespace {

// Records the driver's calls; its "changes" and sums follow a script.
class ScriptedBackend final : public RoundBackend {
 public:
  std::int64_t rows = 10;
  std::int64_t visited_per_epoch = 10;
  std::vector<std::vector<double>> changes;  // per round: dw sum (2 weights), then sum_k ||dw_k||^2
  std::vector<int> epochs_seen;
  std::vector<double> sigmas_seen;
  std::vector<double> gammas_applied;
  std::vector<double> gammas_scaled;
  std::vector<int> certified_before;  // next_epoch of each objective pass
  int rounds_begun = 0;
  int parts = 1;  // rounds an epoch the backend asks for
  std::vector<int> parts_seen;
  std::vector<int> shares_seen;  // the share count of each call

  std::int64_t n_rows() const override { return rows; }
  std::size_t weight_count() const override { return 2; }
  void begin_round() override { ++rounds_begun; }
  int rounds_per_epoch() const override { return parts; }
  std::int64_t epoch(int epoch_index, EpochShare share, double sigma, double) override {
    epochs_seen.push_back(epoch_index);
    parts_seen.push_back(share.part);
    shares_seen.push_back(share.parts);
    sigmas_seen.push_back(sigma);
    return visited_per_epoch;
  }
  void local_change(double, double* change) override {
    const std::vector<double>& round = changes.at(gammas_applied.size());
    for (std::size_t j = 0; j < round.size(); ++j) change[j] += round[j];
  }
  void apply_change(double gamma, const double*) override { gammas_applied.push_back(gamma); }
  void scale_alpha(double gamma) override { gammas_scaled.push_back(gamma); }
  // Gap 2 / epoch against a primal of 1 + 1 / epoch.
  ObjectiveSums objective_sums(int next_epoch) override {
    certified_before.push_back(next_epoch);
    ObjectiveSums sums;
    sums.loss = 1.0 + 1.0 / next_epoch;
    sums.dual = 1.0 - 1.0 / next_epoch;
    return sums;
  }
  double squared_weight_norm() override { return 0.0; }
  std::vector<double> copy_alpha() override { return {static_cast<double>(epochs_seen.size())}; }
};

TEST(CocoaRound, AResumedFitCountsOnFromItsFirstEpochAndReportsProgressAfterEveryRound) {
  ScriptedBackend backend;
  SolverParameters parameters;
  parameters.tol = 0.1;  // met at epoch 19 (see below)
  parameters.first_epoch = 15;
  std::vector<int> progress_epochs;
  std::vector<double> snapshots;
  parameters.on_progress = [&](int epochs, const std::function<SolverState()>& snapshot) {
    progress_epochs.push_back(epochs);
    snapshots.push_back(snapshot().alpha.at(0));
  };
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.epochs, 19);
  EXPECT_EQ(backend.epochs_seen, (std::vector<int>{15, 16, 17, 18}));
  EXPECT_EQ(progress_epochs, (std::vector<int>{16, 17, 18, 19}));
  EXPECT_EQ(snapshots, (std::vector<double>{1, 2, 3, 4}));
}

TEST(CocoaRound, OneWorkerCertifiesOnceTheEpochsHaveVisitedEveryRow) {
  ScriptedBackend backend;
  backend.visited_per_epoch = 4;  // a shrunk fit: every third epoch has visited 12 >= 10 rows
  SolverParameters parameters;
  parameters.tol = 0.1;  // met once 2 / e <= 0.1 (1 + 1 / e), e >= 19
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(result.converged);
  // Certificates 3 epochs apart at least (12 rows visited), further where the
  // schedule's rate predicts more (certificate_schedule.h): 5 epochs after 6, 3
  // after 11 and 14; after 17 it predicts 1, and 20 is the first epoch that has
  // visited every row since.
  const std::vector<int> certified = {3, 6, 11, 14, 17, 20};
  EXPECT_EQ(result.epochs, 20);
  EXPECT_EQ(result.rows_visited, 20 * 4);
  EXPECT_EQ(backend.certified_before, certified);
  ASSERT_EQ(result.history.size(), certified.size());
  for (std::size_t k = 0; k < certified.size(); ++k) EXPECT_EQ(result.history[k].epoch, certified[k]);
  EXPECT_EQ(backend.rounds_begun, 0);  // one worker: v is w, nothing to remember
  EXPECT_TRUE(backend.gammas_applied.empty());
  for (const double sigma : backend.sigmas_seen) EXPECT_EQ(sigma, 1.0);
}

TEST(CocoaRound, OneWorkerStopsAtMaxEpochsWithACertificate) {
  ScriptedBackend backend;
  backend.visited_per_epoch = 4;
  SolverParameters parameters;
  parameters.tol = 1e-9;
  parameters.max_epochs = 5;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.epochs, 5);
  // After epoch 3 (12 rows visited) and after the last epoch, whatever it visited.
  EXPECT_EQ(backend.certified_before, (std::vector<int>{3, 5}));
}

TEST(CocoaRound, SeveralWorkersShortenARoundWhoseOverlapExceedsSigma) {
  ScriptedBackend backend;
  // Round 1: the workers' changes do not overlap (rho = 1): gamma 1, next sigma'
  // rho. Round 2: they all point the same way (rho = 2 > 1): gamma =
  // sigma' / rho, and alpha is scaled back alike. Round 3: rho = 1 again.
  backend.changes = {{1.0, 0.0, 1.0}, {1.0, 1.0, 1.0}, {0.0, 1.0, 1.0}};
  SolverParameters parameters;
  parameters.tol = 1e-9;
  parameters.max_epochs = 6;
  parameters.local_epochs = 2;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 2, parameters, std::chrono::steady_clock::now());
  EXPECT_EQ(result.epochs, 6);
  EXPECT_EQ(backend.rounds_begun, 3);
  EXPECT_EQ(backend.epochs_seen, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // sigma' starts at K = 2 (safe before any measurement), then adapts.
  EXPECT_EQ(backend.sigmas_seen, (std::vector<double>{2.0, 2.0, 1.0, 1.0, 2.0, 2.0}));
  ASSERT_EQ(backend.gammas_applied.size(), 3u);
  EXPECT_DOUBLE_EQ(backend.gammas_applied[0], 1.0);
  EXPECT_DOUBLE_EQ(backend.gammas_applied[1], 1.0 / 2.0);
  EXPECT_DOUBLE_EQ(backend.gammas_applied[2], 1.0);
  EXPECT_EQ(backend.gammas_scaled, (std::vector<double>{1.0 / 2.0}));
  // Several workers: a certificate after every round.
  EXPECT_EQ(backend.certified_before, (std::vector<int>{2, 4, 6}));
}

// A free intercept (the dual's method of multipliers) solves the next round with
// sigma' = 1.25 rho, within K (kFreeInterceptHeadroom, cocoa.h); a penalised one
// with rho itself.
TEST(CocoaRound, AFreeInterceptKeepsHeadroomOverTheLastRho) {
  for (const bool free : {false, true}) {
    SCOPED_TRACE(free);
    ScriptedBackend backend;
    // Round 1: rho = ||(1, 1)||^2 / 1 = 2; round 2: rho = 1; round 3: rho = 4 (= K).
    backend.changes = {{1.0, 1.0, 1.0}, {1.0, 0.0, 1.0}, {2.0, 0.0, 1.0}, {0.0, 0.0, 0.0}};
    SolverParameters parameters;
    parameters.tol = 1e-9;
    parameters.max_epochs = 4;
    parameters.penalise_intercept = !free;
    parameters.intercept_scaling = 1.0;
    LocalCommunicator local;
    run_cocoa_rounds(backend, local, 4, parameters, std::chrono::steady_clock::now());
    const std::vector<double> expected =
        free ? std::vector<double>{4.0, 2.5, 1.25, 4.0} : std::vector<double>{4.0, 2.0, 1.0, 4.0};
    EXPECT_EQ(backend.sigmas_seen, expected);
  }
}

TEST(CocoaRound, SeveralRoundsAnEpochMergeAfterEachShareAndCountTheEpochOnce) {
  ScriptedBackend backend;
  backend.parts = 2;
  backend.visited_per_epoch = 5;  // each share visits half the rows
  // Rounds 1-2 (epoch 0): rho 1, then rho 2 > 1 (gamma 0.5); rounds 3-4 (epoch 1): rho 1.
  backend.changes = {{1.0, 0.0, 1.0}, {1.0, 1.0, 1.0}, {0.0, 1.0, 1.0}, {1.0, 0.0, 1.0}};
  SolverParameters parameters;
  parameters.tol = 1e-9;
  parameters.max_epochs = 2;
  std::vector<int> progress_epochs;
  parameters.on_progress = [&](int epochs, const std::function<SolverState()>&) { progress_epochs.push_back(epochs); };
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 2, parameters, std::chrono::steady_clock::now());
  EXPECT_EQ(result.epochs, 2);
  EXPECT_EQ(result.rows_visited, 20);
  EXPECT_EQ(result.rounds, 4);
  EXPECT_EQ(backend.rounds_begun, 4);
  EXPECT_EQ(backend.epochs_seen, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(backend.parts_seen, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(backend.shares_seen, (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(backend.sigmas_seen, (std::vector<double>{2.0, 1.0, 2.0, 1.0}));
  EXPECT_EQ(backend.gammas_applied, (std::vector<double>{1.0, 1.0 / 2.0, 1.0, 1.0}));
  EXPECT_EQ(backend.gammas_scaled, (std::vector<double>{1.0 / 2.0}));
  EXPECT_EQ(progress_epochs, (std::vector<int>{1, 2}));  // once an epoch, after its last share
  // With H local epochs a round spans them all: one share an epoch.
  ScriptedBackend spanning;
  spanning.parts = 2;
  spanning.changes = backend.changes;
  parameters.local_epochs = 2;
  parameters.on_progress = nullptr;
  run_cocoa_rounds(spanning, local, 2, parameters, std::chrono::steady_clock::now());
  EXPECT_EQ(spanning.parts_seen, (std::vector<int>{0, 0}));
  EXPECT_EQ(spanning.shares_seen, (std::vector<int>{1, 1}));  // whole epochs
  EXPECT_EQ(spanning.rounds_begun, 1);
}

// A backend of one worker whose epochs visit its 10 rows and move nothing the
// driver reads: the objective sums are each test's script.
class StillBackend : public RoundBackend {
 public:
  std::int64_t n_rows() const override { return 10; }
  std::size_t weight_count() const override { return 2; }
  void begin_round() override {}
  std::int64_t epoch(int, EpochShare, double, double) override { return 10; }
  void local_change(double, double*) override {}
  void apply_change(double, const double*) override {}
  void scale_alpha(double) override {}
  double squared_weight_norm() override { return 0.0; }
  std::vector<double> copy_alpha() override { return {}; }
};

// A backend that keeps the average of its iterates (IterateAverage): the
// iterate's primal 1 + 2 / e and dual 1 - 1 / e after e epochs, the average's
// primal 1 + 0.5 / e (or 1 + 3 / e) and dual 1 - 3 / e.
class AveragingBackend final : public StillBackend {
 public:
  bool average_better = true;
  bool swapped = false;  // the average is the backend's (alpha, w)
  std::vector<double> weights_added;
  std::vector<int> certified_before;
  std::vector<bool> certified_average;

  ObjectiveSums objective_sums(int next_epoch) override {
    certified_before.push_back(next_epoch);
    certified_average.push_back(swapped);
    const double e = next_epoch;
    ObjectiveSums sums;
    sums.loss = swapped ? 1.0 + (average_better ? 0.5 : 3.0) / e : 1.0 + 2.0 / e;
    sums.dual = swapped ? 1.0 - 3.0 / e : 1.0 - 1.0 / e;
    return sums;
  }
  bool keeps_average() const override { return true; }
  void add_to_average(double weight) override { weights_added.push_back(weight); }
  void swap_average() override { swapped = !swapped; }
};

TEST(CocoaRound, AHingeFitEndsOnTheAverageWhenItsPrimalIsSmallerCertifiedByTheLargerDual) {
  AveragingBackend backend;
  SolverParameters parameters;
  parameters.loss = LossKind::Hinge;
  parameters.tol = 1e-9;
  parameters.max_epochs = 6;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_EQ(result.epochs, 6);
  // Polynomial-decay weights (kDecay 3): 1, then 4 / (t + 3).
  EXPECT_EQ(backend.weights_added, (std::vector<double>{1.0, 4.0 / 5, 4.0 / 6, 4.0 / 7, 4.0 / 8, 4.0 / 9}));
  // The iterate after the epochs the schedule names; the average only where it
  // can end the fit (here the last epoch).
  EXPECT_EQ(backend.certified_before, (std::vector<int>{1, 2, 4, 6, 6}));
  EXPECT_EQ(backend.certified_average, (std::vector<bool>{false, false, false, false, true}));
  EXPECT_TRUE(backend.swapped);  // the result is the average
  EXPECT_TRUE(result.averaged);
  const EpochRecord& last = result.history.back();
  EXPECT_DOUBLE_EQ(last.primal, 1.0 + 0.5 / 6);  // the average's
  EXPECT_DOUBLE_EQ(last.dual, 1.0 - 1.0 / 6);    // the iterate's, the larger
  EXPECT_DOUBLE_EQ(last.gap, last.primal - last.dual);

  // An average with the larger primal: the iterate stays the result.
  AveragingBackend worse;
  worse.average_better = false;
  const FitResult kept = run_cocoa_rounds(worse, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_FALSE(worse.swapped);
  EXPECT_FALSE(kept.averaged);
  EXPECT_DOUBLE_EQ(kept.history.back().primal, 1.0 + 2.0 / 6);
  EXPECT_DOUBLE_EQ(kept.history.back().dual, 1.0 - 1.0 / 6);

  // A smooth loss averages nothing.
  AveragingBackend smooth;
  parameters.loss = LossKind::SquaredHinge;
  const FitResult plain = run_cocoa_rounds(smooth, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(smooth.weights_added.empty());
  EXPECT_FALSE(plain.averaged);
  EXPECT_EQ(smooth.certified_before, (std::vector<int>{1, 2, 4, 6}));
}

TEST(CocoaRound, TheAverageEndsAFitWhoseIterateAloneHasNotMetTol) {
  // tol 0.3: the iterate's relative gap 3 / (e + 2) meets it at e = 8, the
  // average's primal with the iterate's dual, 1.5 / (e + 0.5), at e = 5.
  AveragingBackend backend;
  SolverParameters parameters;
  parameters.loss = LossKind::Hinge;
  parameters.tol = 0.3;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(result.converged);
  EXPECT_TRUE(result.averaged);
  EXPECT_GE(result.epochs, 5);
  EXPECT_LT(result.epochs, 8);
  EXPECT_DOUBLE_EQ(result.history.back().primal, 1.0 + 0.5 / result.epochs);
  EXPECT_TRUE(backend.swapped);
}

// A smooth loss's backend whose primal swings from certificate to certificate
// while its dual rises (the certified iterate's primal `primals[k]` at the k-th
// certificate, its dual 1 - 1 / e), and that keeps a best iterate.
class SwingingBackend final : public StillBackend {
 public:
  std::vector<double> primals;
  bool keeps = true;
  std::vector<int> kept_at;  // the certificate (0, 1, ...) each keep_best() copied
  int ended_on = -1;         // the certificate end_on_best() returned to
  int certificates = 0;
  std::vector<int> certified_after;  // the epochs done at each certificate

  ObjectiveSums objective_sums(int next_epoch) override {
    certified_after.push_back(next_epoch);
    ObjectiveSums sums;
    sums.loss = primals.at(static_cast<std::size_t>(certificates++));
    sums.dual = 1.0 - 1.0 / next_epoch;
    return sums;
  }
  bool keeps_best() const override { return keeps; }
  void keep_best() override { kept_at.push_back(certificates - 1); }
  void end_on_best() override { ended_on = kept_at.back(); }
};

TEST(CocoaRound, ASmoothFitEndsOnItsBestCertifiedIterateAtMaxEpochs) {
  SwingingBackend backend;
  backend.primals = {3.0, 1.5, 4.0, 2.0, 2.5, 3.5};
  SolverParameters parameters;
  parameters.loss = LossKind::SquaredHinge;
  parameters.tol = 1e-9;
  parameters.max_epochs = 6;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.epochs, 6);
  const std::size_t certificates = backend.certified_after.size();
  ASSERT_GE(certificates, 3u);
  EXPECT_EQ(backend.certified_after.back(), 6);
  // Copied where the primal was the smallest yet and the fit went on.
  EXPECT_EQ(backend.kept_at, (std::vector<int>{0, 1}));
  EXPECT_EQ(backend.ended_on, 1);
  EXPECT_EQ(result.best_epoch, backend.certified_after[1]);
  ASSERT_EQ(result.history.size(), certificates);
  // Each record: the smallest primal so far against the largest dual.
  EXPECT_DOUBLE_EQ(result.history[2].primal, 1.5);
  const EpochRecord& last = result.history.back();
  EXPECT_DOUBLE_EQ(last.primal, 1.5);
  EXPECT_DOUBLE_EQ(last.dual, 1.0 - 1.0 / 6);
  EXPECT_DOUBLE_EQ(last.gap, last.primal - last.dual);

  // The last iterate the best: it is returned, nothing swapped.
  SwingingBackend falling;
  falling.primals = {3.0, 2.5, 2.0, 1.5, 1.4, 1.3};
  const FitResult last_best = run_cocoa_rounds(falling, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_EQ(falling.ended_on, -1);
  EXPECT_EQ(last_best.best_epoch, 0);
  EXPECT_DOUBLE_EQ(last_best.history.back().primal, falling.primals[falling.certified_after.size() - 1]);

  // A backend without the copy (a streamed source): its last iterate,
  // certified by the largest dual all the same.
  SwingingBackend without;
  without.keeps = false;
  without.primals = backend.primals;
  const FitResult plain = run_cocoa_rounds(without, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(without.kept_at.empty());
  EXPECT_EQ(without.ended_on, -1);
  EXPECT_EQ(plain.best_epoch, 0);
  EXPECT_DOUBLE_EQ(plain.history.back().primal, without.primals[without.certified_after.size() - 1]);

  // The hinge keeps its average in that room instead (IterateAverage).
  SwingingBackend hinge;
  hinge.primals = backend.primals;
  parameters.loss = LossKind::Hinge;
  const FitResult averaged = run_cocoa_rounds(hinge, local, 1, parameters, std::chrono::steady_clock::now());
  EXPECT_TRUE(hinge.kept_at.empty());
  EXPECT_EQ(averaged.best_epoch, 0);
}

TEST(CocoaRound, TheBestIterateEndsAFitWhoseLastIterateHasNotMetTol) {
  // tol 0.5, the dual 1 - 1 / e: at the second certificate (e >= 2) the iterate
  // (1.2, at most 2 / 3) is short of it; at the third the iterate's 3.0 is far
  // from it, the best's 1.2 against the larger dual (at least 2 / 3) meets it.
  SwingingBackend backend;
  backend.primals = {3.0, 1.2, 3.0, 3.0, 3.0};
  SolverParameters parameters;
  parameters.loss = LossKind::Logistic;
  parameters.tol = 0.5;
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
  ASSERT_EQ(backend.certified_after.size(), 3u);
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.epochs, backend.certified_after[2]);
  EXPECT_EQ(backend.ended_on, 1);
  EXPECT_EQ(result.best_epoch, backend.certified_after[1]);
  EXPECT_DOUBLE_EQ(result.history.back().primal, 1.2);
  EXPECT_DOUBLE_EQ(result.history.back().dual, 1.0 - 1.0 / result.epochs);
}

TEST(CocoaRound, ADualThatIsNotFiniteNeverCertifies) {
  // A diverged iterate's dual (+inf from garbage, or NaN) made P - D = -inf or
  // NaN: -inf met tol, and a kept largest dual would have certified every later
  // iterate. Neither: the certificate is not finite (the divergence guard asks
  // the backend to step more carefully, as the GPU's halves its rows in flight),
  // and the largest finite dual stays the bound.
  class Diverged final : public StillBackend {
   public:
    std::vector<double> duals;
    int certificates = 0;
    bool reduce_concurrency() override { return true; }
    ObjectiveSums objective_sums(int) override {
      ObjectiveSums sums;
      sums.loss = 2.0;
      sums.dual = duals.at(static_cast<std::size_t>(certificates++));
      return sums;
    }
  };
  for (const double bad : {HUGE_VAL, std::nan("")}) {
    Diverged backend;
    backend.duals = {0.5, bad, 0.6, 0.7, 0.8, 0.9};
    SolverParameters parameters;
    parameters.loss = LossKind::SquaredHinge;
    parameters.tol = 0.5;
    parameters.max_epochs = 3;
    LocalCommunicator local;
    const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, std::chrono::steady_clock::now());
    ASSERT_GE(result.history.size(), 2u);
    EXPECT_FALSE(std::isfinite(result.history[1].gap)) << bad;
    for (std::size_t k = 2; k < result.history.size(); ++k) EXPECT_TRUE(std::isfinite(result.history[k].dual)) << bad;
    EXPECT_FALSE(result.converged) << bad;  // 2 - 0.6 or 0.7 is above 0.5 x 2
  }
}

}  // namespace
}  // namespace snapml
