// The L1 coordinate descent solver: the KKT conditions at its result, the lasso
// against an independent long-run cyclic coordinate descent, L1-logistic and
// L1-squared-hinge against LIBLINEAR -s 6 / -s 5 on heart_scale, sparsity along
// C, the dual-scaling certificate, reproducibility, and the refusals (with weights
// and from a warm start: test_l1_solvers.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../fixtures/random_problem.h"
#include "l1_references.h"
#include "../fixtures/references.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "snapml/model.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"
#include "snapml/train.h"
#include "../fixtures/fit_once.h"
#include "test_data.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

Fit fit(const Dataset& data, const SolverParameters& parameters, SolverState start = {}) {
  return fit_once(*make_cd_l1_cpu_solver(parameters), data, std::move(start));
}

SolverParameters tight(LossKind loss, double C = 1.0) { return tight_l1(loss, C, 1.0, kCoordinateDescentEpochs); }

TEST(CdL1Cpu, LassoMatchesLongCyclicDescentAndKkt) {
  for (std::uint64_t seed : {7u, 11u, 23u}) {
    RandomProblemOptions o;
    o.regression = true;
    o.seed = seed;
    o.sample_weights = seed == 11u;
    const Dataset data = random_problem(o);
    const SolverParameters p = tight(LossKind::Squared, 0.05);
    const DenseProblem problem = dense(data, p);
    const Fit ours = fit(data, p);
    ASSERT_TRUE(ours.result.converged) << "seed " << seed;
    const Eigen::VectorXd w = as_vector(ours.state.weights);
    expect_kkt(LossKind::Squared, problem, w, 1e-6);
    const Eigen::VectorXd reference = lasso_reference(problem);
    const double p_ours = l1_primal(LossKind::Squared, problem, w);
    const double p_reference = l1_primal(LossKind::Squared, problem, reference);
    EXPECT_NEAR(p_ours, p_reference, 1e-9 * p_reference) << "seed " << seed;
    EXPECT_LT((w - reference).norm(), 1e-5 * (1.0 + reference.norm())) << "seed " << seed;
    // The same zero pattern: the lasso optimum is unique on these problems.
    for (Eigen::Index j = 0; j < w.size(); ++j) EXPECT_EQ(w(j) == 0.0, reference(j) == 0.0) << j;
    EXPECT_GT(non_zeros(ours.state.weights), 0);
    EXPECT_LT(non_zeros(ours.state.weights), static_cast<int>(w.size()));  // C chosen to leave zeros
    // The solver's reported primal is the dense evaluation of its weights.
    EXPECT_NEAR(ours.result.history.back().primal, p_ours, 1e-11 * p_ours);
  }
}

// A zero-cost row is absent; without an intercept the last weight stays 0.
TEST(CdL1Cpu, ZeroWeightRowsAndNoIntercept) {
  RandomProblemOptions o;
  o.sample_weights = true;
  Dataset data = random_problem(o);
  std::vector<CsrChunk> chunks = data.chunks();
  for (std::size_t i = 0; i < chunks[0].weights.size(); i += 3) chunks[0].weights[i] = 0.0f;
  data = Dataset(std::move(chunks), data.n_features());
  SolverParameters p = tight(LossKind::Logistic, 0.5);
  p.intercept_scaling = 0.0;
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  EXPECT_EQ(ours.state.weights.back(), 0.0);
  expect_kkt(LossKind::Logistic, dense(data, p), as_vector(ours.state.weights), 1e-6);
}

// The loss term's gradient at w = 0 is C g0, so w = 0 is optimal exactly when
// C <= C0 = 1 / ||g0||_inf (KKT); past C0 the weights leave zero, more of them as
// C grows.
TEST(CdL1Cpu, LargerCGivesMoreNonZerosAndTinyCNone) {
  RandomProblemOptions o;
  o.features = 60;
  o.rows = 300;
  const Dataset data = random_problem(o);
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    SolverParameters p = tight(loss, 1.0);
    p.tol = 1e-6;
    const DenseProblem unit = dense(data, p);
    const double c0 = 1.0 / loss_gradient(loss, unit, Eigen::VectorXd::Zero(unit.x.cols())).lpNorm<Eigen::Infinity>();
    p.C = 0.99 * c0;
    const Fit none = fit(data, p);
    EXPECT_EQ(non_zeros(none.state.weights), 0) << loss_name(loss);
    EXPECT_TRUE(none.result.converged);
    int previous = 0;
    for (double factor : {1.05, 3.0, 30.0}) {
      p.C = factor * c0;
      const int count = non_zeros(fit(data, p).state.weights);
      EXPECT_GT(count, previous) << loss_name(loss) << " C " << p.C;
      previous = count;
    }
  }
}

TEST(CdL1Cpu, RecordedGapIsNonNegativeAndShrinks) {
  RandomProblemOptions o;
  const Dataset data = random_problem(o);
  RandomProblemOptions r;
  r.regression = true;
  const Dataset regression = random_problem(r);
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Squared}) {
    SolverParameters p = tight(loss, loss == LossKind::Squared ? 0.05 : 0.5);
    p.certify_every_epoch = true;  // every epoch's record checked, not the cadence's few
    const Fit ours = fit(loss == LossKind::Squared ? regression : data, p);
    ASSERT_TRUE(ours.result.converged) << loss_name(loss);
    const std::vector<EpochRecord>& history = ours.result.history;
    ASSERT_GE(history.size(), 3u);
    for (const EpochRecord& record : history) {
      EXPECT_GE(record.gap, -1e-12 * record.primal) << loss_name(loss) << " epoch " << record.epoch;
      EXPECT_NEAR(record.gap, record.primal - record.dual, 1e-12 * record.primal);
    }
    EXPECT_LT(history.back().gap, 1e-4 * history.front().gap) << loss_name(loss);
    EXPECT_LT(history.back().gap, 1e-7 * history.back().primal) << loss_name(loss);
    // The dual point is returned, one per row, and is feasible: ||X^T (theta c)||_inf <= 1.
    const DenseProblem problem = dense(loss == LossKind::Squared ? regression : data, p);
    ASSERT_EQ(ours.state.alpha.size(), static_cast<std::size_t>(problem.x.rows()));
    const Eigen::VectorXd theta = as_vector(ours.state.alpha);
    const Eigen::VectorXd coefficient = loss == LossKind::Squared ? Eigen::VectorXd::Ones(theta.size()) : problem.y;
    EXPECT_LE((problem.x.transpose() * theta.cwiseProduct(coefficient)).lpNorm<Eigen::Infinity>(), 1.0 + 1e-12);
  }
}

// The certificate reads every row twice, an epoch only the active columns: it is
// taken after the first epoch, the last, and once the epochs since the previous
// have read ten times its non-zeros (cd_l1_cpu.cpp), not after every epoch.
TEST(CdL1Cpu, CertifiesTheFirstAndLastEpochsAndOnACadenceBetween) {
  const Dataset data = random_problem({});
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    const SolverParameters p = tight(loss, 0.5);
    const Fit ours = fit(data, p);
    ASSERT_TRUE(ours.result.converged) << loss_name(loss);
    const std::vector<EpochRecord>& history = ours.result.history;
    ASSERT_GE(ours.result.epochs, 12) << loss_name(loss);
    ASSERT_GE(history.size(), 2u) << loss_name(loss);
    EXPECT_EQ(history.front().epoch, 1) << loss_name(loss);
    EXPECT_EQ(history.back().epoch, ours.result.epochs) << loss_name(loss);
    // Each epoch reads at most every non-zero once, so at most one certificate
    // in twenty epochs past the first.
    EXPECT_LE(history.size(), 2u + static_cast<std::size_t>(ours.result.epochs) / 20) << loss_name(loss);
    for (std::size_t k = 1; k < history.size(); ++k) EXPECT_GT(history[k].epoch, history[k - 1].epoch);
  }
  // A fit stopped by max_epochs is certified at its last epoch too.
  SolverParameters capped = tight(LossKind::Logistic, 0.5);
  capped.max_epochs = 9;
  const Fit stopped = fit(data, capped);
  ASSERT_FALSE(stopped.result.converged);
  ASSERT_FALSE(stopped.result.history.empty());
  EXPECT_EQ(stopped.result.history.back().epoch, 9);
  // Between every two epochs on_progress is called (Python's Ctrl-C check), with
  // the weights so far.
  SolverParameters watched = tight(LossKind::SquaredHinge, 0.5);
  std::vector<int> progress;
  watched.on_progress = [&](int epochs, const std::function<SolverState()>& snapshot) {
    progress.push_back(epochs);
    EXPECT_EQ(snapshot().weights.size(), static_cast<std::size_t>(data.n_features()) + 1);
  };
  const Fit seen = fit(data, watched);
  ASSERT_EQ(progress.size(), static_cast<std::size_t>(seen.result.epochs));
  for (std::size_t k = 0; k < progress.size(); ++k) EXPECT_EQ(progress[k], static_cast<int>(k) + 1);
  // certify_every_epoch (snap-train --history) records every epoch, on the same path.
  SolverParameters every = tight(LossKind::SquaredHinge, 0.5);
  every.certify_every_epoch = true;
  const Fit recorded = fit(data, every);
  ASSERT_EQ(recorded.result.history.size(), static_cast<std::size_t>(recorded.result.epochs));
  for (std::size_t k = 0; k < recorded.result.history.size(); ++k)
    EXPECT_EQ(recorded.result.history[k].epoch, static_cast<int>(k) + 1);
  EXPECT_EQ(recorded.state.weights, fit(data, tight(LossKind::SquaredHinge, 0.5)).state.weights);
}

TEST(CdL1Cpu, ReproducibleForASeed) {
  const Dataset data = random_problem({});
  SolverParameters p = tight(LossKind::Logistic, 0.5);
  p.tol = 1e-4;
  const Fit first = fit(data, p);
  const Fit second = fit(data, p);
  EXPECT_EQ(first.state.weights, second.state.weights);
  ASSERT_EQ(first.result.history.size(), second.result.history.size());
  for (std::size_t k = 0; k < first.result.history.size(); ++k)
    EXPECT_EQ(first.result.history[k].primal, second.result.history[k].primal);
  p.seed = 43;
  const Fit other = fit(data, p);
  EXPECT_NE(first.state.weights, other.state.weights);  // another order, another path
}

TEST(CdL1Cpu, RefusesWhatItDoesNotSolve) {
  SolverParameters p = tight(LossKind::Hinge);
  EXPECT_THROW(make_cd_l1_cpu_solver(p), InvalidArgument);
  EXPECT_THROW(make_solver(p, false, {}), InvalidArgument);
  p = tight(LossKind::Squared);
  p.epsilon = 0.1;
  EXPECT_THROW(make_cd_l1_cpu_solver(p), InvalidArgument);
  p = tight(LossKind::Logistic);
  EXPECT_THROW(make_solver(p, true, {}), Unsupported);
  EXPECT_THROW(make_sdca_cpu_solver(p), InvalidArgument);  // SDCA solves L2 only
  p.penalty = Penalty::L2;
  EXPECT_THROW(make_cd_l1_cpu_solver(p), InvalidArgument);

  const Dataset data = random_problem({});
  InMemorySource source(data);
  TwoRanks ranks;
  SolverState state;
  try {
    make_cd_l1_cpu_solver(tight(LossKind::Logistic))->fit(source, ranks, state);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("the L1 solver runs on one process"), std::string::npos);
  }
}

// LIBLINEAR's -s 6 / -s 5 with -e 1e-8 on heart_scale: both objectives, computed
// here from the two weight vectors, agree to 1e-6 relative.
bool have_liblinear() { return std::system("command -v liblinear-train >/dev/null 2>&1") == 0; }

void expect_liblinear_objective(LossKind loss, int solver_type, double C) {
  if (!have_liblinear()) {
    if (running_in_ci()) FAIL() << "liblinear-train missing";
    GTEST_SKIP() << "liblinear-train not installed";
  }
  SNAPML_REQUIRE_DATASET(heart, "heart_scale");
  const std::string model_path = scratch_dir() + "/l1_" + std::to_string(solver_type) + ".liblinear";
  const std::string command = "liblinear-train -s " + std::to_string(solver_type) + " -c " + std::to_string(C) +
                              " -B 1 -e 1e-8 -q " + heart + " " + model_path + " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const Model theirs = Model::load_liblinear(model_path);
  const Dataset data = datasets::read_svmlight(heart);

  TrainParameters t;
  t.loss = loss;
  t.penalty = Penalty::L1;
  t.C = C;
  t.tol = 1e-10;
  t.max_iter = 100000;
  t.threads = 1;
  const TrainResult ours = train(data, t);
  ASSERT_TRUE(ours.fits[0].converged);

  SolverParameters p = tight(loss, C);
  p.positive_label = ours.model.classes[1];
  const DenseProblem problem = dense(data, p);
  auto objective = [&](const Model& model) {
    Eigen::VectorXd w(model.n_features + 1);
    for (std::int32_t j = 0; j < model.n_features; ++j) w(j) = model.coef[static_cast<std::size_t>(j)];
    w(model.n_features) = model.intercept[0] / model.intercept_scaling;
    return l1_primal(loss, problem, w);
  };
  ASSERT_EQ(theirs.classes, ours.model.classes);
  const double p_ours = objective(ours.model);
  const double p_theirs = objective(theirs);
  std::printf("heart_scale -s %d -c %g: snapml %.12g  LIBLINEAR %.12g  relative %.3g\n", solver_type, C, p_ours,
              p_theirs, (p_ours - p_theirs) / p_theirs);
  EXPECT_NEAR(p_ours, p_theirs, 1e-6 * p_theirs);
  EXPECT_NEAR(ours.fits[0].history.back().primal, p_ours, 1e-10 * p_ours);
  expect_kkt(loss, problem, as_vector([&] {
               std::vector<double> w(ours.model.coef);
               w.push_back(ours.model.intercept[0]);
               return w;
             }()),
             1e-5);
}

TEST(CdL1Cpu, LogisticMatchesLibLinearS6OnHeartScale) { expect_liblinear_objective(LossKind::Logistic, 6, 1.0); }
TEST(CdL1Cpu, SquaredHingeMatchesLibLinearS5OnHeartScale) {
  expect_liblinear_objective(LossKind::SquaredHinge, 5, 1.0);
}

}  // namespace
