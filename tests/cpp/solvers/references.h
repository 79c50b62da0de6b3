// High-precision references for the solver tests, written independently of the
// library's losses and solver: Newton's method (logistic, squared hinge), the
// closed form (ridge), and a long plain dual coordinate ascent (hinge).
#pragma once

#include <Eigen/Dense>

#include <cmath>

namespace snapml::testing {

// The problem in dense form: rows X (with the constant column), targets y, costs c.
struct DenseProblem {
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
  Eigen::VectorXd c;
};

inline double logistic_primal(const DenseProblem& p, const Eigen::VectorXd& w) {
  const Eigen::VectorXd m = p.x * w;
  double sum = 0.5 * w.squaredNorm();
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const double t = -p.y(i) * m(i);
    sum += p.c(i) * (t > 0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t)));
  }
  return sum;
}

inline double squared_hinge_primal(const DenseProblem& p, const Eigen::VectorXd& w) {
  const Eigen::VectorXd m = p.x * w;
  double sum = 0.5 * w.squaredNorm();
  for (Eigen::Index i = 0; i < m.size(); ++i) sum += p.c(i) * std::pow(std::max(0.0, 1.0 - p.y(i) * m(i)), 2);
  return sum;
}

inline double hinge_primal(const DenseProblem& p, const Eigen::VectorXd& w) {
  const Eigen::VectorXd m = p.x * w;
  double sum = 0.5 * w.squaredNorm();
  for (Eigen::Index i = 0; i < m.size(); ++i) sum += p.c(i) * std::max(0.0, 1.0 - p.y(i) * m(i));
  return sum;
}

inline double ridge_primal(const DenseProblem& p, const Eigen::VectorXd& w) {
  return (p.c.array() * (p.y - p.x * w).array().square()).sum() + 0.5 * w.squaredNorm();
}

// Newton's method with backtracking on a smooth (or semismooth) primal, from w = 0.
template <typename Primal, typename GradientHessian>
Eigen::VectorXd newton(const DenseProblem& p, Primal primal, GradientHessian derivatives) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(p.x.cols());
  for (int iteration = 0; iteration < 200; ++iteration) {
    Eigen::VectorXd g;
    Eigen::MatrixXd h;
    derivatives(w, g, h);
    if (g.norm() < 1e-13 * (1.0 + w.norm())) break;
    const Eigen::VectorXd step = h.ldlt().solve(g);
    double t = 1.0;
    const double current = primal(p, w);
    while (t > 1e-12 && primal(p, w - t * step) > current - 1e-4 * t * g.dot(step)) t *= 0.5;
    w -= t * step;
  }
  return w;
}

inline Eigen::VectorXd logistic_reference(const DenseProblem& p) {
  return newton(p, logistic_primal, [&](const Eigen::VectorXd& w, Eigen::VectorXd& g, Eigen::MatrixXd& h) {
    const Eigen::VectorXd m = p.x * w;
    Eigen::VectorXd coefficient(m.size()), curvature(m.size());
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      const double s = 1.0 / (1.0 + std::exp(p.y(i) * m(i)));  // sigmoid(-y m)
      coefficient(i) = p.c(i) * s * p.y(i);
      curvature(i) = p.c(i) * s * (1.0 - s);
    }
    g = w - p.x.transpose() * coefficient;
    h = Eigen::MatrixXd::Identity(w.size(), w.size()) + p.x.transpose() * curvature.asDiagonal() * p.x;
  });
}

inline Eigen::VectorXd squared_hinge_reference(const DenseProblem& p) {
  return newton(p, squared_hinge_primal, [&](const Eigen::VectorXd& w, Eigen::VectorXd& g, Eigen::MatrixXd& h) {
    const Eigen::VectorXd m = p.x * w;
    Eigen::VectorXd coefficient = Eigen::VectorXd::Zero(m.size()), active = Eigen::VectorXd::Zero(m.size());
    for (Eigen::Index i = 0; i < m.size(); ++i) {
      const double slack = 1.0 - p.y(i) * m(i);
      if (slack <= 0.0) continue;
      coefficient(i) = 2.0 * p.c(i) * slack * p.y(i);
      active(i) = 2.0 * p.c(i);
    }
    g = w - p.x.transpose() * coefficient;
    h = Eigen::MatrixXd::Identity(w.size(), w.size()) + p.x.transpose() * active.asDiagonal() * p.x;
  });
}

// min sum c (y - Xw)^2 + 0.5 ||w||^2  <=>  (I + 2 X^T C X) w = 2 X^T C y.
inline Eigen::VectorXd ridge_reference(const DenseProblem& p) {
  const Eigen::MatrixXd a =
      Eigen::MatrixXd::Identity(p.x.cols(), p.x.cols()) + 2.0 * p.x.transpose() * p.c.asDiagonal() * p.x;
  return a.ldlt().solve(2.0 * p.x.transpose() * (p.c.array() * p.y.array()).matrix());
}

// Plain cyclic dual coordinate ascent for the hinge loss, run for long.
inline Eigen::VectorXd hinge_reference(const DenseProblem& p, int epochs = 20000) {
  Eigen::VectorXd alpha = Eigen::VectorXd::Zero(p.x.rows());
  Eigen::VectorXd w = Eigen::VectorXd::Zero(p.x.cols());
  const Eigen::VectorXd q = p.x.rowwise().squaredNorm();
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (Eigen::Index i = 0; i < p.x.rows(); ++i) {
      if (q(i) == 0.0) continue;
      const double g = p.y(i) * p.x.row(i).dot(w) - 1.0;
      const double next = std::min(std::max(alpha(i) - g / q(i), 0.0), p.c(i));
      w += (next - alpha(i)) * p.y(i) * p.x.row(i).transpose();
      alpha(i) = next;
    }
  }
  return w;
}

}  // namespace snapml::testing
