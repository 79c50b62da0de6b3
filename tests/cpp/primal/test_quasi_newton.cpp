// The primal solver's quasi-Newton method (snapml/src/primal/quasi_newton.h): the line
// search on known convex functions, at the rounding floor too; the L-BFGS
// memory's secant equation and skip rule; and whole fits by L-BFGS against the
// trust-region method's optimum, for scalar losses and the multinomial loss. The
// multinomial fits' references and ranks are in test_tron_multinomial.cpp.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "../../../snapml/src/primal/quasi_newton.h"
#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "snapml/chunk_source.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"

namespace {

using namespace snapml;
using namespace snapml::testing;
using detail::LineValues;

// phi(t) = exp(t) - 2 t: minimum at log 2.
LineValues exp_line(double t) { return {std::exp(t) - 2.0 * t, std::exp(t) - 2.0, std::exp(t)}; }

TEST(LineSearch, FindsTheMinimumOfAConvexFunctionFromEitherStart) {
  for (double start : {0.0, 1.0}) {
    const detail::LineStep step = detail::minimise_along_line(exp_line, 1.0, -1.0, start);
    EXPECT_NEAR(step.t, std::log(2.0), 0.01) << start;  // |phi'(t)| <= 0.01 |phi'(0)|
    EXPECT_DOUBLE_EQ(step.value, exp_line(step.t).value);
    EXPECT_LE(step.evaluations, 5);
  }
}

TEST(LineSearch, BracketsAStepPastAFlatMinimum) {
  // phi(t) = (t - 1e-3)^2 from the natural step 1: Newton lands on the minimum.
  auto phi = [](double t) { return LineValues{(t - 1e-3) * (t - 1e-3), 2.0 * (t - 1e-3), 2.0}; };
  const detail::LineStep step = detail::minimise_along_line(phi, 1e-6, -2e-3, 1.0);
  EXPECT_NEAR(step.t, 1e-3, 1e-5);
}

TEST(LineSearch, SteersBySlopeWhereTheValuesAreRoundingOnly) {
  // The values equal to their last digit near an optimum: the slope still says
  // where the line's minimum is (t = 1), and a step there is taken.
  auto phi = [](double t) { return LineValues{100.0, 1e-14 * (t - 1.0), 1e-14}; };
  const detail::LineStep step = detail::minimise_along_line(phi, 100.0, -1e-14, 0.0);
  EXPECT_NEAR(step.t, 1.0, 0.01);
}

TEST(LineSearch, TakesNoStepWhereNothingDecreases) {
  // A value that rises by more than rounding along the line, whatever the slope says.
  auto phi = [](double t) { return LineValues{1.0 + t, -1.0, 0.0}; };
  EXPECT_EQ(detail::minimise_along_line(phi, 1.0, -1.0, 1.0).t, 0.0);
}

TEST(LbfgsMemory, MeetsTheSecantEquationOfTheNewestPair) {
  // BFGS's inverse update meets H y = s for the pair it adds last.
  std::mt19937 random(5);
  std::normal_distribution<double> normal;
  const std::size_t width = 7;
  detail::LbfgsMemory memory(width, 3, 2);
  std::vector<double> s(width), y(width), out;
  for (int pair = 0; pair < 5; ++pair) {  // more than it keeps: the oldest go
    for (std::size_t j = 0; j < width; ++j) {
      // Values a float holds exactly: the memory keeps its pairs in single precision.
      s[j] = static_cast<float>(normal(random));
      y[j] = static_cast<float>((1.0 + j) * s[j] + 0.1 * normal(random));  // s.y > 0
    }
    ASSERT_TRUE(memory.remember(s, y));
  }
  memory.direction(y, out);
  for (std::size_t j = 0; j < width; ++j) EXPECT_NEAR(out[j], -s[j], 1e-12 * (1.0 + std::fabs(s[j])));
}

// Nocedal & Wright's Algorithm 7.4 on vectors, the newest pair last in `pairs`.
std::vector<double> two_loop(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& pairs,
                             const std::vector<double>& g) {
  auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0.0;
    for (std::size_t j = 0; j < a.size(); ++j) sum += a[j] * b[j];
    return sum;
  };
  std::vector<double> q(g.size()), alpha(pairs.size());
  for (std::size_t j = 0; j < g.size(); ++j) q[j] = -g[j];
  for (std::size_t i = pairs.size(); i-- > 0;) {
    const auto& [s, y] = pairs[i];
    alpha[i] = dot(s, q) / dot(s, y);
    for (std::size_t j = 0; j < q.size(); ++j) q[j] -= alpha[i] * y[j];
  }
  const auto& [s_new, y_new] = pairs.back();
  const double gamma = dot(s_new, y_new) / dot(y_new, y_new);
  for (double& v : q) v *= gamma;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [s, y] = pairs[i];
    const double beta = dot(y, q) / dot(s, y);
    for (std::size_t j = 0; j < q.size(); ++j) q[j] += (alpha[i] - beta) * s[j];
  }
  return q;
}

TEST(LbfgsMemory, FusedSweepsEqualTheTwoLoopRecursionWithAnyThreads) {
  // The fused sweeps (each update with the next inner product, gamma with the
  // oldest pair's update, the slope with the last) give Algorithm 7.4's direction
  // and g.direction up to rounding, after the memory has wrapped and after it was
  // emptied; and the same bits for 1 and 3 threads (blocks summed in a fixed
  // order). The width spans several of the sums' blocks.
  std::mt19937 random(11);
  std::normal_distribution<double> normal;
  const std::size_t width = 5000;
  const int kept = 4;
  detail::LbfgsMemory one(width, kept, 1), three(width, kept, 3);
  std::vector<std::pair<std::vector<double>, std::vector<double>>> pairs;
  std::vector<double> g(width), out_one, out_three, s(width), y(width);
  for (int step = 0; step < 11; ++step) {
    if (step == 7) {  // an emptied memory starts again from steepest descent
      one.forget();
      three.forget();
      pairs.clear();
    }
    for (std::size_t j = 0; j < width; ++j) {
      s[j] = normal(random);
      y[j] = (1.0 + 0.01 * static_cast<double>(j % 97)) * s[j] + 0.3 * normal(random);
      g[j] = normal(random);
    }
    // The recursion on the pairs as kept, rounded to single precision.
    std::vector<double> rounded_s(width), rounded_y(width);
    for (std::size_t j = 0; j < width; ++j) {
      rounded_s[j] = static_cast<float>(s[j]);
      rounded_y[j] = static_cast<float>(y[j]);
    }
    pairs.emplace_back(rounded_s, rounded_y);
    if (pairs.size() > static_cast<std::size_t>(kept)) pairs.erase(pairs.begin());
    ASSERT_TRUE(one.remember(s, y));
    ASSERT_TRUE(three.remember(s, y));
    const double slope = one.direction(g, out_one);
    EXPECT_EQ(three.direction(g, out_three), slope);
    EXPECT_EQ(out_one, out_three);
    const std::vector<double> expected = two_loop(pairs, g);
    double scale = 0.0, expected_slope = 0.0;
    for (std::size_t j = 0; j < width; ++j) {
      scale = std::max(scale, std::fabs(expected[j]));
      expected_slope += g[j] * expected[j];
    }
    for (std::size_t j = 0; j < width; ++j) ASSERT_NEAR(out_one[j], expected[j], 1e-10 * scale) << step << " " << j;
    EXPECT_NEAR(slope, expected_slope, 1e-10 * std::fabs(expected_slope));
    EXPECT_LT(slope, 0.0);
  }
}

TEST(LbfgsMemory, RememberingAGradientChangeIsRememberingItsDifference) {
  // remember_change(s, g, previous) forms y = g - previous in its rounding sweep:
  // the same pairs, so the same directions to the bit, as remember(s, g - previous).
  std::mt19937 random(3);
  std::normal_distribution<double> normal;
  const std::size_t width = 9000;
  detail::LbfgsMemory by_difference(width, 3, 2), by_change(width, 3, 2);
  std::vector<double> s(width), g(width), previous(width), y(width), out_difference, out_change;
  for (int step = 0; step < 5; ++step) {
    for (std::size_t j = 0; j < width; ++j) {
      s[j] = normal(random);
      previous[j] = normal(random);
      g[j] = previous[j] + (1.0 + 0.01 * static_cast<double>(j % 13)) * s[j] + 0.1 * normal(random);
      y[j] = g[j] - previous[j];
    }
    ASSERT_EQ(by_difference.remember(s, y), by_change.remember_change(s, g, previous));
    EXPECT_EQ(by_difference.direction(g, out_difference), by_change.direction(g, out_change));
    EXPECT_EQ(out_difference, out_change);
  }
  // Its skip rule is remember's: no curvature along s, nothing kept.
  detail::LbfgsMemory flat(2, 3, 1);
  EXPECT_FALSE(flat.remember_change({1.0, 0.0}, {0.0, 0.0}, {1.0, 0.0}));
  EXPECT_TRUE(flat.empty());
}

TEST(LbfgsMemory, SkipsAPairWithoutPositiveCurvature) {
  detail::LbfgsMemory memory(2, 3, 1);
  EXPECT_FALSE(memory.remember({1.0, 0.0}, {-1.0, 0.0}));
  EXPECT_TRUE(memory.empty());
  std::vector<double> out;
  memory.direction({3.0, -4.0}, out);  // no pair: steepest descent
  EXPECT_EQ(out, (std::vector<double>{-3.0, 4.0}));
  // A pair past a float's range rounds to inf: s.y = inf passes the curvature
  // test alone, and rho = 0, gamma = inf would spoil every direction.
  EXPECT_FALSE(memory.remember({1e39, 1.0}, {1.0, 1.0}));
  EXPECT_FALSE(memory.remember({1.0, 1.0}, {1e39, 1.0}));
  EXPECT_TRUE(memory.empty());
  EXPECT_TRUE(memory.remember({1.0, 1.0}, {1.0, 2.0}));
}

SolverParameters primal(LossKind loss, PrimalMethod method) {
  SolverParameters p;
  p.loss = loss;
  p.solver = SolverChoice::Primal;
  p.primal_method = method;
  p.C = 2.0;
  p.intercept_scaling = 1.0;
  p.penalise_intercept = false;
  p.tol = 1e-9;
  p.max_epochs = 1000;
  p.threads = 2;
  return p;
}

SolverParameters multinomial(PrimalMethod method) {
  SolverParameters p = primal(LossKind::Multinomial, method);
  p.classes = {0.0, 1.0, 2.0};
  p.class_weights = {1.0, 1.0, 1.0};
  return p;
}

// Both methods to the same stopping rule: the same minimum. The multinomial
// loss's free intercepts stop on the gradient rule; the scalar losses' free
// intercept on its repaired gap (primal_newton_solver.cpp), which bounds each
// fit's distance to P* and so to the other's: P_a - P_b <= P_a - P* <= gap_a.
void expect_same_optimum(const Dataset& data, SolverParameters lbfgs) {
  SolverParameters newton = lbfgs;
  newton.primal_method = PrimalMethod::TrustRegion;
  const Fit ours = fit_once(*make_tron_cpu_solver(lbfgs), data);
  const Fit reference = fit_once(*make_tron_cpu_solver(newton), data);
  ASSERT_TRUE(ours.result.converged);
  ASSERT_TRUE(reference.result.converged);
  const EpochRecord& last = ours.result.history.back();
  const double optimum = reference.result.history.back().primal;
  if (!std::isfinite(last.gap)) {
    EXPECT_NEAR(last.primal, optimum, 1e-12 * optimum);
    // Two passes an iteration (X p and the gradient), the two start passes and
    // g(0)'s with the gradient rule: the line search reads no data.
    EXPECT_EQ(ours.result.data_passes, 2 * std::int64_t{ours.result.epochs} + 3);
    return;
  }
  const double rounding = 1e-13 * optimum;
  EXPECT_LE(last.primal - optimum, last.gap + rounding);
  if (lbfgs.loss == LossKind::Multinomial) {
    // Its centred intercepts' certificate (multinomial_objective.cpp); the trust
    // region's reference keeps the gradient rule, at rounding distance from P*.
    EXPECT_LE(optimum - last.primal, 1e-12 * optimum);
    // Two passes an iteration, the two start passes and X^T (C Y)'s; no g(0).
    EXPECT_EQ(ours.result.data_passes, 2 * std::int64_t{ours.result.epochs} + 3);
    return;
  }
  EXPECT_LE(optimum - last.primal, reference.result.history.back().gap + rounding);
  // Two passes an iteration, the two start passes, and one for each record whose
  // gap the repair made (X^T (delta c)); no g(0).
  std::int64_t repaired = 0;
  for (const EpochRecord& record : ours.result.history) repaired += std::isfinite(record.gap) ? 1 : 0;
  EXPECT_EQ(ours.result.data_passes, 2 * std::int64_t{ours.result.epochs} + 2 + repaired);
}

TEST(PrimalLbfgs, LogisticReachesTheTrustRegionOptimum) {
  expect_same_optimum(random_problem(RandomProblemOptions{}), primal(LossKind::Logistic, PrimalMethod::Lbfgs));
}

TEST(PrimalLbfgs, SquaredHingeReachesTheTrustRegionOptimum) {
  expect_same_optimum(random_problem(RandomProblemOptions{}), primal(LossKind::SquaredHinge, PrimalMethod::Lbfgs));
}

TEST(PrimalLbfgs, MultinomialReachesTheTrustRegionOptimumAndIsTheDefault) {
  expect_same_optimum(three_classes(), multinomial(PrimalMethod::Auto));
  // Auto is L-BFGS for the multinomial loss: the same iterates as asking for it.
  const Fit automatic = fit_once(*make_tron_cpu_solver(multinomial(PrimalMethod::Auto)), three_classes());
  const Fit asked = fit_once(*make_tron_cpu_solver(multinomial(PrimalMethod::Lbfgs)), three_classes());
  EXPECT_EQ(automatic.state.weights, asked.state.weights);
}

}  // namespace
