// The primal Newton solver's steps along a line (primal_newton_solver.cpp says when
// each is taken): limited-memory BFGS (quasi_newton.h; Nocedal & Wright, Numerical
// Optimization, Algorithm 7.4), and Newton's step solved exactly by Cholesky over
// the whole Hessian (newton_direct.h). Both move by line_step, whose search reads
// no data: the margins along w + t p are m + t X p, one pass for X p.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../common/omp_threads.h"
#include "newton_direct.h"
#include "primal_newton_solver.h"
#include "quasi_newton.h"

namespace snapml::detail {

void PrimalNewtonSolver::lbfgs(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                          std::vector<double>& g, double f, double first_gradient_norm) {
  const std::size_t width = w.size();
  detail::LbfgsMemory memory(width, kLbfgsPairs, threads_);
  std::vector<double> p, previous(width), step(width);
  while (result.epochs < parameters_.max_epochs) {
    double slope = memory.direction(g, p);
    if (!(slope < 0.0)) {  // rounding spoilt the approximation: start it again from -g
      memory.forget();
      slope = memory.direction(g, p);
      if (!(slope < 0.0)) break;
    }
    // The first direction is -g, of no natural length: its line starts at 0.
    const double t = line_step(w, margins, f, p, slope, memory.empty() ? 0.0 : 1.0, &step);
    if (!(t > 0.0)) break;  // no decrease is representable
    // Free intercepts to their optimum (no pass): the paired dual point then meets
    // the constraint the certificate needs (multinomial_objective.cpp). The pair
    // (s, y) spans the whole move.
    if (centred_) f += centre_intercepts(w, margins, &step);
    previous.swap(g);
    const double dual_sum = gradient(w, margins, g);
    memory.remember_change(step, g, previous);
    ++result.epochs;
    if (record(result, w, f, g, dual_sum, first_gradient_norm)) break;
    progress(result, w);
  }
}

double PrimalNewtonSolver::line_step(std::vector<double>& w, std::vector<double>& margins, double& f,
                                const std::vector<double>& p, double slope, double start,
                                std::vector<double>* step) {
  const std::size_t width = w.size();
  std::vector<double>& u = line_margins_;
  u.resize(margins.size());
  objective_->margins(p, u);  // the one pass of the line search
  // The penalty 0.5 sum_j r_j (w_j + t p_j)^2 along the line: a quadratic in t,
  // its value and derivatives at t = 0.
  const detail::LineValues penalty =
      detail::ordered_sum(static_cast<std::int64_t>(width), threads_, [&](std::int64_t index) {
        const auto j = static_cast<std::size_t>(index);
        return detail::LineValues{0.5 * regulariser_[j] * w[j] * w[j], regulariser_[j] * w[j] * p[j],
                                  regulariser_[j] * p[j] * p[j]};
      });
  const detail::LineFunction phi = [&](double t) {
    detail::LineValues line = objective_->along_line(margins, u, t);
    communicator_->allreduce_sum(&line.value, 3);
    line.value += penalty.value + t * (penalty.slope + 0.5 * t * penalty.curvature);
    line.slope += penalty.slope + t * penalty.curvature;
    line.curvature += penalty.curvature;
    return line;
  };
  const detail::LineStep found = detail::minimise_along_line(phi, f, slope, start);
  if (!(found.t > 0.0)) return 0.0;
  const auto entries = static_cast<std::int64_t>(width);
SNAPML_OMP(parallel for num_threads(detail::threads_for(entries, threads_)) schedule(static))
  for (std::int64_t j = 0; j < entries; ++j) {
    const double change = found.t * p[j];
    if (step) (*step)[j] = change;
    w[j] += change;
  }
  const auto rows = static_cast<std::int64_t>(margins.size());
SNAPML_OMP(parallel for num_threads(detail::threads_for(rows, threads_)) schedule(static))
  for (std::int64_t i = 0; i < rows; ++i) margins[i] += found.t * u[i];
  f = found.value;
  return found.t;
}

void PrimalNewtonSolver::direct_newton(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                  std::vector<double>& g, double f, double first_gradient_norm) {
  const std::size_t width = w.size();
  std::vector<double> hessian(width * (width + 1) / 2), p;
  const std::size_t outside_norm = free_intercepts();
  while (result.epochs < parameters_.max_epochs) {
    objective_->hessian_matrix(hessian.data());
    communicator_->allreduce_sum(hessian.data(), hessian.size());
    const bool solved = detail::solve_newton_system(hessian, regulariser_, g, outside_norm, p);
    // No step found (H not numerically positive definite under a penalty, but for
    // rounding): no slope, and the trust region, which needs no factorisation, goes on.
    if (!newton_line_step(result, w, margins, g, f, p, solved ? dot(g, p) : 0.0, first_gradient_norm)) return;
  }
}

void PrimalNewtonSolver::least_norm_newton(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                           std::vector<double>& g, double f, double first_gradient_norm) {
  // The least-norm step of solve_newton_system, by conjugate gradients where H is
  // too wide to factorise. A free intercept b (the last weight) is eliminated as
  // there: with H's last column (c; d), the features' system is S p = -r, S = A -
  // c c^T / d (the centred Hessian) and r = g_w - c g_b / d, and p_b = -(g_b +
  // c.p) / d. S v is H's product with (v, -c.v / d), first block. CG from 0,
  // unpreconditioned, keeps its iterates in the Krylov space of r, within
  // range(S): on a consistent singular system it converges to the solution of
  // least norm, in at most rank(S) < rows iterations in exact arithmetic
  // (Hestenes & Stiefel 1952; Kammerer & Nashed, SIAM J. Numer. Anal. 9, 1972).
  // A preconditioner (the trust region's) would leave that span.
  const std::size_t width = w.size();
  std::vector<double> column(width, 0.0), unit(width, 0.0), full(width, 0.0), product, step(width);
  double diagonal = 0.0;
  if (free_intercepts() > 0) {  // a scalar loss: one intercept
    unit[width - 1] = 1.0;
    hessian_product(unit, column);
    diagonal = column[width - 1];
  }
  // No intercept (or its column 0, intercept_scaling 0): every weight in the norm.
  const std::size_t free = diagonal > 0.0 ? 1 : 0;
  const std::size_t m = width - free;
  std::vector<double> p(m), r(m), d(m);
  const auto iterations = static_cast<std::int64_t>(2.0 * rows_) + 10;
  // c.v over the features (c's last entry is d).
  const auto along_column = [&](const std::vector<double>& v) {
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += column[j] * v[j];
    return sum;
  };
  while (result.epochs < parameters_.max_epochs) {
    const double g_b = free ? g[m] : 0.0;
    for (std::size_t j = 0; j < m; ++j) r[j] = free ? -(g[j] - column[j] * g_b / diagonal) : -g[j];
    std::fill(p.begin(), p.end(), 0.0);
    d = r;
    double rr = dot(r, r);
    // To a residual well within the record's gradient rule, so that one Newton
    // step ends the fit.
    const double target = 0.1 * std::min(parameters_.tol, 1e-2) * first_gradient_norm;
    for (std::int64_t k = 0; k < iterations && std::sqrt(rr) > target; ++k) {
      std::copy(d.begin(), d.end(), full.begin());
      if (free) full[m] = -along_column(d) / diagonal;
      hessian_product(full, product);
      double curvature = 0.0;
      for (std::size_t j = 0; j < m; ++j) curvature += d[j] * product[j];
      if (!(curvature > 0.0)) break;
      const double alpha = rr / curvature;
      for (std::size_t j = 0; j < m; ++j) {
        p[j] += alpha * d[j];
        r[j] -= alpha * product[j];
      }
      const double next = dot(r, r);
      const double beta = next / rr;
      rr = next;
      for (std::size_t j = 0; j < m; ++j) d[j] = r[j] + beta * d[j];
    }
    std::copy(p.begin(), p.end(), step.begin());
    if (free) step[m] = -(g_b + along_column(p)) / diagonal;
    if (!newton_line_step(result, w, margins, g, f, step, dot(g, step), first_gradient_norm)) return;
  }
}

bool PrimalNewtonSolver::newton_line_step(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                          std::vector<double>& g, double& f, const std::vector<double>& p,
                                          double slope, double first_gradient_norm) {
  if (!(slope < 0.0) || !std::isfinite(slope)) {
    // No descent along p (H numerically singular): the trust region, which needs
    // neither a factorisation nor a positive definite H, goes on from w.
    trust_region(result, w, margins, g, f, first_gradient_norm);
    return false;
  }
  // Newton's step is t = 1; the search moves off it only where the loss is far from quadratic.
  if (!(line_step(w, margins, f, p, slope, 1.0, nullptr) > 0.0)) return false;  // no decrease is representable
  const double dual_sum = gradient(w, margins, g);
  ++result.epochs;
  if (record(result, w, f, g, dual_sum, first_gradient_norm)) return false;
  progress(result, w);
  return true;
}

}  // namespace snapml::detail
