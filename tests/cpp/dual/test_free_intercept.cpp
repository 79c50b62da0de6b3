// The dual solver's free intercept (snapml/src/dual/free_intercept.h): the optimum
// of the Newton solver's free-intercept problem, and a certificate that is a lower
// bound of that optimum at every record (the augmented dual's alpha is not
// feasible; the gap pass makes it so).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml {
namespace {

using testing::Fit;
using testing::fit_once;
using testing::random_problem;
using testing::RandomProblemOptions;

// A problem whose optimal intercept is far from 0: the planted labels shifted
// (regression) or thresholded off centre (classification: about 80 % positive).
Dataset shifted_problem(LossKind loss, int seed) {
  RandomProblemOptions o;
  o.regression = true;
  o.sample_weights = true;
  o.rows = 300;
  o.seed = static_cast<std::uint64_t>(seed);
  const Dataset data = random_problem(o).merged();
  CsrChunk chunk = data.chunk(0);
  for (double& label : chunk.labels) {
    if (loss == LossKind::Squared)
      label += 3.0;
    else
      label = label + 1.5 > 0.0 ? 1.0 : -1.0;
  }
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), data.n_features());
}

SolverParameters free_problem(LossKind loss, SolverChoice solver) {
  SolverParameters p;
  p.loss = loss;
  p.solver = solver;
  p.C = 2.0;
  p.penalise_intercept = false;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = 3000;
  p.threads = 1;
  p.seed = 5;
  return p;
}

class FreeIntercept : public ::testing::TestWithParam<std::tuple<LossKind, int, ThreadUpdates>> {};

TEST_P(FreeIntercept, ReachesTheNewtonOptimumWithAValidCertificateAtEveryRecord) {
  const auto [loss, threads, updates] = GetParam();
  const Dataset data = shifted_problem(loss, 3);
  SolverParameters newton = free_problem(loss, SolverChoice::Primal);
  newton.tol = 1e-12;
  const Fit reference = fit_once(*make_tron_cpu_solver(newton), data);
  const double optimum = reference.result.history.back().primal;
  ASSERT_GT(std::fabs(reference.state.weights.back()), 0.3) << "the problem should need its intercept";

  SolverParameters p = free_problem(loss, SolverChoice::Dual);
  p.threads = threads;
  p.thread_updates = updates;
  p.tol = 1e-9;
  const Fit ours = fit_once(*make_sdca_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged) << ours.result.epochs << " epochs" << [&] {
    std::string text;
    const auto& h = ours.result.history;
    for (std::size_t i = 0; i < h.size(); i += std::max<std::size_t>(1, h.size() / 12))
      text += "\n  epoch " + std::to_string(h[i].epoch) + " P " + std::to_string(h[i].primal) + " D " +
              std::to_string(h[i].dual) + " gap " + std::to_string(h[i].gap);
    return text + "\n  optimum " + std::to_string(optimum) + " b* " + std::to_string(reference.state.weights.back()) +
           " b " + std::to_string(ours.state.weights.back());
  }();
  // Every record's dual is a lower bound of the free problem's optimum (weak
  // duality through the feasible alpha'), its primal an upper one.
  for (const EpochRecord& record : ours.result.history) {
    EXPECT_LE(record.dual, optimum * (1.0 + 1e-12)) << "epoch " << record.epoch;
    EXPECT_GE(record.primal, optimum * (1.0 - 1e-12)) << "epoch " << record.epoch;
    EXPECT_GE(record.gap, -1e-12 * std::fabs(record.primal)) << "epoch " << record.epoch;
  }
  const EpochRecord& last = ours.result.history.back();
  EXPECT_NEAR(last.primal, optimum, 2e-9 * optimum);
  // The weights and the intercept (the last weight, times intercept_scaling 1).
  ASSERT_EQ(ours.state.weights.size(), reference.state.weights.size());
  for (std::size_t j = 0; j < ours.state.weights.size(); ++j)
    EXPECT_NEAR(ours.state.weights[j], reference.state.weights[j], 1e-3) << "weight " << j;
  // The reported primal is the primal of the weights returned.
  SolverParameters evaluate = p;
  evaluate.penalise_intercept = true;  // the same loss sum; only the penalty differs
  InMemorySource source(data);
  const double b = ours.state.weights.back();
  const double with_penalty = primal_objective(source, evaluate, ours.state.weights.data(), data.n_features());
  EXPECT_NEAR(with_penalty - 0.5 * b * b, last.primal, 1e-9 * last.primal);
}

INSTANTIATE_TEST_SUITE_P(
    SmoothLosses, FreeIntercept,
    ::testing::Values(std::make_tuple(LossKind::Logistic, 1, ThreadUpdates::Auto),
                      std::make_tuple(LossKind::SquaredHinge, 1, ThreadUpdates::Auto),
                      std::make_tuple(LossKind::Squared, 1, ThreadUpdates::Auto),
                      std::make_tuple(LossKind::Logistic, 3, ThreadUpdates::Shared),
                      std::make_tuple(LossKind::Logistic, 2, ThreadUpdates::Replicas),
                      std::make_tuple(LossKind::Squared, 3, ThreadUpdates::Replicas)));

TEST(FreeInterceptDual, AnInterceptScalingDoesNotChangeTheProblem) {
  const Dataset data = shifted_problem(LossKind::Logistic, 4);
  SolverParameters p = free_problem(LossKind::Logistic, SolverChoice::Dual);
  p.tol = 1e-9;
  const Fit one = fit_once(*make_sdca_cpu_solver(p), data);
  p.intercept_scaling = 4.0;
  const Fit four = fit_once(*make_sdca_cpu_solver(p), data);
  ASSERT_TRUE(one.result.converged && four.result.converged);
  EXPECT_NEAR(one.result.history.back().primal, four.result.history.back().primal,
              2e-9 * one.result.history.back().primal);
  // The model's intercept is intercept_scaling times the last weight.
  EXPECT_NEAR(one.state.weights.back(), 4.0 * four.state.weights.back(), 1e-3);
}

TEST(FreeInterceptDual, AWarmStartFromWeightsStartsFromTheirIntercept) {
  const Dataset data = shifted_problem(LossKind::Logistic, 5);
  SolverParameters p = free_problem(LossKind::Logistic, SolverChoice::Dual);
  p.tol = 1e-8;
  const Fit cold = fit_once(*make_sdca_cpu_solver(p), data);
  ASSERT_TRUE(cold.result.converged);
  SolverState start;
  start.weights = cold.state.weights;
  const Fit warm = fit_once(*make_sdca_cpu_solver(p), data, start);
  ASSERT_TRUE(warm.result.converged);
  EXPECT_LT(warm.result.epochs, cold.result.epochs);
  EXPECT_NEAR(warm.state.weights.back(), cold.state.weights.back(), 1e-3);
}

// The certificate takes the loss at the intercept that minimises it for the
// fit's w, and the fit returns that intercept ("The intercept for w",
// free_intercept.h): stopped early (tol 1e-2, where the rounds' b = b0 + B v is
// still off), the returned b's primal is within 1e-3 tol of the best for the
// returned w, and the reported primal is that point's. certify_every_epoch's
// records take the same steps: they move nothing, so one thread's fit is the
// same, bit for bit, with them.
TEST(FreeInterceptDual, TheModelsInterceptIsTheBestForItsWeights) {
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Squared}) {
    const std::string what = loss_name(loss);
    const Dataset data = shifted_problem(loss, 6);
    SolverParameters p = free_problem(loss, SolverChoice::Dual);
    p.tol = 1e-2;
    const Fit fit = fit_once(*make_sdca_cpu_solver(p), data);
    ASSERT_TRUE(fit.result.converged) << what;
    InMemorySource source(data);
    SolverParameters evaluate = p;
    evaluate.penalise_intercept = true;  // the same loss sum; only the penalty differs
    std::vector<double> weights = fit.state.weights;
    const double b = weights.back();
    auto primal_at = [&](double intercept) {
      weights.back() = intercept;
      return primal_objective(source, evaluate, weights.data(), data.n_features()) - 0.5 * intercept * intercept;
    };
    const double at_b = primal_at(b);
    EXPECT_NEAR(at_b, fit.result.history.back().primal, 1e-12 * at_b) << what;
    // The best intercept for w by ternary search (the primal is convex in b).
    double low = b - 2.0, high = b + 2.0;
    for (int step = 0; step < 100; ++step) {
      const double left = low + (high - low) / 3.0, right = high - (high - low) / 3.0;
      if (primal_at(left) < primal_at(right))
        high = right;
      else
        low = left;
    }
    const double best = primal_at(0.5 * (low + high));
    // The steps stop on Newton's decrement below 1e-3 tol of the loss: the primal
    // then within about half that of the best.
    EXPECT_LE(at_b - best, 1e-3 * p.tol * at_b) << what << " b " << b << " best " << 0.5 * (low + high);

    p.certify_every_epoch = true;
    const Fit every = fit_once(*make_sdca_cpu_solver(p), data);
    EXPECT_EQ(every.result.epochs, fit.result.epochs) << what;
    EXPECT_EQ(every.state.weights, fit.state.weights) << what;
  }
}

TEST(FreeInterceptDual, TheHingeLossAndTheMultinomialLossAreRefused) {
  SolverParameters p = free_problem(LossKind::Hinge, SolverChoice::Dual);
  EXPECT_THROW(validate(p), InvalidArgument);
  p.loss = LossKind::Multinomial;
  EXPECT_THROW(validate(p), InvalidArgument);
  p.loss = LossKind::Logistic;
  EXPECT_NO_THROW(validate(p));
  p.penalty = Penalty::None;  // no penalty: the Newton solver's only
  EXPECT_THROW(validate(p), InvalidArgument);
}

}  // namespace
}  // namespace snapml
