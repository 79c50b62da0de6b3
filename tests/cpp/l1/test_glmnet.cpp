// newGLMNET (snapml/src/l1/glmnet_cpu.cpp): the same optimum as plain coordinate
// descent, the elastic net against an independent accelerated proximal-gradient
// reference, its exact certificate, thread counts, and the refusals (the KKT
// conditions with weights and warm start: test_l1_solvers.cpp; the factory's
// choice: tests/cpp/train/test_train_equals_fit.cpp). Against
// LIBLINEAR -s 6 on a9a: test_cd_l1's heart_scale case trains through train()
// (now newGLMNET), and GlmnetA9a below.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../fixtures/fit_once.h"
#include "l1_references.h"
#include "../fixtures/random_problem.h"
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
#include "test_data.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

Fit fit(const Dataset& data, const SolverParameters& parameters, SolverState start = {}) {
  return fit_once(*make_glmnet_cpu_solver(parameters), data, std::move(start));
}

SolverParameters tight(LossKind loss, double C = 1.0, double l1_ratio = 1.0) {
  return tight_l1(loss, C, l1_ratio, kGlmnetIterations);
}

Dataset problem_for(LossKind loss, bool sample_weights = false) {
  RandomProblemOptions o;
  o.regression = loss == LossKind::Squared;
  o.sample_weights = sample_weights;
  return random_problem(o);
}

// Independent elastic-net reference: FISTA with adaptive restart (O'Donoghue &
// Candes 2015) on the dense problem, step 1/Lipschitz, the prox of a||.||_1
// soft-thresholding; strongly convex for a < 1, so it converges linearly. With
// `free_last` the last coordinate (a free intercept) has no penalty: a plain
// gradient step.
Eigen::VectorXd elastic_net_reference(LossKind loss, const DenseProblem& p, double l1_ratio, int iterations = 20000,
                                      bool free_last = false) {
  const double b = 1.0 - l1_ratio;
  const double curvature = loss == LossKind::Logistic ? 0.25 : 2.0;
  const Eigen::MatrixXd gram = p.x.transpose() * p.c.asDiagonal() * p.x;
  const double lipschitz = curvature * gram.selfadjointView<Eigen::Lower>().eigenvalues().maxCoeff() + b;
  const double step = 1.0 / lipschitz;
  Eigen::VectorXd w = Eigen::VectorXd::Zero(p.x.cols());
  Eigen::VectorXd z = w;
  double t = 1.0;
  const Eigen::Index free = free_last ? p.x.cols() - 1 : -1;
  for (int k = 0; k < iterations; ++k) {
    Eigen::VectorXd penalty_gradient = b * z;
    if (free >= 0) penalty_gradient(free) = 0.0;
    const Eigen::VectorXd u = z - step * (loss_gradient(loss, p, z) + penalty_gradient);
    Eigen::VectorXd next(u.size());
    for (Eigen::Index j = 0; j < u.size(); ++j)
      next(j) = j == free ? u(j) : std::copysign(std::max(0.0, std::fabs(u(j)) - step * l1_ratio), u(j));
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    if ((z - next).dot(next - w) > 0.0) {  // restart: momentum points uphill
      z = next;
      t = 1.0;
    } else {
      z = next + ((t - 1.0) / t_next) * (next - w);
      t = t_next;
    }
    w = next;
  }
  return w;
}

// The L1 optimum is unique on these problems: newGLMNET and plain coordinate
// descent reach the same objective, weights and zero pattern.
TEST(GlmnetCpu, SameOptimumAsCoordinateDescent) {
  for (LossKind loss : {LossKind::Logistic, LossKind::Squared}) {
    const Dataset data = problem_for(loss, true);
    SolverParameters p = tight(loss, loss == LossKind::Squared ? 0.05 : 0.5);
    const Fit ours = fit(data, p);
    p.max_epochs = kCoordinateDescentEpochs;
    const Fit cd = fit_once(*make_cd_l1_cpu_solver(p), data);
    ASSERT_TRUE(ours.result.converged && cd.result.converged) << loss_name(loss);
    const double ours_primal = ours.result.history.back().primal;
    EXPECT_NEAR(ours_primal, cd.result.history.back().primal, 1e-9 * ours_primal) << loss_name(loss);
    const Eigen::VectorXd a = as_vector(ours.state.weights);
    const Eigen::VectorXd b = as_vector(cd.state.weights);
    EXPECT_LT((a - b).norm(), 1e-5 * (1.0 + b.norm())) << loss_name(loss);
    for (Eigen::Index j = 0; j < a.size(); ++j) EXPECT_EQ(a(j) == 0.0, b(j) == 0.0) << loss_name(loss) << " " << j;
    // Newton's outer iterations: far fewer than coordinate descent's epochs.
    EXPECT_LT(ours.result.epochs, cd.result.epochs) << loss_name(loss);
  }
}

TEST(GlmnetCpu, ElasticNetMatchesProximalGradientReference) {
  for (LossKind loss : {LossKind::Logistic, LossKind::Squared}) {
    for (double l1_ratio : {0.0, 0.3, 0.8}) {
      const Dataset data = problem_for(loss, true);
      const SolverParameters p = tight(loss, loss == LossKind::Squared ? 0.05 : 0.5, l1_ratio);
      const Fit ours = fit(data, p);
      ASSERT_TRUE(ours.result.converged) << loss_name(loss) << " " << l1_ratio;
      const DenseProblem problem = dense(data, p);
      const Eigen::VectorXd w = as_vector(ours.state.weights);
      const Eigen::VectorXd reference = elastic_net_reference(loss, problem, l1_ratio);
      const double p_ours = l1_primal(loss, problem, w, l1_ratio);
      const double p_reference = l1_primal(loss, problem, reference, l1_ratio);
      EXPECT_NEAR(p_ours, p_reference, 1e-10 * p_reference) << loss_name(loss) << " " << l1_ratio;
      EXPECT_LT((w - reference).norm(), 1e-6 * (1.0 + reference.norm())) << loss_name(loss) << " " << l1_ratio;
      expect_kkt(loss, problem, w, 1e-6, l1_ratio);
      if (l1_ratio > 0.0) {
        for (Eigen::Index j = 0; j < w.size(); ++j) EXPECT_EQ(w(j) == 0.0, reference(j) == 0.0) << j;
      }
      // The elastic net's certificate needs no scaling: at the optimum the gap closes.
      const EpochRecord& last = ours.result.history.back();
      EXPECT_NEAR(last.primal, p_ours, 1e-10 * p_ours);
      EXPECT_GE(last.gap, -1e-12 * last.primal);
      EXPECT_LT(last.gap, 1e-8 * last.primal) << loss_name(loss) << " " << l1_ratio;
    }
  }
}

TEST(GlmnetCpu, L1CertificateClosesAndDualPointIsFeasible) {
  for (LossKind loss : {LossKind::Logistic, LossKind::Squared}) {
    const Dataset data = problem_for(loss);
    const SolverParameters p = tight(loss, loss == LossKind::Squared ? 0.05 : 0.5);
    const Fit ours = fit(data, p);
    ASSERT_TRUE(ours.result.converged);
    for (const EpochRecord& record : ours.result.history)
      EXPECT_GE(record.gap, -1e-12 * record.primal) << loss_name(loss) << " " << record.epoch;
    EXPECT_LT(ours.result.history.back().gap, 1e-7 * ours.result.history.back().primal) << loss_name(loss);
    const DenseProblem problem = dense(data, p);
    const Eigen::VectorXd theta = as_vector(ours.state.alpha);
    ASSERT_EQ(theta.size(), problem.x.rows());
    const Eigen::VectorXd coefficient = loss == LossKind::Squared ? Eigen::VectorXd::Ones(theta.size()) : problem.y;
    EXPECT_LE((problem.x.transpose() * theta.cwiseProduct(coefficient)).lpNorm<Eigen::Infinity>(), 1.0 + 1e-12);
  }
}

// A free (unpenalised) intercept, scikit-learn's saga problem: the same optimum
// as the independent FISTA reference with an unpenalised last coordinate, the
// KKT conditions with the intercept's gradient at 0, and a certificate that
// stays a lower bound (gap >= 0 every iteration) and closes, its dual point on
// the constraint sum_i theta_i c(y_i) = 0.
TEST(GlmnetCpu, FreeInterceptMatchesReferenceAndCertifies) {
  for (LossKind loss : {LossKind::Logistic, LossKind::Squared}) {
    for (double l1_ratio : {1.0, 0.5}) {
      const std::string name = std::string(loss_name(loss)) + " l1_ratio " + std::to_string(l1_ratio);
      const Dataset data = problem_for(loss, true);
      SolverParameters p = tight(loss, loss == LossKind::Squared ? 0.05 : 0.5, l1_ratio);
      p.penalise_intercept = false;
      const Fit ours = fit(data, p);
      ASSERT_TRUE(ours.result.converged) << name;
      const DenseProblem problem = dense(data, p);
      const Eigen::VectorXd w = as_vector(ours.state.weights);
      const Eigen::VectorXd reference = elastic_net_reference(loss, problem, l1_ratio, 100000, true);
      const double p_ours = l1_primal(loss, problem, w, l1_ratio, true);
      const double p_reference = l1_primal(loss, problem, reference, l1_ratio, true);
      EXPECT_LE(p_ours, p_reference + 1e-8 * p_reference) << name;
      EXPECT_NEAR(p_ours, p_reference, 1e-8 * p_reference) << name;
      expect_kkt(loss, problem, w, 1e-6, l1_ratio, true);
      const EpochRecord& last = ours.result.history.back();
      EXPECT_NEAR(last.primal, p_ours, 1e-10 * p_ours) << name;
      for (const EpochRecord& record : ours.result.history)
        EXPECT_GE(record.gap, -1e-12 * record.primal) << name << " " << record.epoch;
      EXPECT_LT(last.gap, 1e-8 * last.primal) << name;
      // The dual point: on the free intercept's constraint, and (pure L1) in the
      // features' unit box.
      const Eigen::VectorXd theta = as_vector(ours.state.alpha);
      const Eigen::VectorXd coefficient =
          loss == LossKind::Squared ? Eigen::VectorXd::Ones(theta.size()) : problem.y;
      const Eigen::VectorXd signed_theta = theta.cwiseProduct(coefficient);
      EXPECT_NEAR(signed_theta.sum(), 0.0, 1e-12 * (1.0 + theta.lpNorm<1>())) << name;
      if (l1_ratio == 1.0) {
        const Eigen::Index features = problem.x.cols() - 1;
        EXPECT_LE((problem.x.leftCols(features).transpose() * signed_theta).lpNorm<Eigen::Infinity>(), 1.0 + 1e-12)
            << name;
      }
    }
  }
}

// The intercept is unpenalised: where C is small enough that every feature's
// weight is 0, the free intercept is the class balance's log-odds (the targets'
// weighted mean for the squared loss) exactly, however far the balance is moved,
// while a penalised one is pulled towards 0.
TEST(GlmnetCpu, FreeInterceptFollowsTheBalance) {
  for (double threshold : {0.0, 1.0, 2.5}) {
    RandomProblemOptions o;
    o.regression = true;
    o.sample_weights = true;
    const Dataset targets = random_problem(o);
    std::vector<CsrChunk> chunks;
    double positive = 0.0, negative = 0.0, weighted_sum = 0.0;
    for (std::size_t c = 0; c < targets.n_chunks(); ++c) {
      CsrChunk chunk = targets.chunk(c);
      for (std::size_t i = 0; i < chunk.labels.size(); ++i) {
        const double weight = chunk.weights[i];
        weighted_sum += weight * (chunk.labels[i] + threshold);
        chunk.labels[i] = chunk.labels[i] > threshold ? 1.0 : -1.0;
        (chunk.labels[i] > 0.0 ? positive : negative) += weight;
      }
      chunks.push_back(std::move(chunk));
    }
    const Dataset data(std::move(chunks), targets.n_features());
    for (double l1_ratio : {1.0, 0.5}) {
      SolverParameters p = tight(LossKind::Logistic, 1e-4, l1_ratio);
      p.penalise_intercept = false;
      const Fit free_fit = fit(data, p);
      ASSERT_TRUE(free_fit.result.converged);
      for (std::int32_t j = 0; j < data.n_features(); ++j) EXPECT_EQ(free_fit.state.weights[j], 0.0) << j;
      const double intercept = free_fit.state.weights.back();
      EXPECT_NEAR(intercept, std::log(positive / negative), 1e-8) << threshold << " " << l1_ratio;
      EXPECT_LT(free_fit.result.history.back().gap, 1e-10 * free_fit.result.history.back().primal);
      p.penalise_intercept = true;
      const Fit penalised = fit(data, p);
      EXPECT_LT(std::fabs(penalised.state.weights.back()), 0.01 * std::fabs(intercept) + 1e-12) << threshold;
    }
    // The squared loss: the targets shifted by `threshold` move the intercept by
    // as much (the weighted mean).
    std::vector<CsrChunk> shifted;
    for (std::size_t c = 0; c < targets.n_chunks(); ++c) {
      CsrChunk chunk = targets.chunk(c);
      for (double& label : chunk.labels) label += threshold;
      shifted.push_back(std::move(chunk));
    }
    SolverParameters p = tight(LossKind::Squared, 1e-5);
    p.penalise_intercept = false;
    const Fit lasso = fit(Dataset(std::move(shifted), targets.n_features()), p);
    ASSERT_TRUE(lasso.result.converged);
    double total = 0.0;
    for (std::size_t c = 0; c < targets.n_chunks(); ++c)
      for (float weight : targets.chunk(c).weights) total += weight;
    EXPECT_NEAR(lasso.state.weights.back(), weighted_sum / total, 1e-9 * (1.0 + threshold)) << threshold;
  }
}

TEST(GlmnetCpu, ReproducibleAndThreadCountOnlyRounds) {
  const Dataset data = problem_for(LossKind::Logistic);
  SolverParameters p = tight(LossKind::Logistic, 0.5);
  p.tol = 1e-6;
  const Fit first = fit(data, p);
  const Fit second = fit(data, p);
  EXPECT_EQ(first.state.weights, second.state.weights);
  p.threads = 3;
  const Fit threaded = fit(data, p);
  EXPECT_NEAR(threaded.result.history.back().primal, first.result.history.back().primal,
              1e-9 * first.result.history.back().primal);
}

// Below C0 = 1 / ||grad L(0)/C||_inf, w = 0 is optimal: no Newton step, one certificate.
TEST(GlmnetCpu, TinyCStaysAtZero) {
  const Dataset data = problem_for(LossKind::Logistic);
  SolverParameters p = tight(LossKind::Logistic, 1.0);
  const DenseProblem unit = dense(data, p);
  const double c0 =
      1.0 / loss_gradient(LossKind::Logistic, unit, Eigen::VectorXd::Zero(unit.x.cols())).lpNorm<Eigen::Infinity>();
  p.C = 0.99 * c0;
  const Fit ours = fit(data, p);
  EXPECT_TRUE(ours.result.converged);
  EXPECT_EQ(non_zeros(ours.state.weights), 0);
  ASSERT_EQ(ours.result.history.size(), 1u);
  EXPECT_NEAR(ours.result.history[0].gap, 0.0, 1e-12 * ours.result.history[0].primal);
}

TEST(GlmnetCpu, RefusesWhatItDoesNotSolve) {
  EXPECT_THROW(make_glmnet_cpu_solver(tight(LossKind::SquaredHinge)), InvalidArgument);
  EXPECT_THROW(make_solver(tight(LossKind::SquaredHinge, 1.0, 0.5), false, {}), InvalidArgument);
  EXPECT_THROW(make_solver(tight(LossKind::Logistic, 1.0, 1.5), false, {}), InvalidArgument);
  SolverParameters p = tight(LossKind::Logistic, 1.0, 0.5);
  p.solver = SolverChoice::CoordinateDescent;
  EXPECT_THROW(make_solver(p, false, {}), InvalidArgument);
  // A free intercept with penalty l1: newGLMNET's only, never plain coordinate
  // descent or the squared hinge.
  p = tight(LossKind::Logistic);
  p.penalise_intercept = false;
  EXPECT_NO_THROW(make_solver(p, false, {}));
  EXPECT_THROW(make_cd_l1_cpu_solver(p), InvalidArgument);
  p.solver = SolverChoice::CoordinateDescent;
  EXPECT_THROW(make_solver(p, false, {}), InvalidArgument);
  p = tight(LossKind::SquaredHinge);
  p.penalise_intercept = false;
  EXPECT_THROW(make_solver(p, false, {}), InvalidArgument);
  p = tight(LossKind::Logistic, 1.0, 0.5);
  p.penalty = Penalty::L2;
  EXPECT_THROW(make_solver(p, false, {}), InvalidArgument);  // l1_ratio belongs to penalty l1
  p.l1_ratio = 1.0;
  p.solver = SolverChoice::CoordinateDescent;
  EXPECT_THROW(make_solver(p, false, {}), InvalidArgument);  // cd is L1 only
  EXPECT_THROW(make_solver(tight(LossKind::Logistic), true, {}), Unsupported);

  const Dataset data = problem_for(LossKind::Logistic);
  InMemorySource source(data);
  TwoRanks ranks;
  SolverState state;
  try {
    make_glmnet_cpu_solver(tight(LossKind::Logistic))->fit(source, ranks, state);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("runs on one process"), std::string::npos) << e.what();
  }
}

// a9a at C = 1 against LIBLINEAR -s 6, both at -e 1e-4 (LIBLINEAR's lands within
// 5e-5 of its -e 1e-6 objective): objectives within 1e-4 relative, and the
// number of non-zeros within one of LIBLINEAR's. Not equal: a9a's one-hot groups
// each sum to the intercept's column, so near the optimum the objective is flat
// to 1e-7 relative along trading the intercept against a group, and the support
// there is not unique (at -e 1e-6 LIBLINEAR has 97 non-zeros, the intercept
// among them; newGLMNET at tol 1e-5 has 96 with the intercept 0, 6e-8 apart).
TEST(GlmnetA9a, MatchesLibLinearS6SparsityAndObjective) {
  if (std::system("command -v liblinear-train >/dev/null 2>&1") != 0) {
    if (running_in_ci()) FAIL() << "liblinear-train missing";
    GTEST_SKIP() << "liblinear-train not installed";
  }
  SNAPML_REQUIRE_DATASET(a9a, "a9a");
  const std::string model_path = scratch_dir() + "/glmnet_a9a.liblinear";
  const std::string command = "liblinear-train -s 6 -c 1 -B 1 -e 1e-4 -q " + a9a + " " + model_path + " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const Model theirs = Model::load_liblinear(model_path);
  const Dataset data = datasets::read_svmlight(a9a);

  TrainParameters t;
  t.penalty = Penalty::L1;
  t.C = 1.0;
  t.tol = 1e-4;
  t.threads = 2;
  const TrainResult ours = train(data, t);
  ASSERT_TRUE(ours.fits[0].converged);
  ASSERT_EQ(theirs.classes, ours.model.classes);

  SolverParameters p = tight(LossKind::Logistic, 1.0);
  p.positive_label = ours.model.classes[1];
  InMemorySource source(data);
  auto objective_and_nnz = [&](const Model& model, int& nnz) {
    std::vector<double> w(model.coef.begin(), model.coef.end());
    w.resize(static_cast<std::size_t>(data.n_features()), 0.0);
    w.push_back(model.intercept[0] / model.intercept_scaling);
    nnz = non_zeros(w);
    return l1_objectives(source, p, w.data(), data.n_features(), nullptr, 1).primal;
  };
  int nnz_ours = 0, nnz_theirs = 0;
  const double p_ours = objective_and_nnz(ours.model, nnz_ours);
  const double p_theirs = objective_and_nnz(theirs, nnz_theirs);
  std::printf("a9a -s 6 -c 1: snapml %.10g (%d non-zeros)  LIBLINEAR %.10g (%d)  relative %.3g\n", p_ours, nnz_ours,
              p_theirs, nnz_theirs, (p_ours - p_theirs) / p_theirs);
  EXPECT_LE(std::abs(nnz_ours - nnz_theirs), 1);
  EXPECT_NEAR(p_ours, p_theirs, 1e-4 * p_theirs);
}

// newGLMNET on a9a through train() (penalty l1), the problem's fit.
FitResult fit_a9a(const std::string& a9a, const TrainParameters& t) {
  TrainParameters p = t;
  p.penalty = Penalty::L1;
  return train(datasets::read_svmlight(a9a), p).fits.at(0);
}

// The elastic net at the default tol (1e-3) is certified by its gap, as the L2
// fits are: the sub-gradient rule alone stopped a9a's fit (l1_ratio 0.5) at a
// relative gap of 0.0028, its weights 41 % from the optimum's (issue 36).
TEST(GlmnetA9a, TheElasticNetAtTheDefaultTolMeetsItsGap) {
  SNAPML_REQUIRE_DATASET(a9a, "a9a");
  TrainParameters t;
  t.l1_ratio = 0.5;
  t.fit_intercept = true;
  t.threads = 2;
  const FitResult fit = fit_a9a(a9a, t);
  ASSERT_TRUE(fit.converged);
  EXPECT_LE(fit.history.back().gap, t.tol * fit.history.back().primal)
      << "relative gap " << fit.history.back().gap / fit.history.back().primal;
}

// Found by the random option test (tests/cli/test_property.py): with this seed a
// weight of -5e-19 was never set to 0 (the step was below the smallest one
// taken), its violation of 0.44 kept the stopping rule unmet, and the fit ran all
// 1000 iterations (300 s) at a relative gap of 0.22.
TEST(GlmnetA9a, ATinyWeightIsSetToZeroAndTheFitConverges) {
  SNAPML_REQUIRE_DATASET(a9a, "a9a");
  TrainParameters t;
  t.C = 0.018958650788466695;
  t.tol = 1e-4;
  t.threads = 1;
  t.seed = 3679774297u;
  t.max_iter = 100;
  const FitResult fit = fit_a9a(a9a, t);
  EXPECT_TRUE(fit.converged) << fit.epochs << " epochs";
  EXPECT_LT(fit.history.back().gap, 0.01 * fit.history.back().primal);
}

}  // namespace
