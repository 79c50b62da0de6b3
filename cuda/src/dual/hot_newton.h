// The hot step of the GPU dual solver (epoch_schedule.h, "hot and cold"): one
// inexact Newton step on the hot weights w_H with the cold margins held,
//   min_{w_H}  0.5 ||w_H||^2 + sum_i C_i loss(m_i + x_i^hot . (w_H - w_H0)),
// the block of the primal that the columns most rows share make dense, which is
// why it is a Newton step and not coordinate steps. Host code, written once over
// an `Ops` object that makes the passes over the rows: the GPU solver's (kernels
// on every worker, summed over workers and ranks) and the host executor's
// (tests/support/gpu_epoch_model.cpp). The vectors here have one entry per hot
// slot and live on the host.
//
// The step: preconditioned conjugate gradients on (I + X_H^T D X_H) u = -g, D the
// rows' C_i loss'', g = w_H + X_H^T (C loss'), preconditioned by the Hessian's
// diagonal (the hot columns' counts differ by orders of magnitude, the
// intercept's is every row), stopped at ||r|| <= forcing ||g|| (an inexact Newton
// method: Dembo, Eisenstat & Steihaug 1982) or after max_cg products; then a line
// search along u on the exact 1-D function
//   phi(t) = 0.5 ||w_H + t u||^2 + sum_i C_i loss(m_i + t z_i),  z_i = x_i^hot . u,
// whose sums cost a pass over the rows' scalars only (z is accumulated from the
// products CG already made). The step never raises the primal: phi(t) <= phi(0).
//
// Ops:
//   void hvp(const std::vector<double>& d, std::vector<double>& out): out += X_H^T (D . X_H d),
//        keeping each row's x_i^hot . d for accumulate_direction;
//   void accumulate_direction(double a): z_i += a (x_i^hot . d) of the last hvp;
//   LineTerms line(double t): the sums of line_terms (row_work.h) over every row;
//   void apply(double t, const std::vector<double>& u): m_i += t z_i, z = 0, and
//        w_H += t u (on v too);
//   void discard_direction(): z = 0 (no step taken).
#pragma once

#include <cmath>
#include <vector>

#include "dual/row_work.h"

namespace snapml::cuda::dual {

struct HotStepSettings {
  double forcing = 0.1;  // CG's relative residual
  int max_cg = 10;       // products per step
  int max_halvings = 30;
};

struct HotStepStats {
  int products = 0;          // Hessian-vector products (passes over the hot entries)
  int line_evaluations = 0;  // row-scalar passes
  double step = 0.0;         // the line search's t (0: no step)
  double gradient_norm = 0.0;
};

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t j = 0; j < a.size(); ++j) sum += a[j] * b[j];
  return sum;
}

// One step from `weights` (w_H); `loss_gradient` is X_H^T (C loss'(m)) and
// `loss_diagonal` sum_i C_i loss''(m_i) x_ij^2 at the current margins (the
// margin pass's sums).
template <typename Ops>
HotStepStats hot_newton_step(Ops& ops, const std::vector<double>& weights, const std::vector<double>& loss_gradient,
                             const std::vector<double>& loss_diagonal, const HotStepSettings& settings) {
  HotStepStats stats;
  const std::size_t k = loss_gradient.size();
  std::vector<double> gradient(k), residual(k), preconditioned(k), direction(k), product(k), step(k, 0.0);
  std::vector<double> diagonal(k);
  for (std::size_t j = 0; j < k; ++j) {
    gradient[j] = weights[j] + loss_gradient[j];
    diagonal[j] = 1.0 + loss_diagonal[j];
  }
  stats.gradient_norm = std::sqrt(dot(gradient, gradient));
  if (!(stats.gradient_norm > 0.0)) return stats;
  auto precondition = [&] {
    for (std::size_t j = 0; j < k; ++j) preconditioned[j] = residual[j] / diagonal[j];
  };
  for (std::size_t j = 0; j < k; ++j) residual[j] = -gradient[j];
  precondition();
  direction = preconditioned;
  double rho = dot(residual, preconditioned);
  const double stop = settings.forcing * stats.gradient_norm;
  for (int iteration = 0; iteration < settings.max_cg; ++iteration) {
    product.assign(k, 0.0);
    ops.hvp(direction, product);
    ++stats.products;
    for (std::size_t j = 0; j < k; ++j) product[j] += direction[j];  // the regulariser's I
    const double curvature = dot(direction, product);
    if (!(curvature > 0.0)) break;
    const double a = rho / curvature;
    ops.accumulate_direction(a);
    for (std::size_t j = 0; j < k; ++j) {
      step[j] += a * direction[j];
      residual[j] -= a * product[j];
    }
    if (std::sqrt(dot(residual, residual)) <= stop) break;
    precondition();
    const double next_rho = dot(residual, preconditioned);
    const double beta = next_rho / rho;
    rho = next_rho;
    for (std::size_t j = 0; j < k; ++j) direction[j] = preconditioned[j] + beta * direction[j];
  }
  if (stats.products == 0) {
    ops.discard_direction();
    return stats;
  }

  // phi(t) = 0.5 ||w + t u||^2 + L(t): backtracking from t = 1 (the Newton step)
  // under Armijo's condition.
  const double ww = dot(weights, weights), wu = dot(weights, step), uu = dot(step, step);
  auto phi = [&](double t, LineTerms& terms) {
    terms = ops.line(t);
    ++stats.line_evaluations;
    terms.slope += wu + t * uu;
    terms.curvature += uu;
    return 0.5 * (ww + 2.0 * t * wu + t * t * uu) + terms.value;
  };
  LineTerms at_zero, at_t;
  const double phi_zero = phi(0.0, at_zero);
  if (!(at_zero.slope < 0.0)) {  // not a descent direction (rounding at the optimum)
    ops.discard_direction();
    return stats;
  }
  double t = 1.0;
  for (int tries = 0; tries < settings.max_halvings; ++tries) {
    const double value = phi(t, at_t);
    if (value <= phi_zero + 1e-4 * t * at_zero.slope) break;
    // A quadratic model from phi(0), phi'(0) and phi(t), within [0.1 t, 0.5 t].
    const double model = -at_zero.slope * t * t / (2.0 * (value - phi_zero - at_zero.slope * t));
    t = std::isfinite(model) ? std::fmin(0.5 * t, std::fmax(0.1 * t, model)) : 0.5 * t;
    if (tries + 1 == settings.max_halvings) t = 0.0;
  }
  stats.step = t;
  if (t == 0.0) {
    ops.discard_direction();
    return stats;
  }
  ops.apply(t, step);
  return stats;
}

}  // namespace snapml::cuda::dual
