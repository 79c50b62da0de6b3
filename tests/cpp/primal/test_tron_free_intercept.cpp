// The primal Newton solver's certificate for a free (unpenalised) intercept: the
// paired dual point made feasible for sum_i c(y_i) alpha_i = 0
// (primal_newton_solver.cpp, "Certificate"). Every recorded gap must bound the
// iterate's true suboptimality P(w, b) - P*, P* from a dense Newton reference
// written here independently of the library (the intercept's weight unpenalised),
// for each primal loss, each Newton method, on several data sets and
// intercept columns; at a loose tolerance, so that the bound is tested where the
// gap and the repair are large, and at a tight one.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "../fixtures/references.h"
#include "snapml/solver.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

struct Loss {
  LossKind kind;
  double epsilon;
};

// C_i loss(y, m) and its first two derivatives in m (the squared hinge's and the
// insensitive squared loss's generalized second derivative), written from the
// losses' definitions.
struct Terms {
  double value, derivative, curvature;
};

Terms terms(const Loss& loss, double y, double m) {
  switch (loss.kind) {
    case LossKind::Logistic: {
      const double t = -y * m;
      const double s = 1.0 / (1.0 + std::exp(-t));  // sigmoid(-y m)
      return {t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t)), -y * s, s * (1.0 - s)};
    }
    case LossKind::SquaredHinge: {
      const double slack = 1.0 - y * m;
      return slack > 0.0 ? Terms{slack * slack, -2.0 * y * slack, 2.0} : Terms{0.0, 0.0, 0.0};
    }
    default: {
      const double r = m - y;
      const double excess = std::fabs(r) - loss.epsilon;
      if (excess <= 0.0) return {0.0, 0.0, 0.0};
      return {excess * excess, r > 0.0 ? 2.0 * excess : -2.0 * excess, 2.0};
    }
  }
}

// P(w) = sum_i c_i loss(y_i, x_i.w) + 0.5 sum_j r_j w_j^2, r = 0 for the intercept (last).
double primal(const DenseProblem& p, const Loss& loss, const Eigen::VectorXd& w) {
  const Eigen::VectorXd m = p.x * w;
  double sum = 0.5 * w.head(w.size() - 1).squaredNorm();
  for (Eigen::Index i = 0; i < m.size(); ++i) sum += p.c(i) * terms(loss, p.y(i), m(i)).value;
  return sum;
}

// P* by Newton's method with backtracking (the generalized Hessian where the loss
// has one), to a gradient at rounding level.
double reference_optimum(const DenseProblem& p, const Loss& loss) {
  const Eigen::Index n = p.x.cols();
  Eigen::VectorXd r = Eigen::VectorXd::Ones(n);
  r(n - 1) = 0.0;
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  for (int iteration = 0; iteration < 500; ++iteration) {
    const Eigen::VectorXd m = p.x * w;
    Eigen::VectorXd d(m.size()), h(m.size());
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      const Terms t = terms(loss, p.y(i), m(i));
      d(i) = p.c(i) * t.derivative;
      h(i) = p.c(i) * t.curvature;
    }
    const Eigen::VectorXd g = r.cwiseProduct(w) + p.x.transpose() * d;
    if (g.norm() < 1e-13 * (1.0 + w.norm())) break;
    Eigen::MatrixXd hessian = p.x.transpose() * h.asDiagonal() * p.x;
    hessian.diagonal() += r + Eigen::VectorXd::Constant(n, 1e-14);
    const Eigen::VectorXd step = hessian.ldlt().solve(g);
    const double current = primal(p, loss, w);
    double t = 1.0;
    while (t > 1e-12 && primal(p, loss, w - t * step) > current - 1e-4 * t * g.dot(step)) t *= 0.5;
    w -= t * step;
  }
  return primal(p, loss, w);
}

struct Case {
  const char* name;
  RandomProblemOptions options;
};

std::vector<Case> data_sets() {
  std::vector<Case> sets;
  RandomProblemOptions base;
  base.sample_weights = true;
  sets.push_back({"200 x 20, sample weights", base});
  RandomProblemOptions wide;
  wide.rows = 150;
  wide.features = 300;
  wide.density = 0.05;
  wide.seed = 11;
  sets.push_back({"150 x 300, sparse", wide});
  RandomProblemOptions tall;
  tall.rows = 1000;
  tall.features = 8;
  tall.density = 0.6;
  tall.seed = 3;
  sets.push_back({"1000 x 8", tall});
  return sets;
}

class TronFreeIntercept : public ::testing::TestWithParam<std::tuple<Loss, PrimalMethod>> {};

TEST_P(TronFreeIntercept, EveryGapBoundsTheTrueSuboptimality) {
  const Loss loss = std::get<0>(GetParam());
  for (const Case& set : data_sets()) {
    for (const double column : {1.0, 3.0}) {
      for (const double tol : {1e-2, 1e-9}) {
        SCOPED_TRACE(std::string(set.name) + ", B " + std::to_string(column) + ", tol " + std::to_string(tol));
        RandomProblemOptions o = set.options;
        o.regression = loss.kind == LossKind::Squared;
        const Dataset data = random_problem(o);
        SolverParameters p;
        p.loss = loss.kind;
        p.epsilon = loss.epsilon;
        p.solver = SolverChoice::Primal;
        p.primal_method = std::get<1>(GetParam());
        p.C = 2.0;
        p.intercept_scaling = column;
        p.penalise_intercept = false;
        p.tol = tol;
        p.max_epochs = 500;
        p.threads = 2;
        // Each iterate's weights (on_progress, after its record), by epoch.
        std::map<int, std::vector<double>> iterates;
        p.on_progress = [&](int epoch, const std::function<SolverState()>& take) {
          iterates[epoch] = take().weights;
        };
        const DenseProblem problem = dense(data, p);
        const double optimum = reference_optimum(problem, loss);
        const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
        ASSERT_TRUE(ours.result.converged);
        iterates[ours.result.epochs] = ours.state.weights;
        const EpochRecord& last = ours.result.history.back();
        ASSERT_TRUE(std::isfinite(last.gap));
        EXPECT_LE(last.gap, tol * last.primal);
        int checked = 0;
        for (const EpochRecord& record : ours.result.history) {
          if (!std::isfinite(record.gap)) continue;  // a record the solver did not certify
          const auto found = iterates.find(record.epoch);
          ASSERT_NE(found, iterates.end());
          const double value = primal(problem, loss, as_vector(found->second));
          const double rounding = 1e-11 * optimum;
          EXPECT_NEAR(record.primal, value, rounding);
          // The certificate: P* >= D(alpha'), so P - P* <= gap.
          EXPECT_LE(value - optimum, record.gap + rounding);
          EXPECT_GE(record.gap, -rounding);
          ++checked;
        }
        EXPECT_GE(checked, 1);
        // At the tight tolerance the fit is at the optimum the reference found.
        if (tol < 1e-6) {
          EXPECT_LE(last.primal - optimum, 1e-8 * optimum);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    PrimalLosses, TronFreeIntercept,
    ::testing::Combine(::testing::Values(Loss{LossKind::Logistic, 0.0}, Loss{LossKind::SquaredHinge, 0.0},
                                         Loss{LossKind::Squared, 0.0}, Loss{LossKind::Squared, 0.5}),
                       ::testing::Values(PrimalMethod::TrustRegion, PrimalMethod::Cholesky, PrimalMethod::Lbfgs,
                                         PrimalMethod::LineSearch)),
    [](const ::testing::TestParamInfo<TronFreeIntercept::ParamType>& info) {
      const Loss loss = std::get<0>(info.param);
      const PrimalMethod method = std::get<1>(info.param);
      std::string name = loss.kind == LossKind::Logistic       ? "Logistic"
                         : loss.kind == LossKind::SquaredHinge ? "SquaredHinge"
                         : loss.epsilon > 0.0                  ? "InsensitiveSquared"
                                                               : "Squared";
      return name + (method == PrimalMethod::TrustRegion ? "TrustRegion"
                     : method == PrimalMethod::Cholesky  ? "Cholesky"
                     : method == PrimalMethod::Lbfgs     ? "Lbfgs"
                                                         : "LineSearch");
    });

}  // namespace
