// A free (unpenalised) intercept in the dual solver (sdca_cpu.cpp; docs/algorithms.md,
// "A free intercept").
//
// The problem is scikit-learn's: P(w, b) = sum_i C_i loss(y_i, w.x_i + b) + 0.5 ||w||^2
// with b free. Its dual is LIBLINEAR's with one more constraint,
//   max D(alpha) = sum_i dual_value(alpha_i) - 0.5 ||w(alpha)||^2  s.t.  s(alpha) = sum_i c(y_i) alpha_i = 0,
// which coordinate steps alone cannot keep (every step moves s). The solver takes it
// by the method of multipliers (Hestenes 1969, Powell 1969; Rockafellar 1976): an
// epoch is exact coordinate ascent on the augmented dual
//   L(alpha; b0) = D(alpha) - b0 s(alpha) - 0.5 B^2 s(alpha)^2,
// whose coordinate steps are LIBLINEAR's with the constant column of value B
// (intercept_scaling, weight v = B s: w(alpha)'s intercept weight, kept by every
// step as with -B) and every margin shifted by b0. Between rounds the multiplier
// moves, b0 += B^2 s = B v (`recentre`). In the primal this is the proximal point
// method on the intercept: each round's problem is P(w, b) + (b - b0)^2 / (2 B^2),
// whose intercept is b = b0 + B v; its fixed point has s = 0 and alpha optimal for
// D - b0 s, the constrained dual's optimality conditions with b0 the intercept.
// The certificate. The dual bound needs a feasible alpha, and s(alpha) is not 0: the
// gap pass makes it so by moving the heavier class's alphas towards 0 by the same
// factor f (classification: if s > 0, alpha'_i = f alpha_i for y_i = +1 with
// f = 1 - s / S_+, which stays in [0, C_i]; regression: alpha'_i = alpha_i - s/n).
// With delta = alpha' - alpha and u = sum_i delta_i c_i x_i,
//   ||w + u||^2 = ||w||^2 + 2 sum_i delta_i c_i w.x_i + ||u||^2,  ||u|| <= sum_i |delta_i| ||x_i||,
// so D(alpha') >= D_lb = sum_i dual_value(alpha'_i) - 0.5 ||w||^2 - sum_i delta_i c_i w.x_i
//                        - 0.5 (sum_i |delta_i| ||x_i||)^2,
// every term known from the one pass (w.x_i its margins without the intercept) and a
// pass over alpha; and by weak duality D_lb <= D(alpha') <= P(w*, b*) <= P(w, b). The
// gap P(w, b) - D_lb therefore certifies the free-intercept fit as the plain gap
// certifies LIBLINEAR's, and tends to it as s -> 0 (the correction is O(|s|)).
// The intercept for w. Any b gives a primal bound P(w, b) >= P*, and the rounds'
// b = b0 + B v is a poor one: the multiplier overshoots and comes back (text-like
// 160k x 400k rows at two threads: b -0.83 at the first certificate where the
// best for w is -0.04, -1.08 against -0.29 at the fourth), so the primal rose and
// fell by 1e-3 of itself between certificates while the dual rose steadily. The
// certificate's pass keeps each row's margin w.x_i and minimises the
// one-dimensional convex sum_i C_i loss(y_i, w.x_i + b) from the iterate's b by
// the primal solver's line search along Newton's step (each evaluation a pass
// over the margins, not the rows' entries; one to three a certificate): its
// primal is P(w, b') <= P(w, b), the model the fit returns is (w, b'), and the
// solver moves the multiplier so that the next round's centre b0 is b'
// (SdcaCpuSolver::keep_certified; the proximal point method from the best
// intercept for w rather than from the last round's). The same fit then stops
// after 8 epochs where it took 10 or 11 (docs/benchmarks/cpu.md, 9.7).
#pragma once

#include <cstdint>

#include "rows/resident_rows.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml::detail {

// Whether the dual solver trains `parameters` with a free intercept.
inline bool has_free_intercept(const SolverParameters& parameters) {
  return !parameters.penalise_intercept && parameters.intercept_scaling != 0.0;
}

class FreeIntercept {
 public:
  FreeIntercept() = default;
  // `column`: B, the intercept column's value; `offset`: b0.
  FreeIntercept(double column, double offset) : column_(column), offset_(offset) {}

  // b0, added to every margin besides B v (StepContext::margin_offset).
  double offset() const { return offset_; }
  // b = b0 + B v, v = weights[bias_index] = B s(alpha).
  double intercept(const double* weights, std::int32_t bias_index) const {
    return offset_ + column_ * weights[bias_index];
  }
  // The multiplier update between rounds: b0 += B^2 s = B v.
  void recentre(const double* weights, std::int32_t bias_index) { offset_ += column_ * weights[bias_index]; }
  // The multiplier that makes the intercept b (so that the next recentre makes b
  // the next round's centre b0): b0 = b - B v.
  void move_to(double b, const double* weights, std::int32_t bias_index) {
    offset_ = b - column_ * weights[bias_index];
  }

 private:
  double column_ = 1.0;
  double offset_ = 0.0;
};

// The certificate of a free-intercept fit, and the intercept it certifies.
struct FreeInterceptSums {
  ObjectiveSums sums;
  double intercept = 0.0;  // b, where sums.loss is taken
};

// The certificate's sums of a free-intercept fit over resident rows (the rows,
// then passes over their margins and alpha): `loss` = sum_i C_i loss(y_i, w.x_i +
// b) at the intercept b that Newton's steps from the iterate's `intercept` reach
// for w (above, "The intercept for w"), `dual` = D_lb + 0.5 ||w||^2 (combine()
// subtracts 0.5 ||w||^2, w without the intercept weight). `weights` has
// n_features + 1 entries, the last ignored; `alpha` and `squared_norms` (||x_i||^2
// + B^2) one per row in the rows' order; `margins` room for one per row (w.x_i).
FreeInterceptSums free_intercept_sums(const ResidentRows& rows, const SolverParameters& parameters,
                                      const double* weights, std::int32_t n_features, double intercept,
                                      const double* alpha, const double* squared_norms, int threads,
                                      double* margins);

}  // namespace snapml::detail
