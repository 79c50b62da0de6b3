// Penalty l1 and the elastic net for the multinomial loss in the primal solver:
// orthant-wise limited-memory quasi-Newton (OWL-QN; Andrew & Gao, "Scalable
// training of L1-regularized log-linear models", ICML 2007), the multinomial L1
// model scikit-learn's saga trains, where one-vs-rest L1 models answered other
// probabilities (iris at C = 0.5: 0.41 apart).
//
//   F(W) = f(W) + a sum_j |w_j|,   f(W) = sum_i C_i loss_i + 0.5 (1 - a) ||W||^2
//
// (a = l1_ratio; the free intercepts in neither norm). F is smooth inside each
// orthant, so L-BFGS runs on f's curvature pairs along the pseudo-gradient (F's
// minimum-norm sub-gradient) with each step kept in the orthant it starts in: a
// weight at zero moves only to the side the steepest descent -pg takes it (its
// entry of the direction is dropped where the sign disagrees), and a trial
// point's entries that cross zero are set to zero, so weights reach exact zeros.
// Andrew & Gao drop every disagreeing entry; off zero the orthant is the weight's
// own sign, which the crossings' clipping keeps, so here only the zeros' entries
// are dropped and the quasi-Newton direction keeps the rest (its slope pg.p
// checked negative, else it starts again from -pg). Dropping them all cost 1.5 to
// 6 times the iterations (a 4-class 400 x 12 set at l1_ratio 0.01, C = 10: 1,096
// against 46, where penalty l2 alone takes 24; digits at l1_ratio 1, C = 2:
// 1,215 against 285; docs/benchmarks/primal.md).
// The step's length is Armijo's backtracking on F from 1 (the first step from
// ||pg||^-1): the projected path is not linear in the weights, so each trial
// costs its margins' pass (the L-BFGS driver's line search, which reads no data,
// does not apply); most steps take the first trial. A trial whose crossings undo
// the descent (pg . (trial - w) >= 0) is halved too.
// Free intercepts are moved to their optimum after each step, as in lbfgs().
//
// Certificate (record): the paired dual point's weights v = X^T alpha (made to
// meet the intercepts' constraints by free_intercept_dual), through the
// conjugate of a |.| + (1 - a)/2 (.)^2, which is (1/(2(1 - a))) soft(v, a)^2 per
// weight; for a = 1 (pure L1) it is 0 on ||v||_inf <= a and infinite beyond, so
// alpha is scaled by theta = min(1, a / ||v||_inf) first, which keeps every
// constraint sum_i alpha_ik = 0 and, as the entropy is concave and 0 at a vertex,
// at least theta times the dual sum (Ndiaye et al., "Gap safe screening rules
// for sparsity enforcing penalties", JMLR 18, 2017, for the scaling). The fit
// stops on gap <= tol P; where the intercepts are free but some class weighs
// nothing (no such point), on ||pg|| <= tol ||pg(0)||.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../common/omp_threads.h"
#include "primal_newton_solver.h"
#include "quasi_newton.h"

namespace snapml::detail {

namespace {

constexpr double kArmijo = 1e-4;  // sufficient decrease, as the line search's
// A pass each; all of them only where no decrease is representable (the fit ends).
constexpr int kHalvings = 40;

}  // namespace

double PrimalNewtonSolver::l1_term(const std::vector<double>& w) const {
  if (!(l1_ > 0.0)) return 0.0;
  return l1_ * sum_over(l1_end_, [&](std::size_t j) { return std::fabs(w[j]); });
}

void PrimalNewtonSolver::pseudo_gradient(const std::vector<double>& w, const std::vector<double>& g,
                                         std::vector<double>& out) const {
  out.resize(g.size());
  for (std::size_t j = 0; j < g.size(); ++j) {
    if (j >= l1_end_) {
      out[j] = g[j];
    } else if (w[j] > 0.0) {
      out[j] = g[j] + l1_;
    } else if (w[j] < 0.0) {
      out[j] = g[j] - l1_;
    } else {
      out[j] = g[j] + l1_ < 0.0 ? g[j] + l1_ : (g[j] - l1_ > 0.0 ? g[j] - l1_ : 0.0);
    }
  }
}

void PrimalNewtonSolver::penalty_dual(const std::vector<double>& v, double factor, double dual_sum,
                                      double& dual_sum_out, double& dual_weights_squared) const {
  dual_weights_squared = 0.0;
  if (!(factor > -std::numeric_limits<double>::infinity())) {  // no feasible point: no bound
    dual_sum_out = -std::numeric_limits<double>::infinity();
    return;
  }
  if (!(l1_ > 0.0)) {  // penalty l2 (r = 1): 0.5 ||v||^2
    dual_sum_out = factor * dual_sum;
    dual_weights_squared = sum_over(v.size(), [&](std::size_t j) { return v[j] * v[j]; });
    return;
  }
  const double smooth = 1.0 - l1_;
  if (smooth > 0.0) {
    // 0.5 dual_weights_squared = sum_j soft(v_j, a)^2 / (2 (1 - a)) on the L1
    // weights, v_j^2 / (2 r_j) on the others (a penalised intercept has r = 1 - a,
    // a free one v = 0).
    dual_sum_out = factor * dual_sum;
    dual_weights_squared = sum_over(v.size(), [&](std::size_t j) {
      const double shrunk = j < l1_end_ ? std::max(std::fabs(v[j]) - l1_, 0.0) : v[j];
      return shrunk * shrunk / smooth;
    });
    return;
  }
  double largest = 0.0;
  for (std::size_t j = 0; j < l1_end_; ++j) largest = std::max(largest, std::fabs(v[j]));
  const double theta = largest > l1_ ? l1_ / largest : 1.0;
  dual_sum_out = theta * factor * dual_sum;
}

void PrimalNewtonSolver::orthant_lbfgs(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                       std::vector<double>& g, double f, double first_gradient_norm) {
  const std::size_t width = w.size();
  detail::LbfgsMemory memory(width, kLbfgsPairs, threads_);
  std::vector<double> pg, p, trial(width), trial_margins(margins.size()), step(width), previous;
  pseudo_gradient(w, g, pg);
  double F = f + l1_term(w);
  while (result.epochs < parameters_.max_epochs) {
    memory.direction(pg, p);
    // A weight at zero moves only to the steepest descent's side: its entry of
    // the other sign is dropped (on the L1 weights; the others are smooth).
    for (std::size_t j = 0; j < l1_end_; ++j)
      if (w[j] == 0.0 && p[j] * pg[j] >= 0.0) p[j] = 0.0;
    double slope = dot(pg, p);
    if (!(slope < 0.0)) {  // rounding spoilt the approximation: start it again from -pg
      memory.forget();
      memory.direction(pg, p);
      slope = dot(pg, p);
      if (!(slope < 0.0)) break;
    }
    double t = memory.empty() ? 1.0 / std::sqrt(-slope) : 1.0;  // -slope = ||pg||^2 there
    bool accepted = false;
    double f_trial = f;
    for (int halving = 0; halving < kHalvings && !accepted; ++halving, t *= 0.5) {
      double decrease = 0.0;  // pg . (trial - w), <= 0
      for (std::size_t j = 0; j < width; ++j) {
        double moved = w[j] + t * p[j];
        if (j < l1_end_) {
          // The orthant: w_j's sign, or -pg_j's at zero; a crossing stops at zero.
          const double side = w[j] != 0.0 ? w[j] : -pg[j];
          if (moved * side <= 0.0) moved = 0.0;
        }
        trial[j] = moved;
        decrease += pg[j] * (moved - w[j]);
      }
      if (!(decrease < 0.0)) continue;  // crossings undid the descent: a shorter step
      f_trial = value(trial, trial_margins);  // the trial's pass
      accepted = f_trial + l1_term(trial) <= F + kArmijo * decrease;
    }
    if (!accepted) break;  // no decrease is representable
    if (centred_) f_trial += centre_intercepts(trial, trial_margins, nullptr);
    for (std::size_t j = 0; j < width; ++j) step[j] = trial[j] - w[j];
    previous.swap(g);
    w.swap(trial);
    margins.swap(trial_margins);
    f = f_trial;
    F = f + l1_term(w);
    const double dual_sum = gradient(w, margins, g);
    memory.remember_change(step, g, previous);  // f's curvature: its gradients' change
    pseudo_gradient(w, g, pg);
    ++result.epochs;
    if (record(result, w, f, g, dual_sum, first_gradient_norm)) break;
    progress(result, w);
  }
}

}  // namespace snapml::detail
