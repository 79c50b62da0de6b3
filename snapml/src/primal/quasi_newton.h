// The pieces of the primal solver's quasi-Newton method (primal_newton_solver.cpp, used for the
// multinomial loss; docs/algorithms.md, "Multinomial"): limited-memory BFGS
// directions and a line search that costs no pass over the data.
//
// Margins are linear in the weights, so once u = X p is known (one pass) the
// objective along w + t p is a function of m + t u, whose value and first two
// derivatives cost one sweep over the n x K margins (NewtonObjective::along_line)
// and no further pass. The line is then minimised (nearly) exactly by safeguarded
// one-dimensional Newton steps, and an iteration costs two passes, X p and the
// gradient's X^T D, against the two per function evaluation, rejected trial
// steps included, of a line search that evaluates f and g together (scipy's
// L-BFGS-B under scikit-learn's lbfgs).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "newton_objective.h"

namespace snapml::detail {

// The inverse-Hessian approximation of L-BFGS from the last `pairs` pairs (s, y)
// of steps and gradient changes: Nocedal & Wright, "Numerical Optimization" (2nd
// ed. 2006), Algorithm 7.4 (the two-loop recursion) with the initial matrix
// gamma I, gamma = s.y / y.y of the newest pair (their eq. 7.20). Each pair's
// update is fused with the next pair's inner product (one sweep over the weights
// each; the last update with g's, the direction's slope), and inner products are
// summed in fixed blocks with `threads`: the same bits for any thread count,
// identical on every rank.
//
// The pairs are kept in single precision: the recursion streams 2m + 1 sweeps of
// pairs from memory (a third of a news20 fit's time, as fast with one thread as
// with two: memory-bound), and floats halve their bytes. The matrix stays the
// exact L-BFGS matrix of the rounded pairs (s~, y~), rho = 1 / s~.y~ from the
// rounded values, so it is symmetric positive definite whenever every s~.y~ > 0
// (the skip rule below tests the rounded pair, and refuses one that overflows a
// float, whose sums are inf or NaN) and the direction descends; only
// the secant equations hold for the rounded pairs instead of the exact ones, a
// relative change of 2^-24 in curvature estimates that are rough anyway. The
// iterates, the line search, the gradient and the certificate stay in double.
//
// Measured and not kept: the recursion on the coefficients of the basis (s_i,
// y_i, g) from their inner products (Chen et al., "Large-scale L-BFGS using
// MapReduce", NIPS 2014), two sweeps a direction instead of 2m + 1; with the
// newest pair's 4m inner products and g's 2m it was 1.5-2x slower than this
// recursion on news20's 1.24M weights (docs/benchmarks/primal.md).
class LbfgsMemory {
 public:
  LbfgsMemory(std::size_t width, int pairs, int threads);

  // Keeps (s, y) unless s.y <= eps y.y (the skip rule of L-BFGS-B: Byrd, Lu,
  // Nocedal & Zhu 1995; a convex objective has s.y >= 0, and a pair along a
  // direction the objective is flat in carries no curvature); the oldest pair
  // goes when the memory is full. Returns whether it kept the pair. The pair is
  // kept in single precision (the class comment says why), its s.y and y.y
  // summed from the kept values.
  bool remember(const std::vector<double>& s, const std::vector<double>& y);
  // The same with y = g - previous formed in the rounding sweep (the same bits
  // as remember(s, g - previous), one sweep fewer over the weights).
  bool remember_change(const std::vector<double>& s, const std::vector<double>& g, const std::vector<double>& previous);
  // out = -H g (-g while no pair is kept); returns g.out, summed in the last sweep.
  double direction(const std::vector<double>& g, std::vector<double>& out);
  // Drops every pair (after a direction that did not descend).
  void forget() { count_ = 0; }
  bool empty() const { return count_ == 0; }

 private:
  // remember's body: y_j = y(j).
  template <typename Y>
  bool keep(const std::vector<double>& s, const Y& y);

  int threads_;
  std::size_t pairs_;
  std::vector<std::vector<float>> s_, y_;  // rounded to single precision
  std::vector<float> spare_s_, spare_y_;   // a pair being tested, swapped in when kept
  std::vector<double> rho_;    // 1 / s.y of each pair
  std::vector<double> alpha_;  // the first loop's coefficients
  double gamma_ = 1.0;         // s.y / y.y of the newest pair
  std::size_t newest_ = 0;     // slot of the newest pair
  std::size_t count_ = 0;      // pairs kept
};

// phi(t) = f(w + t p) with its first two derivatives in t (the whole objective:
// the loss summed over the ranks and the penalty).
using LineFunction = std::function<LineValues(double t)>;

struct LineStep {
  double t = 0.0;      // 0: no step decreased f (rounding); the fit has converged as far as it can
  double value = 0.0;  // phi(t)
  int evaluations = 0;
};

// A near minimiser of the convex phi over t > 0, from phi(0) = value0 and
// phi'(0) = slope0 < 0: Newton steps on phi' from `start` (0 or the
// quasi-Newton step's natural 1), kept inside the bracket of the sign changes
// of phi' seen so far (halving it when a Newton step leaves it), until |phi'(t)|
// <= 0.01 |phi'(0)| with Armijo's sufficient decrease phi(t) <= phi(0) + 1e-4 t
// phi'(0), or after 20 evaluations (then the best decreasing point seen). Where
// phi(t) and phi(0) differ by rounding only, the decrease is the slopes'
// trapezoid t (phi'(0) + phi'(t)) / 2 instead (quasi_newton.cpp says why).
LineStep minimise_along_line(const LineFunction& phi, double value0, double slope0, double start);

}  // namespace snapml::detail
