// What the L1 solver tests share: the L1 (and elastic-net) primal, the loss
// gradient and KKT check written out independently of the solvers, and an
// independent long-run lasso reference.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../fixtures/references.h"
#include "snapml/communicator.h"
#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/solver.h"

namespace snapml::testing {

// Epochs enough for tol 1e-10: coordinate descent takes far more of them than
// newGLMNET takes outer iterations.
inline constexpr int kCoordinateDescentEpochs = 100000;
inline constexpr int kGlmnetIterations = 1000;

// The L1 tests' fit: tol 1e-10, an intercept column of 1, seed 42.
inline SolverParameters tight_l1(LossKind loss, double C, double l1_ratio, int max_epochs) {
  SolverParameters p;
  p.loss = loss;
  p.penalty = Penalty::L1;
  p.l1_ratio = l1_ratio;
  p.C = C;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = max_epochs;
  p.seed = 42;
  return p;
}

// sum_i c_i loss_i(w) + a ||w||_1 + (1-a)/2 ||w||^2 (a = l1_ratio), from the
// references' L2 primals; with `free_last` the last weight (a free intercept) is
// outside both norms.
inline double l1_primal(LossKind loss, const DenseProblem& p, const Eigen::VectorXd& w, double l1_ratio = 1.0,
                        bool free_last = false) {
  const double l2_primal = loss == LossKind::Logistic       ? logistic_primal(p, w)
                           : loss == LossKind::SquaredHinge ? squared_hinge_primal(p, w)
                                                            : ridge_primal(p, w);
  const Eigen::VectorXd penalised = free_last ? Eigen::VectorXd(w.head(w.size() - 1)) : w;
  return l2_primal - 0.5 * w.squaredNorm() + l1_ratio * penalised.lpNorm<1>() +
         0.5 * (1.0 - l1_ratio) * penalised.squaredNorm();
}

// The gradient of the loss term, written out independently of the solver.
inline Eigen::VectorXd loss_gradient(LossKind loss, const DenseProblem& p, const Eigen::VectorXd& w) {
  const Eigen::VectorXd m = p.x * w;
  Eigen::VectorXd derivative(m.size());  // d/dm_i of c_i loss_i
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    switch (loss) {
      case LossKind::Logistic: derivative(i) = -p.c(i) * p.y(i) / (1.0 + std::exp(p.y(i) * m(i))); break;
      case LossKind::SquaredHinge: derivative(i) = -2.0 * p.c(i) * p.y(i) * std::max(0.0, 1.0 - p.y(i) * m(i)); break;
      default: derivative(i) = -2.0 * p.c(i) * (p.y(i) - m(i)); break;
    }
  }
  return p.x.transpose() * derivative;
}

// KKT of min a ||w||_1 + (1-a)/2 ||w||^2 + L(w), with g = grad L + (1-a) w:
// g_j = -a sign(w_j) where w_j != 0, |g_j| <= a where 0; with `free_last`, the
// last weight (a free intercept) has g = grad L = 0 there.
inline void expect_kkt(LossKind loss, const DenseProblem& p, const Eigen::VectorXd& w, double tolerance,
                       double l1_ratio = 1.0, bool free_last = false) {
  Eigen::VectorXd g = loss_gradient(loss, p, w) + (1.0 - l1_ratio) * w;
  if (free_last) {
    const Eigen::Index b = w.size() - 1;
    EXPECT_NEAR(g(b) - (1.0 - l1_ratio) * w(b), 0.0, tolerance) << "free intercept " << w(b);
    g.conservativeResize(b);
  }
  for (Eigen::Index j = 0; j < g.size(); ++j) {
    if (w(j) == 0.0) EXPECT_LE(std::fabs(g(j)), l1_ratio + tolerance) << "coordinate " << j;
    else EXPECT_NEAR(g(j), w(j) > 0.0 ? -l1_ratio : l1_ratio, tolerance) << "coordinate " << j << " w " << w(j);
  }
}

// Independent lasso reference: plain cyclic coordinate descent on the dense
// problem, exact soft-thresholding per coordinate, run for long.
inline Eigen::VectorXd lasso_reference(const DenseProblem& p, int epochs = 20000) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(p.x.cols());
  Eigen::VectorXd residual = p.y;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (Eigen::Index j = 0; j < p.x.cols(); ++j) {
      const double h = 2.0 * (p.c.array() * p.x.col(j).array().square()).sum();
      if (h == 0.0) continue;
      // minimise 0.5 h (z - w_j)^2 + g (z - w_j) + |z|, g = -2 sum c x r
      const double g = -2.0 * (p.c.array() * p.x.col(j).array() * residual.array()).sum();
      const double u = w(j) - g / h;
      const double z = u > 1.0 / h ? u - 1.0 / h : (u < -1.0 / h ? u + 1.0 / h : 0.0);
      residual -= (z - w(j)) * p.x.col(j);
      w(j) = z;
    }
  }
  return w;
}

inline int non_zeros(const std::vector<double>& w) {
  int count = 0;
  for (double v : w) count += v != 0.0;
  return count;
}

// A communicator that says two ranks and sums nothing: what the one-process L1
// solvers must refuse.
class TwoRanks final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  void allreduce_sum(double*, std::size_t) override {}
  void allreduce_sum(std::int64_t*, std::size_t) override {}
  void allreduce_max(std::int64_t*, std::size_t) override {}
  void broadcast(void*, std::size_t, int) override {}
  void barrier() override {}
  [[noreturn]] void abort(const std::string& message) override { throw Error(message); }
};

}  // namespace snapml::testing
