// Penalty l1 and the elastic net with the multinomial loss (orthant-wise L-BFGS,
// snapml/src/primal/orthant_steps.cpp): the optimum against a dense proximal
// gradient reference, written independently (FISTA with restarts), with the
// duality-gap certificate every record carries, free and penalised intercepts,
// exact zeros, and the problems the solver refuses.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../fixtures/dense_multinomial.h"
#include "../fixtures/fit_on_ranks.h"
#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "snapml/error.h"
#include "snapml/solver_factory.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

// F(W) = f(W) + a sum |W_e| over the L1 weights (class-major), f with r = 1 - a.
struct L1Problem {
  DenseMultinomial d;
  double a = 1.0;
  std::vector<bool> in_l1;  // per weight, class-major

  L1Problem(const Dataset& data, const SolverParameters& p) : d(dense_multinomial(data, p)), a(p.l1_ratio) {
    d.r *= 1.0 - a;
    const Eigen::Index width = d.x.cols();
    for (int k = 0; k < kClasses; ++k)
      for (Eigen::Index j = 0; j < width; ++j) in_l1.push_back(j + 1 < width || p.penalise_intercept);
  }

  double l1(const Eigen::VectorXd& w) const {
    double sum = 0.0;
    for (Eigen::Index e = 0; e < w.size(); ++e)
      if (in_l1[static_cast<std::size_t>(e)]) sum += std::fabs(w(e));
    return a * sum;
  }
  double objective(const Eigen::VectorXd& w) const { return smooth(w) + l1(w); }

  // f and its gradient in matrix form (W: width x K, class k's weights its column),
  // for FISTA's many iterations; f agrees with the fixture's dense_primal.
  Eigen::MatrixXd probabilities(const Eigen::VectorXd& w, Eigen::VectorXd* loss) const {
    const Eigen::Map<const Eigen::MatrixXd> W(w.data(), d.x.cols(), kClasses);
    Eigen::MatrixXd m = d.x * W;
    if (loss) loss->resize(m.rows());
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
      const double top = m.row(i).maxCoeff();
      m.row(i) = (m.row(i).array() - top).exp();
      const double total = m.row(i).sum();
      if (loss) (*loss)(i) = top + std::log(total);
      m.row(i) /= total;
    }
    return m;
  }
  double smooth(const Eigen::VectorXd& w) const {
    const Eigen::Map<const Eigen::MatrixXd> W(w.data(), d.x.cols(), kClasses);
    Eigen::VectorXd loss;
    probabilities(w, &loss);
    const Eigen::MatrixXd m = d.x * W;
    double f = 0.5 * (d.r.asDiagonal() * W.array().square().matrix()).sum();
    for (Eigen::Index i = 0; i < m.rows(); ++i) f += d.c(i) * (loss(i) - m(i, d.y[static_cast<std::size_t>(i)]));
    return f;
  }
  Eigen::VectorXd smooth_gradient(const Eigen::VectorXd& w) const {
    const Eigen::Map<const Eigen::MatrixXd> W(w.data(), d.x.cols(), kClasses);
    Eigen::MatrixXd residual = probabilities(w, nullptr);
    for (Eigen::Index i = 0; i < residual.rows(); ++i) {
      residual(i, d.y[static_cast<std::size_t>(i)]) -= 1.0;
      residual.row(i) *= d.c(i);
    }
    Eigen::VectorXd g(w.size());
    Eigen::Map<Eigen::MatrixXd>(g.data(), d.x.cols(), kClasses) = d.x.transpose() * residual + d.r.asDiagonal() * W;
    return g;
  }

  Eigen::VectorXd prox(const Eigen::VectorXd& v, double step) const {
    Eigen::VectorXd out = v;
    for (Eigen::Index e = 0; e < v.size(); ++e)
      if (in_l1[static_cast<std::size_t>(e)])
        out(e) = std::copysign(std::max(std::fabs(v(e)) - step * a, 0.0), v(e));
    return out;
  }

  // FISTA (Beck & Teboulle 2009) with backtracking and function-value restarts
  // (O'Donoghue & Candes 2015), to a change of 1e-12 or until a step without
  // momentum no longer decreases F (rounding).
  Eigen::VectorXd reference() const {
    const Eigen::Index n = d.x.cols() * kClasses;
    Eigen::VectorXd w = Eigen::VectorXd::Zero(n), y = w;
    double lipschitz = 1.0, t = 1.0, value = objective(w);
    bool restarted = false;
    for (int iteration = 0; iteration < 50000; ++iteration) {
      const Eigen::VectorXd g = smooth_gradient(y);
      const double fy = smooth(y);
      Eigen::VectorXd z;
      for (;;) {
        z = prox(y - g / lipschitz, 1.0 / lipschitz);
        const Eigen::VectorXd move = z - y;
        if (smooth(z) <= fy + g.dot(move) + 0.5 * lipschitz * move.squaredNorm() + 1e-15 * std::fabs(fy))
          break;
        lipschitz *= 2.0;
      }
      const double next_value = objective(z);
      const double change = (z - w).norm();
      if (next_value > value) {  // restart the momentum; without it, rounding's floor
        if (restarted) break;
        restarted = true;
        t = 1.0;
        y = w;
        continue;
      }
      restarted = false;
      const double next_t = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
      y = z + ((t - 1.0) / next_t) * (z - w);
      w = z;
      t = next_t;
      value = next_value;
      if (change <= 1e-12 * (1.0 + w.norm())) break;
    }
    return w;
  }
};

Eigen::VectorXd class_major(const std::vector<double>& weights) {
  return Eigen::Map<const Eigen::VectorXd>(weights.data(), static_cast<Eigen::Index>(weights.size()));
}

SolverParameters l1_multinomial(double l1_ratio, bool penalise_intercept) {
  SolverParameters p = multinomial(penalise_intercept);
  p.penalty = Penalty::L1;
  p.l1_ratio = l1_ratio;
  p.C = 0.1;  // strong enough that the optimum has zeros
  // The pure L1 penalty's dual bound is first order in the iterate's error (the
  // dual point is scaled into ||X^T alpha||_inf <= a), so its gap stops near 1e-9
  // of P where F's decrease reaches rounding.
  p.tol = 1e-7;
  p.max_epochs = 5000;
  return p;
}

// Every record's dual value bounds F's optimum from below (weak duality), the
// last gap certifies the fit, the primal is F at the weights returned, and the
// weights are the reference's, their zeros exactly zero.
void expect_certified_optimum(const SolverParameters& p) {
  const Dataset data = three_classes();
  const L1Problem problem(data, p);
  const Eigen::VectorXd reference = problem.reference();
  const double optimum = problem.objective(reference);
  const auto zeros = std::count_if(reference.data(), reference.data() + reference.size(),
                                   [](double v) { return std::fabs(v) < 1e-9; });
  ASSERT_GE(zeros, 5) << "the problem should have a sparse optimum";
  const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged);
  for (const EpochRecord& record : ours.result.history) {
    ASSERT_TRUE(std::isfinite(record.gap)) << "epoch " << record.epoch;
    EXPECT_LE(record.dual, optimum + 1e-10 * optimum) << "epoch " << record.epoch;
  }
  const EpochRecord& last = ours.result.history.back();
  EXPECT_LE(last.gap, p.tol * last.primal);
  const Eigen::VectorXd w = class_major(ours.state.weights);
  ASSERT_EQ(w.size(), reference.size());
  EXPECT_NEAR(dense_primal(problem.d, w) + problem.l1(w), last.primal, 1e-10 * optimum);
  EXPECT_LE(problem.objective(w) - optimum, last.gap + 1e-10 * optimum);
  // Neither below the reference (which would then not be the optimum).
  EXPECT_GE(problem.objective(w), optimum - 1e-11 * optimum);
  EXPECT_LT((w - reference).norm(), 1e-3 * (1.0 + reference.norm()));
  for (Eigen::Index e = 0; e < w.size(); ++e)
    if (std::fabs(reference(e)) < 1e-9 && problem.in_l1[static_cast<std::size_t>(e)])
      EXPECT_EQ(w(e), 0.0) << "weight " << e << " (the reference's is " << reference(e) << ")";
}

TEST(MultinomialL1, FreeInterceptsReachTheOptimumWithACertificate) {
  expect_certified_optimum(l1_multinomial(1.0, false));
}

TEST(MultinomialL1, TheElasticNetReachesTheOptimumWithACertificate) {
  expect_certified_optimum(l1_multinomial(0.5, false));
}

TEST(MultinomialL1, PenalisedInterceptsReachTheOptimumWithACertificate) {
  expect_certified_optimum(l1_multinomial(1.0, true));
}

// The loss is flat along the intercepts all moved alike (the softmax's
// invariance); the fit keeps them summing to 0, as scikit-learn's. Left free,
// L-BFGS's curvature pairs amplified their rounding along that direction until
// the margins' magnitude spoilt the loss's precision (a 4-class set: every
// intercept at -2.9e8 after 560 iterations, the fit stalled at a relative gap of
// 0.02). Run long past what tol allows, weakly regularised, with and without the
// elastic net's smooth part.
TEST(MultinomialL1, FreeInterceptsStayCentredOnALongFit) {
  const Dataset data = three_classes();
  for (const double l1_ratio : {1.0, 0.5, 0.0}) {
    SCOPED_TRACE("l1_ratio " + std::to_string(l1_ratio));
    // l1_ratio 0: penalty l2 (plain L-BFGS, which centres the intercepts alike).
    SolverParameters p = l1_ratio > 0.0 ? l1_multinomial(l1_ratio, false) : multinomial(false);
    p.C = 20.0;
    p.tol = 1e-15;  // below rounding: the fit runs to max_epochs or to rounding's floor
    p.max_epochs = 1500;
    const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
    const std::size_t n_weights = ours.state.weights.size() / kClasses;  // the intercept last
    double sum = 0.0, largest = 0.0;
    for (int k = 0; k < kClasses; ++k) {
      const double b = ours.state.weights[static_cast<std::size_t>(k) * n_weights + n_weights - 1];
      sum += b;
      largest = std::max(largest, std::fabs(b));
    }
    EXPECT_LT(largest, 100.0);
    EXPECT_LE(std::fabs(sum), 1e-12 * (1.0 + largest));
    const EpochRecord& last = ours.result.history.back();
    EXPECT_LE(last.gap, 1e-6 * last.primal);
  }
}

// With a small l1_ratio the problem is nearly penalty l2's, and OWL-QN should take
// about L-BFGS's iterations: it did not while every entry of the direction whose
// sign disagreed with -pg was dropped, nonzero weights' too (a 4-class set at
// l1_ratio 0.01: 1,096 iterations against penalty l2's 24). Only the zeros'
// entries are dropped now.
TEST(MultinomialL1, ANearlyL2ProblemTakesAboutLbfgssIterations) {
  const Dataset data = three_classes();
  SolverParameters l2 = multinomial(false);
  l2.C = 20.0;
  l2.tol = 1e-8;
  const Fit smooth = fit_once(*make_tron_cpu_solver(l2), data);
  ASSERT_TRUE(smooth.result.converged);
  SolverParameters p = l1_multinomial(0.01, false);
  p.C = 20.0;
  p.tol = 1e-8;
  const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged);
  EXPECT_LE(ours.result.epochs, 3 * smooth.result.epochs + 10)
      << "penalty l2: " << smooth.result.epochs << " iterations";
}

// K ranks sum every product over their rows and step alike (the driver's rule):
// the single process's fit, its objective and its zeros.
TEST(MultinomialL1, RanksTakeTheSingleProcessFit) {
  const Dataset data = three_classes();
  for (const double l1_ratio : {1.0, 0.5}) {
    const SolverParameters p = l1_multinomial(l1_ratio, false);
    const Fit single = fit_once(*make_tron_cpu_solver(p), data);
    ASSERT_TRUE(single.result.converged);
    const Eigen::VectorXd expected = class_major(single.state.weights);
    for (int ranks : {2, 3}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks, l1_ratio " + std::to_string(l1_ratio));
      for (const Fit& rank : fit_on_ranks(data, ranks, [&] { return make_tron_cpu_solver(p); })) {
        ASSERT_TRUE(rank.result.converged);
        EXPECT_NEAR(rank.result.history.back().primal, single.result.history.back().primal,
                    1e-9 * single.result.history.back().primal);
        const Eigen::VectorXd w = class_major(rank.state.weights);
        EXPECT_LT((w - expected).norm(), 1e-5 * (1.0 + expected.norm()));
        for (Eigen::Index e = 0; e < w.size(); ++e) EXPECT_EQ(w(e) == 0.0, expected(e) == 0.0) << "weight " << e;
      }
    }
  }
}

TEST(MultinomialL1, TheDualAndCoordinateDescentSolversAreRefused) {
  for (const SolverChoice solver : {SolverChoice::Dual, SolverChoice::CoordinateDescent}) {
    SolverParameters p = l1_multinomial(1.0, false);
    p.solver = solver;
    EXPECT_THROW(validate(p), InvalidArgument);
  }
  SolverParameters trust = l1_multinomial(1.0, false);
  trust.primal_method = PrimalMethod::TrustRegion;
  EXPECT_THROW(make_tron_cpu_solver(trust), InvalidArgument);
  EXPECT_EQ(plan_solver(l1_multinomial(0.5, false), false).algorithm, SolverPlan::Algorithm::Newton);
  EXPECT_THROW(plan_solver(l1_multinomial(1.0, false), true), Unsupported);
}

}  // namespace
