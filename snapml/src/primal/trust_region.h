// The trust-region Newton method's rules, written once for every place it runs:
// the CPU solver (snapml/src/primal/primal_newton_solver.cpp, its vectors in host memory) and the GPU
// solver (cuda/src/primal/newton_gpu_solver.cpp, its vectors in device memory).
// Lin, Weng & Keerthi, "Trust region Newton method for large-scale logistic
// regression", JMLR 9 (2008), Algorithms 1 and 2 (LIBLINEAR's TRON), with CG
// preconditioned as in Hsia, Chiang & Lin (ACML 2018).
//
// What is here is scalar: the constants, the forcing term, the step to the
// boundary, the radius update, the acceptance test, the record and its stopping
// rule, and the two loops (Steihaug's CG and the outer iteration) written over a
// backend that owns the vectors. A backend does the sweeps over the weights and
// the products over the rows and returns their sums; the loops decide from those
// sums alone. So both solvers take the same decisions from the same scalars, and
// the GPU solver copies only scalars to the host between its sweeps. The backend
// owns M as it owns the vectors: the CPU's adds an exact block on the hot
// columns where they hold most of H's diagonal (hot_block.h), the GPU's is the
// diagonal below; on such data the two take different CG steps.
//
// The backend of conjugate_gradients:
//   CgStart cg_start()            s = 0, r = -g, d = M^-1 r; returns r.M^-1 r and <d, d>_M
//   double cg_curvature()         hd = H d; returns d.hd
//   CgAdvance cg_advance(step, zr)  s += step d, r -= step hd, zr' = r.M^-1 r,
//                                 beta = zr' / zr, d = M^-1 r + beta d; returns zr',
//                                 ||r||^2, <s, d>_M and <d, d>_M
//   void cg_to_boundary(tau)      s += tau d, r -= tau hd
// and of trust_region_iterations, besides those:
//   void update_preconditioner()  M = (1 - a) I + a diag(H) at the current point
//                                 (the CPU's: or a hot block, hot_block.h)
//   double initial_radius()       ||g||_{M^-1}
//   double gradient_norm()        ||g||
//   double cg_target(f)           cg_target below, for its problem
//   TrialStep try_step()          trial = w + s: g.s, s.r, f(trial), ||s||_M
//   void accept_step()            w = trial, and the gradient there
//   bool record(result, f)        record_iterate's record of w; true to stop
//   void progress(result)         the on_progress call after an accepted step
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "snapml/error.h"
#include "snapml/host_device.h"
#include "snapml/solver.h"

namespace snapml::detail::trust_region {

// Lin, Weng & Keerthi 2008, section 2.1 (LIBLINEAR's values).
constexpr double kEta0 = 1e-4;  // accept a step whose actual reduction exceeds eta0 x predicted
constexpr double kEta1 = 0.25;
constexpr double kEta2 = 0.75;
constexpr double kSigma1 = 0.25;
constexpr double kSigma2 = 0.5;
constexpr double kSigma3 = 4.0;
// CG stops at ||r|| <= eta ||g|| with the forcing term eta = min(0.1, sqrt(||g|| /
// ||g_first||)): LIBLINEAR's eps_cg = 0.1 far from the optimum, tightening as the
// gradient falls, which makes the inexact Newton iteration superlinear (Dembo,
// Eisenstat & Steihaug 1982) for the tight tolerances the gap allows.
constexpr double kCgTolerance = 0.1;
// CG is preconditioned by M = (1 - a) I + a diag(H), a = 0.01: Hsia, Chiang & Lin,
// "Preconditioned conjugate gradient methods in truncated Newton frameworks for
// large-scale linear classification" (ACML 2018), LIBLINEAR >= 2.20. The diagonal
// alone (a = 1) helps most where H is badly scaled (large C) but can hurt where it
// is not; the mix keeps the identity's behaviour there. The trust region is
// measured in M's norm, ||s||_M = sqrt(s^T M s), as in their Algorithm 2.
constexpr double kPreconditionerMix = 0.01;

// M_j from the penalty's r_j and the loss Hessian's diagonal entry (a GPU kernel
// computes it too).
SNAPML_HOST_DEVICE inline double preconditioner_entry(double regulariser, double hessian_diagonal) {
  return (1.0 - kPreconditionerMix) + kPreconditionerMix * (regulariser + hessian_diagonal);
}

// The forcing term above, from ||g|| now and at the first iterate of the fit.
inline double cg_forcing(double gradient_norm, double start_gradient_norm) {
  return std::min(kCgTolerance, std::sqrt(gradient_norm / start_gradient_norm));
}

// A certified fit's CG also stops once ||r|| <= kTargetShare x the gradient norm
// at which the record stops the fit (cg_target): the residual is the gradient at
// w + s up to the model's error (g(w + s) = g + H s + O(||s||^2) = -r + ...), so
// more CG iterations cannot make this step's iterate the last one sooner, while
// the forcing term alone drives the last step's residual far below what the rule
// needs (10M Criteo-like rows, tol 1e-8: the last step reached gap 8e-14 in 245
// CG iterations; at that step's rate about 90 reach 1e-8). The half leaves room for the model's
// error; the record still decides, on the recorded gap (a free intercept's gap
// adds w_b g_b and the repair's O(|g_b|) to 0.5 ||g||^2, both of the residual's
// order and below it near the optimum). The gradient rule (penalty none, the
// multinomial loss's free intercepts) keeps the forcing term alone: its tolerances reach
// ||g|| whose steps reduce f by less than f's rounding, where the trust region's
// acceptance is decided by rounding, and a step solved only to the rule's need
// asks for one more such acceptance than one solved past it.
constexpr double kTargetShare = 0.5;

// The residual norm at which a certified fit's CG stops: kTargetShare x the
// gradient norm at which record_iterate stops at value f. The paired dual point's
// gap is exactly 0.5 ||g||^2 (docs/algorithms.md, "Primal Newton": Fenchel-Young's
// equality at each row's derivative), so gap <= tol P once ||g|| <= sqrt(2 tol P).
// 0 (no cut) for the gradient rule.
inline double cg_target(bool certified, double tol, double f) {
  return certified ? kTargetShare * std::sqrt(2.0 * tol * std::max(f, 0.0)) : 0.0;
}

// CG iterations at most: one per weight (exact arithmetic ends there), capped.
inline int cg_iteration_limit(std::size_t width) { return static_cast<int>(std::min<std::size_t>(width, 1 << 20)); }

// To the boundary along d: the tau >= 0 with ||s + tau d||_M = delta, from
// ss = ||s||_M^2, sd = <s, d>_M and dd = ||d||_M^2 (the root that avoids
// cancellation for either sign of sd).
inline double boundary_step(double delta, double ss, double sd, double dd) {
  const double room = delta * delta - ss;
  const double root = std::sqrt(std::max(0.0, sd * sd + dd * room));
  return sd >= 0.0 ? room / (sd + root) : (root - sd) / dd;
}

// Whether the step is taken: its actual reduction exceeds eta0 x the model's.
inline bool accepts_step(double actual, double predicted) { return actual > kEta0 * predicted; }

// No further progress is representable: the trust region has shrunk to nothing.
// (LIBLINEAR also stops when both reductions fall below 1e-12 |f|; that would end
// a fit whose tolerance asks for more before the gradient rule or the gap could
// meet it.)
inline bool out_of_progress(double actual, double predicted) { return !(std::fabs(actual) > 0.0) && !(predicted > 0.0); }

// Rejected steps shrink delta at least by sigma2; this bounds their number.
inline int step_budget(int max_epochs) { return 10 * max_epochs + 100; }

// The radius after a step of M-norm s_norm from f to f_trial (g.s = gs) whose
// quadratic model predicted `predicted` and which reduced f by `actual`.
inline double next_radius(double delta, double s_norm, double actual, double predicted, double gs, double f_trial,
                          double f) {
  // The step length that minimises the quadratic through f, g.s and f_trial.
  const double curvature_gap = f_trial - f - gs;
  const double alpha = curvature_gap <= 0.0 ? kSigma3 : std::max(kSigma1, -0.5 * (gs / curvature_gap));
  if (actual < kEta0 * predicted) return std::min(std::max(alpha, kSigma1) * s_norm, kSigma2 * delta);
  if (actual < kEta1 * predicted) return std::max(kSigma1 * delta, std::min(alpha * s_norm, kSigma2 * delta));
  if (actual < kEta2 * predicted) return std::max(kSigma1 * delta, std::min(alpha * s_norm, kSigma3 * delta));
  return std::max(delta, std::min(alpha * s_norm, kSigma3 * delta));
}

// What a record of iterate w needs: f(w), ||g(w)||, the sum of the paired dual
// point's dual values and ||w - g||^2 = ||w(alpha)||^2 (read only when certified).
struct IterateSums {
  double primal = 0.0;
  double gradient_norm = 0.0;
  double dual_sum = 0.0;
  double dual_weights_squared = 0.0;
};

// Appends the record of iterate w to result.history, calls on_epoch, and returns
// whether the stopping rule holds (result.converged). Certified (everything
// penalised, or a free intercept's repaired dual point, whose D the caller passes
// whole as dual_sum, NaN where it made none): D(alpha) = dual_sum - 0.5
// ||w(alpha)||^2 with w(alpha) = w - g, and
// the fit stops on gap <= tol * P(w); otherwise on LIBLINEAR's ||g(w)|| <= tol *
// ||g(0)||, with NaN for dual and gap (primal_newton_solver.cpp explains the certificate). A
// primal or gradient that is not finite throws FitDiverged: no model comes out of
// a fit whose arithmetic overflowed.
inline bool record_iterate(FitResult& result, const SolverParameters& parameters, bool certified, double seconds,
                           double first_gradient_norm, const IterateSums& sums) {
  // The trust region only accepts decreases, so f cannot run away; a non-finite
  // value means the arithmetic overflowed, and the weights mean nothing.
  if (!std::isfinite(sums.primal) || !std::isfinite(sums.gradient_norm))
    throw FitDiverged("the primal Newton fit's objective turned non-finite after " + std::to_string(result.epochs) +
                      " iterations (f = " + number_text(sums.primal) + ", ||g|| = " +
                      number_text(sums.gradient_norm) + "); no model is returned. Scale the features or lower C");
  EpochRecord record;
  record.epoch = result.epochs;
  record.seconds = seconds;
  record.primal = sums.primal;
  record.gradient_norm = sums.gradient_norm;
  if (certified) {
    record.dual = sums.dual_sum - 0.5 * sums.dual_weights_squared;
    record.gap = record.primal - record.dual;
    result.converged = record.gap <= parameters.tol * record.primal;
  } else {
    record.dual = record.gap = std::numeric_limits<double>::quiet_NaN();
    result.converged = record.gradient_norm <= parameters.tol * first_gradient_norm;
  }
  result.history.push_back(record);
  if (parameters.on_epoch) parameters.on_epoch(record);
  return result.converged;
}

struct CgStart {
  double zr = 0.0;  // r^T M^-1 r: ||r||^2 in M^-1's norm
  double dd = 0.0;  // ||d||_M^2
};

struct CgAdvance {
  double zr = 0.0;
  double rr = 0.0;  // ||r||^2
  double sd = 0.0;  // <s, d>_M
  double dd = 0.0;
};

// Steihaug's truncated CG for H s = -g within ||s||_M <= delta, preconditioned by
// M, stopping at sqrt(r.M^-1 r) <= forcing sqrt(g.M^-1 g), at ||r|| <= target
// after a step (cg_target), at the boundary, or on a direction of non-positive
// curvature (possible without a penalty), which descends all the way to the
// boundary. Returns the CG iterations; the backend holds s and the residual r =
// -g - H s. The M-norm products of s and d that the boundary test reads come from
// the sweeps that change s and d.
//
// `target` may also be a function of the model's value at w + s, for a model
// that is the objective itself (a constant Hessian), whose value after the solve
// is f's there: m(s) = f + g.s + 0.5 s.H s, which each CG step lowers by 0.5
// alpha r.M^-1 r (alpha = r.M^-1 r / d.H d; r.d = r.M^-1 r since r is orthogonal
// to the previous directions), so known without a product. `f` is m(0).
template <typename Backend, typename Target>
int conjugate_gradients(Backend& backend, double delta, double forcing, const Target& target, double f,
                        std::size_t width) {
  const CgStart start = backend.cg_start();
  double zr = start.zr;
  double dd = start.dd;
  double ss = 0.0, sd = 0.0;  // ||s||_M^2 and <s, d>_M
  const double stop = forcing * std::sqrt(zr);
  const int limit = cg_iteration_limit(width);
  int iterations = 0;
  while (iterations < limit) {
    if (std::sqrt(zr) <= stop) break;
    ++iterations;
    const double curvature = backend.cg_curvature();
    if (!(curvature > 0.0)) {
      backend.cg_to_boundary(boundary_step(delta, ss, sd, dd));
      break;
    }
    const double step = zr / curvature;
    const double ss_next = ss + step * (2.0 * sd + step * dd);  // ||s + step d||_M^2
    if (std::sqrt(ss_next) > delta) {
      backend.cg_to_boundary(boundary_step(delta, ss, sd, dd));
      break;
    }
    const CgAdvance next = backend.cg_advance(step, zr);
    f -= 0.5 * step * zr;
    sd = next.sd;
    dd = next.dd;
    ss = ss_next;
    zr = next.zr;
    if (std::sqrt(next.rr) <= target(f)) break;
  }
  return iterations;
}

template <typename Backend>
int conjugate_gradients(Backend& backend, double delta, double forcing, double target, std::size_t width) {
  return conjugate_gradients(backend, delta, forcing, [target](double) { return target; }, 0.0, width);
}

struct TrialStep {
  double gs = 0.0;       // g.s
  double sr = 0.0;       // s.r: with it the model's reduction -(g.s + 0.5 s.H s) = -0.5 (g.s - s.r)
  double f_trial = 0.0;  // f(w + s)
  double s_norm = 0.0;   // ||s||_M
};

// The outer iterations from the recorded iterate w of value f, until the backend's
// record says stop, max_epochs accepted steps, the step budget, or no progress is
// representable. `width`: the weights (CG's iteration limit).
template <typename Backend>
void trust_region_iterations(Backend& backend, FitResult& result, int max_epochs, double f, std::size_t width) {
  backend.update_preconditioner();
  // Delta_0 = ||g||_{M^-1}: the trust region's norm is M's.
  double delta = backend.initial_radius();
  const double start_gradient_norm = backend.gradient_norm();
  int steps_left = step_budget(max_epochs);
  bool first_step = true;
  while (result.epochs < max_epochs && steps_left-- > 0) {
    conjugate_gradients(backend, delta, cg_forcing(backend.gradient_norm(), start_gradient_norm),
                        backend.cg_target(f), width);
    const TrialStep trial = backend.try_step();
    const double predicted = -0.5 * (trial.gs - trial.sr);
    const double actual = f - trial.f_trial;
    if (first_step) delta = std::min(delta, trial.s_norm);  // Algorithm 1: Delta_0 no larger than the first step
    first_step = false;
    delta = next_radius(delta, trial.s_norm, actual, predicted, trial.gs, trial.f_trial, f);
    if (accepts_step(actual, predicted)) {
      f = trial.f_trial;
      backend.accept_step();
      ++result.epochs;
      if (backend.record(result, f)) break;
      backend.progress(result);
      backend.update_preconditioner();
    }
    if (out_of_progress(actual, predicted)) break;
  }
}

}  // namespace snapml::detail::trust_region
