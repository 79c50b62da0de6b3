// The primal Newton solver, stepping by the trust region or by Cholesky: optimum
// against dense references and the normal equations, the duality-gap
// certificate, a free intercept and no penalty, sample weights, K ranks against
// one process, the dual solver's optimum on a9a, C = 1e6, the solver selection
// (primal, auto) and the method auto picks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "../fixtures/references.h"
#include "snapml/chunk_source.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"
#include "test_data.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

Fit fit(const Dataset& data, const SolverParameters& parameters, SolverState start = {}) {
  return fit_once(*make_tron_cpu_solver(parameters), data, std::move(start));
}

SolverParameters tight(LossKind loss, PrimalMethod method = PrimalMethod::TrustRegion) {
  SolverParameters p;
  p.loss = loss;
  p.solver = SolverChoice::Primal;
  p.primal_method = method;
  p.C = 1.5;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = 1000;
  p.threads = 2;
  return p;
}

// d/dm of C loss(y, m), written independently of the library's loss structs.
double loss_derivative(LossKind loss, double y, double m) {
  switch (loss) {
    case LossKind::Logistic: return -y / (1.0 + std::exp(y * m));
    case LossKind::SquaredHinge: return 1.0 - y * m > 0.0 ? -2.0 * y * (1.0 - y * m) : 0.0;
    default: return 2.0 * (m - y);
  }
}

// The gradient of sum_i c_i loss(y_i, x_i.w) + 0.5 sum_j r_j w_j^2 in dense form,
// with r_j = 0 for the intercept when it is free and everywhere without penalty.
Eigen::VectorXd dense_gradient(const DenseProblem& p, LossKind loss, const Eigen::VectorXd& w, bool penalised,
                               bool intercept_penalised) {
  const Eigen::VectorXd m = p.x * w;
  Eigen::VectorXd d(m.size());
  for (Eigen::Index i = 0; i < m.size(); ++i) d(i) = p.c(i) * loss_derivative(loss, p.y(i), m(i));
  Eigen::VectorXd r = Eigen::VectorXd::Constant(w.size(), penalised ? 1.0 : 0.0);
  if (!intercept_penalised) r(w.size() - 1) = 0.0;
  return r.cwiseProduct(w) + p.x.transpose() * d;
}

// Converged with a certificate: the last gap is within tol and non-negative up to
// rounding, and the reported primal is the reference's evaluation of w.
void expect_certified(const Fit& ours, double tol) {
  ASSERT_TRUE(ours.result.converged);
  ASSERT_FALSE(ours.result.history.empty());
  for (const EpochRecord& record : ours.result.history) EXPECT_GE(record.gap, -1e-9 * record.primal);
  const EpochRecord& last = ours.result.history.back();
  EXPECT_LE(last.gap, tol * last.primal);
  EXPECT_EQ(last.epoch, ours.result.epochs);
}

// The Newton iterations by conjugate gradients in a trust region, and by the
// Cholesky factorisation of the whole Hessian with a line search: each TronMethod
// test runs both; the penalised problems (TronPenalisedMethod) also Newton-CG
// along a line (PrimalMethod::LineSearch, which needs the penalty).
class TronMethod : public ::testing::TestWithParam<PrimalMethod> {};
class TronPenalisedMethod : public ::testing::TestWithParam<PrimalMethod> {};

TEST_P(TronPenalisedMethod, LogisticMatchesNewtonReference) {
  RandomProblemOptions o;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  const SolverParameters p = tight(LossKind::Logistic, GetParam());
  const DenseProblem problem = dense(data, p);
  const Eigen::VectorXd reference = logistic_reference(problem);
  const Fit ours = fit(data, p);
  expect_certified(ours, p.tol);
  // P is 1-strongly convex (every weight penalised): ||w - w*||^2 <= 2 (P - P*) <= 2 gap.
  // The trust region and Cholesky overshoot the tolerance by their last step's
  // quadratic convergence; the line search may stop nearer it.
  EXPECT_LT((as_vector(ours.state.weights) - reference).norm(),
            std::sqrt(2.0 * std::max(ours.result.history.back().gap, 0.0)) + 1e-9 * (1.0 + reference.norm()));
  EXPECT_NEAR(ours.result.history.back().primal, logistic_primal(problem, as_vector(ours.state.weights)),
              1e-11 * ours.result.history.back().primal);
}

TEST_P(TronPenalisedMethod, SquaredHingeMatchesNewtonReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::SquaredHinge, GetParam());
  const DenseProblem problem = dense(data, p);
  const Eigen::VectorXd reference = squared_hinge_reference(problem);
  const Fit ours = fit(data, p);
  expect_certified(ours, p.tol);
  EXPECT_LT((as_vector(ours.state.weights) - reference).norm(), 1e-6 * (1.0 + reference.norm()));
}

TEST_P(TronPenalisedMethod, RidgeWithSampleWeightsMatchesClosedForm) {
  RandomProblemOptions o;
  o.regression = true;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Squared, GetParam());
  p.C = 0.3;
  const Eigen::VectorXd reference = ridge_reference(dense(data, p));
  const Fit ours = fit(data, p);
  expect_certified(ours, p.tol);
  EXPECT_LT((as_vector(ours.state.weights) - reference).norm(), 1e-6 * (1.0 + reference.norm()));
}

// L2-loss SVR (epsilon > 0, LIBLINEAR -s 11): the dual solver reaches the same optimum.
TEST_P(TronPenalisedMethod, InsensitiveSquaredLossMatchesTheDualSolver) {
  RandomProblemOptions o;
  o.regression = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Squared, GetParam());
  p.epsilon = 0.5;
  const Fit ours = fit(data, p);
  expect_certified(ours, p.tol);
  SolverParameters dual = p;
  dual.solver = SolverChoice::Dual;
  dual.max_epochs = 100000;
  const Fit theirs = fit_once(*make_sdca_cpu_solver(dual), data);
  ASSERT_TRUE(theirs.result.converged);
  EXPECT_LT((as_vector(ours.state.weights) - as_vector(theirs.state.weights)).norm(),
            1e-4 * (1.0 + as_vector(theirs.state.weights).norm()));
}

// Past kParallelEntries weights CG's sweeps over them, the records' sums and the
// penalty's part of H v run on the threads in ordered blocks (vector_sums,
// interleaved_sums.h): the fit on three threads is certified and is the
// one-thread fit up to the products' rounding, by the trust region and along a
// line; and the gradient, summed here densely, is as small as the gap says
// (0.5 ||g||^2 = gap <= 1e-10 P, P about 150).
TEST(Tron, AWideProblemSweepsItsWeightsOnTheThreads) {
  RandomProblemOptions o;
  o.rows = 200;
  o.features = 70000;  // past kParallelEntries = 65,536
  o.density = 40.0 / o.features;
  const Dataset data = random_problem(o);
  for (const PrimalMethod method : {PrimalMethod::TrustRegion, PrimalMethod::LineSearch}) {
    SCOPED_TRACE(static_cast<int>(method));
    SolverParameters p = tight(LossKind::Logistic, method);
    p.threads = 1;
    const Fit one = fit(data, p);
    p.threads = 3;
    const Fit three = fit(data, p);
    expect_certified(one, p.tol);
    expect_certified(three, p.tol);
    EXPECT_EQ(one.result.epochs, three.result.epochs);
    EXPECT_LT((as_vector(one.state.weights) - as_vector(three.state.weights)).norm(), 1e-8);
    const Eigen::VectorXd g =
        dense_gradient(dense(data, p), LossKind::Logistic, as_vector(three.state.weights), true, true);
    EXPECT_LT(g.norm(), 1e-3);
  }
}

// A free intercept is certified by the repaired dual point (its bound on the true
// suboptimality: test_tron_free_intercept.cpp): the fit stops on the gap, and the
// dense gradient at its w is as small as the gap allows, ||g||^2 <= 2 L (P - P*)
// <= 2 L gap for the gradient's Lipschitz constant L = lambda_max(diag(r) + X^T
// diag(c_i max loss'') X).
class TronGradientRule : public ::testing::TestWithParam<std::tuple<LossKind, PrimalMethod>> {};

TEST_P(TronGradientRule, FreeInterceptReachesAZeroGradient) {
  const LossKind loss = std::get<0>(GetParam());
  RandomProblemOptions o;
  o.regression = loss == LossKind::Squared;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(loss, std::get<1>(GetParam()));
  p.penalise_intercept = false;
  p.intercept_scaling = 3.0;  // any value: the intercept is free
  p.tol = 1e-9;               // relative gradient: 1e-10 is below what rounding allows
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  const EpochRecord& last = ours.result.history.back();
  EXPECT_LE(last.gap, p.tol * last.primal);
  const DenseProblem problem = dense(data, p);
  const Eigen::VectorXd g0 =
      dense_gradient(problem, loss, Eigen::VectorXd::Zero(data.n_features() + 1), true, false);
  const Eigen::VectorXd g = dense_gradient(problem, loss, as_vector(ours.state.weights), true, false);
  const double most_curvature = loss == LossKind::Logistic ? 0.25 : 2.0;
  Eigen::MatrixXd hessian_bound = problem.x.transpose() * (most_curvature * problem.c).asDiagonal() * problem.x;
  hessian_bound.diagonal().head(hessian_bound.rows() - 1).array() += 1.0;
  const double lipschitz = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(hessian_bound).eigenvalues().maxCoeff();
  // The recorded gap P - D carries the rounding of its two sums of n terms: n eps P.
  const double rounding = static_cast<double>(data.n_rows()) * 2.3e-16 * last.primal;
  EXPECT_LE(g.norm(), std::sqrt(2.0 * lipschitz * (std::max(last.gap, 0.0) + rounding)) + 1e-9 * g0.norm());
  EXPECT_NEAR(last.gradient_norm, g.norm(), 1e-6 * g0.norm());
  // Penalised, the intercept comes out smaller than free.
  p.penalise_intercept = true;
  const Fit penalised = fit(data, p);
  EXPECT_GT(std::fabs(ours.state.weights.back() - penalised.state.weights.back()), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(PrimalLosses, TronGradientRule,
                         ::testing::Combine(::testing::Values(LossKind::Logistic, LossKind::SquaredHinge,
                                                              LossKind::Squared),
                                            ::testing::Values(PrimalMethod::TrustRegion, PrimalMethod::Cholesky)));

TEST_P(TronMethod, NoPenaltySquaredLossIsOrdinaryLeastSquares) {
  RandomProblemOptions o;
  o.regression = true;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Squared, GetParam());
  p.penalty = Penalty::None;
  const DenseProblem problem = dense(data, p);
  // Weighted least squares: (X^T C X) w = X^T C y.
  const Eigen::MatrixXd normal = problem.x.transpose() * problem.c.asDiagonal() * problem.x;
  const Eigen::VectorXd ols =
      normal.ldlt().solve(problem.x.transpose() * (problem.c.array() * problem.y.array()).matrix());
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  EXPECT_LT((as_vector(ours.state.weights) - ols).norm(), 1e-7 * (1.0 + ols.norm()));
}

TEST_P(TronMethod, NoPenaltyLogisticReachesAZeroGradient) {
  const Dataset data = random_problem({});  // noisy labels: not separable
  SolverParameters p = tight(LossKind::Logistic, GetParam());
  p.penalty = Penalty::None;
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  const DenseProblem problem = dense(data, p);
  const Eigen::VectorXd g = dense_gradient(problem, LossKind::Logistic, as_vector(ours.state.weights), false, false);
  EXPECT_LE(g.norm(), 1e-8 * problem.x.transpose().cwiseAbs().rowwise().sum().norm());
}

// Separable data without a penalty: no minimum; the fit stops on max_iter unconverged.
TEST(Tron, NoPenaltyOnSeparableDataStopsOnMaxIter) {
  std::vector<CsrChunk> chunks(1);
  const std::int32_t index = 0;
  for (int row = 0; row < 20; ++row) {
    const float value = row < 10 ? 1.0f + 0.1f * static_cast<float>(row) : -1.0f - 0.1f * static_cast<float>(row);
    chunks[0].add_row(row < 10 ? 1.0 : -1.0, &index, &value, 1);
  }
  const Dataset data(std::move(chunks), 1);
  SolverParameters p = tight(LossKind::Logistic);
  p.penalty = Penalty::None;
  p.tol = 1e-300;  // the gradient decays like exp(-margin): keep going
  p.max_epochs = 30;
  const Fit ours = fit(data, p);
  EXPECT_FALSE(ours.result.converged);
  EXPECT_GT(ours.state.weights[0], 5.0);  // growing without bound
}

TEST(Tron, WarmStartAtTheOptimumIsAlreadyConverged) {
  const Dataset data = random_problem({});
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-8;
  const Fit first = fit(data, p);
  ASSERT_TRUE(first.result.converged);
  SolverState weights_only;
  weights_only.weights = first.state.weights;
  const Fit again = fit(data, p, weights_only);
  EXPECT_TRUE(again.result.converged);
  EXPECT_EQ(again.result.epochs, 0);
  const Fit from_alpha = fit(data, p, first.state);  // alpha: w(alpha) = w at the optimum
  EXPECT_LE(from_alpha.result.epochs, 1);
}

TEST_P(TronMethod, ThreadCountChangesRoundingOnly) {
  const Dataset data = random_problem({});
  SolverParameters p = tight(LossKind::Logistic, GetParam());
  p.threads = 1;
  const Fit one = fit(data, p);
  p.threads = 3;
  const Fit three = fit(data, p);
  EXPECT_EQ(one.result.epochs, three.result.epochs);
  EXPECT_LT((as_vector(one.state.weights) - as_vector(three.state.weights)).norm(), 1e-10);
}

// K ranks, each holding its rows: every gradient and Hessian product is summed
// over the ranks, so the iterates are the single process's.
TEST_P(TronMethod, TwoRanksTakeTheSingleProcessIterates) {
  RandomProblemOptions o;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  std::vector<CsrChunk> first, second;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) (c % 2 == 0 ? first : second).push_back(data.chunk(c));
  const Dataset parts[2] = {Dataset(std::move(first), data.n_features()), Dataset(std::move(second), data.n_features())};
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    SolverParameters p = tight(loss, GetParam());
    const Fit single = fit(data, p);
    std::vector<FitResult> results(2);
    std::vector<SolverState> states(2);
    run_ranks(2, [&](Communicator& communicator) {
      InMemorySource source(parts[communicator.rank()]);
      results[static_cast<std::size_t>(communicator.rank())] =
          make_tron_cpu_solver(p)->fit(source, communicator, states[static_cast<std::size_t>(communicator.rank())]);
    });
    for (int rank = 0; rank < 2; ++rank) {
      const FitResult& result = results[static_cast<std::size_t>(rank)];
      ASSERT_EQ(result.history.size(), single.result.history.size());
      for (std::size_t k = 0; k < result.history.size(); ++k) {
        EXPECT_NEAR(result.history[k].primal, single.result.history[k].primal, 1e-10 * single.result.history[k].primal);
        EXPECT_NEAR(result.history[k].gap, single.result.history[k].gap, 1e-10 * single.result.history[k].primal);
      }
      EXPECT_LT((as_vector(states[static_cast<std::size_t>(rank)].weights) - as_vector(single.state.weights)).norm(),
                1e-10 * (1.0 + as_vector(single.state.weights).norm()));
    }
  }
}

TEST(Tron, RefusesTheHingeLoss) {
  SolverParameters p = tight(LossKind::Hinge);
  EXPECT_THROW(make_tron_cpu_solver(p), InvalidArgument);
  p.solver = SolverChoice::Dual;
  p.penalty = Penalty::None;
  EXPECT_THROW(validate(p), InvalidArgument);
  p.loss = LossKind::Logistic;
  EXPECT_THROW(validate(p), InvalidArgument);  // penalty none has no dual solver
  p.solver = SolverChoice::Auto;
  EXPECT_NO_THROW(validate(p));
}

TEST(Tron, AutoPicksByTheProblem) {
  SolverParameters p = tight(LossKind::Logistic);
  p.solver = SolverChoice::Auto;
  AutoSurvey survey;  // a wide problem: no Cholesky step
  survey.hessian_pairs = 1e12;
  survey.entries = 1e6;
  survey.width = 100000;
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::DualThenDecide);
  p.C = 1e6;  // whatever C: SDCA first, the hand-over decides
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::DualThenDecide);
  p.penalise_intercept = false;  // a free intercept: the dual takes it in memory on one process
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::DualThenDecide);
  survey.resident = false;
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::Primal);
  survey.resident = true;
  survey.ranks = 2;
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::Primal);
  survey.ranks = 1;
  survey.width = 124;  // a9a: the Hessian formed in one pass
  survey.hessian_pairs = 3.6e6;
  survey.entries = 4.8e5;
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::Primal);
  p = tight(LossKind::Hinge);
  EXPECT_EQ(auto_choice(p, survey), AutoChoice::Dual);
  // The hand-over: a gap falling 10 % an epoch from 1e-2 of P needs ~48 more epochs
  // to 1e-4: Newton; falling tenfold an epoch, the dual goes on.
  std::vector<EpochRecord> slow(2), fast(2);
  slow[0] = {7, 0.0, 100.0, 98.9, 1.1};
  slow[1] = {8, 0.0, 100.0, 99.0, 1.0};
  EXPECT_TRUE(auto_switches_to_primal(slow, 1e-4));
  fast[0] = {7, 0.0, 100.0, 90.0, 10.0};
  fast[1] = {8, 0.0, 100.0, 99.0, 1.0};
  EXPECT_FALSE(auto_switches_to_primal(fast, 1e-4));
  EXPECT_FALSE(auto_switches_to_primal({fast[1]}, 1e-4));
  // One rise says nothing; no new best for kAutoProbeEpochs epochs is a stall. The
  // rate is measured from the best gap, not the last one (a rise then a fall).
  std::vector<EpochRecord> rising = fast;
  rising.push_back({9, 0.0, 100.0, 97.0, 3.0});
  EXPECT_FALSE(auto_switches_to_primal(rising, 1e-4));
  rising.push_back({8 + kAutoProbeEpochs, 0.0, 100.0, 98.0, 2.0});
  EXPECT_TRUE(auto_switches_to_primal(rising, 1e-4));
  rising.back() = {10, 0.0, 100.0, 99.9, 0.1};  // tenfold since the best, two epochs
  EXPECT_FALSE(auto_switches_to_primal(rising, 1e-4));
  // Through the session: small C on a wide problem (no Cholesky step): SDCA,
  // converged in the probe (its history has no gradient norms).
  RandomProblemOptions wide;
  wide.features = 2000;
  wide.density = 0.01;
  SolverParameters automatic = tight(LossKind::Logistic);
  automatic.solver = SolverChoice::Auto;
  automatic.tol = 1e-6;
  automatic.C = 0.01;
  const Fit small = fit_once(*make_solver(automatic, false, {}), random_problem(wide));
  ASSERT_TRUE(small.result.converged);
  EXPECT_EQ(small.result.history.back().gradient_norm, 0.0);
  EXPECT_LE(small.result.epochs, kAutoProbeEpochs);
  automatic.solver = SolverChoice::Primal;
  EXPECT_THROW(make_solver(automatic, true, {}), Unsupported);  // no GPU backend in this program (core only)
}

// The hand-over at large C, where SDCA's gap falls slowly: the Newton solver goes on
// from the dual fit's point (its first record is the dual's last point, weights
// and intercept, not a cold start at P(0)), and the fit ends certified at the
// optimum the Newton solver alone reaches; with the intercept penalised and free.
TEST(Tron, AutoHandsOverToNewtonFromTheDualPoint) {
  RandomProblemOptions wide;
  wide.features = 2000;
  wide.density = 0.01;
  const Dataset data = random_problem(wide);
  for (const bool free : {false, true}) {
    SCOPED_TRACE(free ? "free intercept" : "penalised intercept");
    SolverParameters p = tight(LossKind::Logistic);
    p.C = 1000.0;
    p.tol = 1e-6;
    p.intercept_scaling = 1.0;
    p.penalise_intercept = !free;
    p.solver = SolverChoice::Auto;
    const Fit handed = fit_once(*make_solver(p, false, {}), data);
    ASSERT_TRUE(handed.result.converged);
    const std::vector<EpochRecord>& history = handed.result.history;
    // SDCA's records (no gradient norm) then Newton's.
    std::size_t first_newton = 0;
    while (first_newton < history.size() && history[first_newton].gradient_norm == 0.0) ++first_newton;
    ASSERT_GE(first_newton, 1u);
    ASSERT_LT(first_newton, history.size());
    EXPECT_GE(history[first_newton - 1].epoch, kAutoProbeEpochs);
    EXPECT_NEAR(history[first_newton].primal, history[first_newton - 1].primal,
                1e-9 * history[first_newton - 1].primal);
    p.solver = SolverChoice::Primal;
    const Fit newton = fit_once(*make_solver(p, false, {}), data);
    EXPECT_LT(history.front().primal, newton.result.history.front().primal);  // P(0) is the cold start's
    EXPECT_NEAR(history.back().primal, newton.result.history.back().primal, 1e-5 * newton.result.history.back().primal);
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, TronMethod, ::testing::Values(PrimalMethod::TrustRegion, PrimalMethod::Cholesky));
INSTANTIATE_TEST_SUITE_P(Methods, TronPenalisedMethod,
                         ::testing::Values(PrimalMethod::TrustRegion, PrimalMethod::Cholesky, PrimalMethod::LineSearch));

// Newton-CG along a line from a point far from the optimum (w = 30 x the
// optimum's direction: margins where the logistic loss is nearly linear, Newton's
// full step far too long): the line search shortens it, the fit is certified and
// reaches the trust region's optimum. Without a penalty it is refused (H may be
// singular: CG could meet a direction of no curvature).
TEST(Tron, LineSearchNewtonFromAFarStartReachesTheOptimum) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::Logistic, PrimalMethod::LineSearch);
  const Fit reference = fit(data, tight(LossKind::Logistic, PrimalMethod::TrustRegion));
  SolverState far;
  far.weights = reference.state.weights;
  for (double& weight : far.weights) weight *= 30.0;
  const Fit ours = fit(data, p, far);
  expect_certified(ours, p.tol);
  EXPECT_GT(ours.result.history.front().primal, 10.0 * ours.result.history.back().primal);
  // Both certified, P 1-strongly convex: each within sqrt(2 gap) of w*.
  EXPECT_LT((as_vector(ours.state.weights) - as_vector(reference.state.weights)).norm(),
            std::sqrt(2.0 * std::max(ours.result.history.back().gap, 0.0)) +
                std::sqrt(2.0 * std::max(reference.result.history.back().gap, 0.0)) + 1e-12);
  EXPECT_LT(ours.result.history.back().gap, 1e-6);  // not vacuous: tol 1e-10 of P
  SolverParameters none = p;
  none.penalty = Penalty::None;
  EXPECT_THROW(make_tron_cpu_solver(none), InvalidArgument);
}

// Which method auto took, from the passes: a Cholesky iteration makes three (the
// Hessian matrix, the line's X p, the gradient), a trust-region iteration at
// least four (a Hessian-vector product, f, the gradient, the preconditioner).
bool stepped_by_cholesky(const FitResult& result) {
  return result.epochs > 0 && result.data_passes <= 3 * result.epochs + 3;
}

TEST(Tron, AutoStepsByCholeskyWhereTheHessianIsSmall) {
  const Dataset data = random_problem({});  // 21 weights
  SolverParameters p = tight(LossKind::Logistic, PrimalMethod::Auto);
  const Fit chosen = fit(data, p);
  expect_certified(chosen, p.tol);
  EXPECT_TRUE(stepped_by_cholesky(chosen.result)) << chosen.result.data_passes << " passes";
  const Fit trust_region = fit(data, tight(LossKind::Logistic, PrimalMethod::TrustRegion));
  EXPECT_FALSE(stepped_by_cholesky(trust_region.result)) << trust_region.result.data_passes << " passes";
  // Both within ||g|| of the optimum (H >= I under the unit penalty: ||w - w*|| <= ||g||).
  EXPECT_LE((as_vector(chosen.state.weights) - as_vector(trust_region.state.weights)).norm(),
            chosen.result.history.back().gradient_norm + trust_region.result.history.back().gradient_norm + 1e-12);
  // No penalty: Cholesky too (where H is singular, collinear columns, the line
  // step hands over to the trust region: CholeskyOnCollinearColumnsFallsBackToTheTrustRegion).
  p.penalty = Penalty::None;
  p.tol = 1e-8;
  EXPECT_TRUE(stepped_by_cholesky(fit(data, p).result));
  // Too many weights for a dense matrix: the trust region.
  RandomProblemOptions wide;
  wide.features = 1100;
  wide.density = 0.01;
  EXPECT_FALSE(stepped_by_cholesky(fit(random_problem(wide), tight(LossKind::Logistic, PrimalMethod::Auto)).result));
}

// Ridge too wide for Cholesky: its Hessian does not depend on w, so Auto runs
// its CG solve to the certificate's target at the model's value
// (PrimalNewtonSolver::cg_forcing, trust_region.h's conjugate_gradients) and
// steps along the line, where the trust region's forcing term stopped each solve
// short and the next began a new Krylov space: one Newton iteration and 53 passes
// against the trust region's 5 and 75 here (56 against 84 with a free
// intercept); with the target from f at w = 0 (3,018, the optimum's 116) the
// first solve stopped short of the rule, and a second took 57 and 61 passes. A
// third of the targets are 0: at w = 0 those rows' residuals are 0, and ridge's
// curvature is 2 there all the same (SquaredLoss::primal_curvature), else the
// first Hessian would lack them.
TEST(Tron, RidgeTooWideToFactoriseSolvesToTheTarget) {
  RandomProblemOptions o;
  o.regression = true;
  o.features = 1100;
  o.density = 0.01;
  std::vector<CsrChunk> chunks = random_problem(o).chunks();
  std::int64_t row = 0;
  for (CsrChunk& chunk : chunks)
    for (double& label : chunk.labels)
      if (row++ % 3 == 0) label = 0.0;
  const Dataset data(std::move(chunks), o.features);
  SolverParameters p = tight(LossKind::Squared, PrimalMethod::Auto);
  p.intercept_scaling = 0.0;
  for (const bool free_intercept : {false, true}) {
    if (free_intercept) {
      p.intercept_scaling = 1.0;
      p.penalise_intercept = false;
    }
    const Fit ours = fit(data, p);
    SolverParameters trust_region = p;
    trust_region.primal_method = PrimalMethod::TrustRegion;
    const Fit theirs = fit(data, trust_region);
    for (const Fit* each : {&ours, &theirs}) {
      // Certified (a free intercept's records before the last may carry NaN).
      ASSERT_TRUE(each->result.converged) << free_intercept;
      EXPECT_LE(each->result.history.back().gap, p.tol * each->result.history.back().primal) << free_intercept;
    }
    EXPECT_EQ(ours.result.epochs, 1) << free_intercept;
    EXPECT_LT(ours.result.data_passes, theirs.result.data_passes) << free_intercept;
    if (!free_intercept) {
      // P 1-strongly convex: within sqrt(2 gap) of the optimum.
      const Eigen::VectorXd reference = ridge_reference(dense(data, p));
      EXPECT_LT((as_vector(ours.state.weights).head(o.features) - reference.head(o.features)).norm(),
                std::sqrt(2.0 * std::max(ours.result.history.back().gap, 0.0)) + 1e-9 * (1.0 + reference.norm()));
    }
  }
}

// An unpenalised fit is equivariant under a column's scale: features times 1e-8
// give the weights times 1e8 and the same intercept. The direct step factorises
// H with unit diagonal where H itself is too badly conditioned (the features'
// 1e-16 beside the intercept's n): unscaled it made no step, and LinearRegression
// returned w = 0 (newton_direct.cpp).
TEST(Tron, AnUnpenalisedFitIsEquivariantUnderTheFeaturesScale) {
  RandomProblemOptions o;
  o.regression = true;
  const Dataset data = random_problem(o);
  std::vector<CsrChunk> chunks;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    chunks.push_back(data.chunk(c));
    for (float& value : chunks.back().values) value *= 1e-8f;
  }
  const Dataset tiny(std::move(chunks), data.n_features());
  {
    SolverParameters p = tight(LossKind::Squared, PrimalMethod::Auto);
    p.penalty = Penalty::None;
    p.penalise_intercept = false;
    p.tol = 1e-10;
    const Fit plain = fit(data, p);
    const Fit scaled = fit(tiny, p);
    ASSERT_EQ(plain.state.weights.size(), scaled.state.weights.size());
    const std::size_t n = plain.state.weights.size() - 1;
    for (std::size_t j = 0; j < n; ++j)
      EXPECT_NEAR(scaled.state.weights[j] * 1e-8, plain.state.weights[j], 1e-6 * (1.0 + std::fabs(plain.state.weights[j])))
          << "weight " << j;
    EXPECT_NEAR(scaled.state.weights[n], plain.state.weights[n], 1e-6 * (1.0 + std::fabs(plain.state.weights[n])));
  }
}

// Two equal columns without a penalty: H is singular, and the Cholesky step takes
// the step of least norm (newton_direct.cpp), to a zero gradient and equal
// weights on the two columns.
TEST(Tron, CholeskyOnCollinearColumnsTakesTheLeastNormStep) {
  std::vector<CsrChunk> chunks(1);
  const std::int32_t indices[3] = {0, 1, 2};
  for (int row = 0; row < 60; ++row) {
    const float a = static_cast<float>((row * 7) % 11) / 11.0f - 0.4f;
    const float b = static_cast<float>((row * 5) % 13) / 13.0f - 0.5f;
    const float values[3] = {a, a, b};
    chunks[0].add_row((row * 3) % 5 < 2 ? 1.0 : -1.0, indices, values, 3);
  }
  const Dataset data(std::move(chunks), 3);
  SolverParameters p = tight(LossKind::Logistic, PrimalMethod::Cholesky);
  p.penalty = Penalty::None;
  p.tol = 1e-8;
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  const Eigen::VectorXd g = dense_gradient(dense(data, p), LossKind::Logistic, as_vector(ours.state.weights), false,
                                           false);
  EXPECT_LE(g.norm(), 1e-6);
  EXPECT_NEAR(ours.state.weights[0], ours.state.weights[1], 1e-6 * (1.0 + std::fabs(ours.state.weights[0])));
}

// The least-squares solution of least norm over the features (the intercept, when
// there is one, free and outside the norm), with the weights c_i: scikit-learn's
// LinearRegression, lstsq of the weighted, centred rows. Written as the
// weights vector, the intercept's entry last (the bias column is 1).
Eigen::VectorXd least_norm_reference(const DenseProblem& p, bool intercept) {
  const Eigen::Index n = p.x.cols() - 1;
  Eigen::MatrixXd x = p.x.leftCols(n);
  Eigen::VectorXd y = p.y;
  Eigen::RowVectorXd x_mean = Eigen::RowVectorXd::Zero(n);
  double y_mean = 0.0;
  if (intercept) {
    x_mean = p.c.transpose() * x / p.c.sum();
    y_mean = p.c.dot(y) / p.c.sum();
    x.rowwise() -= x_mean;
    y.array() -= y_mean;
  }
  const Eigen::VectorXd root = p.c.cwiseSqrt();
  x = root.asDiagonal() * x;
  y = root.asDiagonal() * y;
  Eigen::VectorXd w(n + 1);
  w.head(n) = x.completeOrthogonalDecomposition().solve(y);
  w(n) = intercept ? y_mean - x_mean.dot(w.head(n)) : 0.0;
  return w;
}

// Least squares without a penalty on random rows (sample weights), with and
// without a free intercept: scikit-learn's fit, the one of least norm, to `tolerance`.
void expect_least_norm_fits(std::int64_t rows, std::int32_t features, double density, double tolerance) {
  RandomProblemOptions o;
  o.rows = rows;
  o.features = features;
  o.density = density;
  o.regression = true;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  for (const bool intercept : {true, false}) {
    SolverParameters p = tight(LossKind::Squared, PrimalMethod::Auto);
    p.penalty = Penalty::None;
    p.penalise_intercept = false;
    p.intercept_scaling = intercept ? 1.0 : 0.0;
    const Fit ours = fit(data, p);
    ASSERT_TRUE(ours.result.converged) << "intercept " << intercept;
    const Eigen::VectorXd reference = least_norm_reference(dense(data, p), intercept);
    for (std::size_t j = 0; j < ours.state.weights.size(); ++j)
      EXPECT_NEAR(ours.state.weights[j], reference(static_cast<Eigen::Index>(j)), tolerance * (1.0 + reference.norm()))
          << "weight " << j << ", intercept " << intercept;
  }
}

// On fewer rows than features every w fitting the rows exactly is optimal, and
// the fit is scikit-learn's, the one of least norm, with and without a free
// intercept and with sample weights. The trust region's preconditioned steps left
// the rows' span (20 x 200 in Python: ||w|| 1.063 against 1.057, predictions on
// new rows 0.54 apart).
TEST(Tron, LeastSquaresOnFewerRowsThanFeaturesIsTheLeastNormFit) { expect_least_norm_fits(20, 60, 0.5, 1e-8); }

// The same, wider than the direct step factorises (kMaxDirectNewtonWidth): the
// step of least norm by plain conjugate gradients (least_norm_newton).
TEST(Tron, LeastSquaresTooWideToFactoriseIsTheLeastNormFit) { expect_least_norm_fits(30, 1100, 0.1, 1e-7); }

// Collinear columns on more rows than features, the case of a one-hot encoding
// with every category and an intercept (columns 2 and 3 sum to 1) and of a
// duplicated column (0 and 1): the direct step's least-norm fit, the duplicate's
// weight split evenly, as scikit-learn's.
TEST(Tron, LeastSquaresOnCollinearColumnsIsTheLeastNormFit) {
  std::vector<CsrChunk> chunks(1);
  const std::int32_t indices[4] = {0, 1, 2, 3};
  for (int row = 0; row < 60; ++row) {
    const float a = static_cast<float>((row * 7) % 11) / 11.0f - 0.4f;
    const bool hot = (row * 5) % 13 < 6;
    const float values[4] = {a, a, hot ? 1.0f : 0.0f, hot ? 0.0f : 1.0f};
    const double target = 2.0 * a + (hot ? 0.7 : -0.2) + 0.1 * std::sin(row);
    chunks[0].add_row(target, indices, values, 4);
  }
  const Dataset data(std::move(chunks), 4);
  SolverParameters p = tight(LossKind::Squared, PrimalMethod::Auto);
  p.penalty = Penalty::None;
  p.penalise_intercept = false;
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  const Eigen::VectorXd reference = least_norm_reference(dense(data, p), true);
  ASSERT_EQ(ours.state.weights.size(), 5u);
  for (std::size_t j = 0; j < 5; ++j)
    EXPECT_NEAR(ours.state.weights[j], reference(static_cast<Eigen::Index>(j)), 1e-8 * (1.0 + reference.norm()))
        << "weight " << j;
  EXPECT_NEAR(ours.state.weights[0], ours.state.weights[1], 1e-9);
}

TEST(Tron, CholeskyTakesAScalarLossOnly) {
  SolverParameters p = tight(LossKind::Multinomial, PrimalMethod::Cholesky);
  p.classes = {0.0, 1.0, 2.0};
  p.class_weights = {1.0, 1.0, 1.0};
  EXPECT_THROW(make_tron_cpu_solver(p), InvalidArgument);
}

// a9a at moderate C: the same objective as the dual solver, within the tolerance;
// at C = 1e6 (where SDCA needs thousands of epochs) it converges.
TEST_P(TronMethod, A9aMatchesTheDualSolverAndConvergesAtLargeC) {
  SNAPML_REQUIRE_DATASET(path, "a9a");
  const Dataset data = datasets::read_svmlight(path);
  SolverParameters p;
  p.loss = LossKind::Logistic;
  p.solver = SolverChoice::Primal;
  p.primal_method = GetParam();
  p.intercept_scaling = 1.0;
  p.positive_label = 1.0;
  p.C = 4.0;
  p.tol = 1e-6;
  p.threads = 2;
  const Fit primal = fit(data, p);
  expect_certified(primal, p.tol);
  SolverParameters dual = p;
  dual.solver = SolverChoice::Dual;
  const Fit sdca = fit_once(*make_sdca_cpu_solver(dual), data);
  ASSERT_TRUE(sdca.result.converged);
  InMemorySource source(data);
  const double p_primal = primal_objective(source, p, primal.state.weights.data(), data.n_features());
  const double p_dual = primal_objective(source, p, sdca.state.weights.data(), data.n_features());
  EXPECT_NEAR(p_primal, p_dual, 2e-6 * p_dual);

  p.C = 1e6;
  p.tol = 1e-3;
  p.max_epochs = 300;
  const Fit large = fit(data, p);
  expect_certified(large, p.tol);
}

}  // namespace
