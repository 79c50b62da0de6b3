// What the four loss structs share: the feasible interval type and the two
// closed-form coordinate steps of LIBLINEAR's dual solvers, written once with the
// variation as data (Hsieh et al. 2008, "A dual coordinate descent method for
// large-scale linear SVM"; Ho & Lin 2012, "Large-scale linear support vector
// regression").
//
// Notation of every loss header (docs/algorithms.md):
//   primal  P(w)     = sum_i C_i * loss(y_i, w.x_i) + 0.5 * ||w||^2
//   dual    D(alpha) = sum_i dual_value(y_i, alpha_i, C_i) - 0.5 * ||w(alpha)||^2,
//           w(alpha) = sum_i alpha_i * coefficient(y_i) * x_i
// where coefficient(y) is y for classification and 1 for regression.
//
// A coordinate step maximises the dual over alpha_i alone. With CoCoA+ (Ma, Smith,
// Jaggi et al. 2015) the local sub-problem scales the quadratic term by sigma'
// (sigma' = K workers; 1 for plain SDCA), so the step sees sigma' * ||x_i||^2:
//   max_a  dual_value(y, a, C) - (a - alpha) * coefficient(y) * margin
//          - 0.5 * sigma' * ||x_i||^2 * (a - alpha)^2
// where `margin` is v.x_i for the worker's current local vector v (the shared w
// plus sigma' times the worker's change; v = w when sigma' = 1).
#pragma once

#include <cmath>
#include <type_traits>

#include "snapml/host_device.h"

namespace snapml::losses {

// kDualDimension (contract.h) of a loss with one dual variable per class of the
// data (the multinomial loss).
inline constexpr int kOnePerClass = -1;

// The run-time parameters a loss struct is built from (its static `from`): each
// loss reads those it has and ignores the others.
struct LossParameters {
  double epsilon = 0.0;             // squared loss: the insensitive zone p
  double newton_tolerance = 1e-11;  // logistic: the inner Newton iteration's stop
};

// Closed interval [lower, upper] that alpha must stay in (upper may be +inf).
struct DualInterval {
  double lower;
  double upper;
};

SNAPML_HOST_DEVICE SNAPML_INLINE double clamp_to(double value, double lower, double upper) {
  return value < lower ? lower : (value > upper ? upper : value);
}

// SVM-style classification step (LIBLINEAR's solve_l2r_l1l2_svc). The dual is
//   max_a  a - 0.5 * diag * a^2 - ...,   0 <= a <= upper_bound,
// whose gradient along alpha_i, negated, is G = y*margin - 1 + diag*alpha, and whose
// curvature is Q = sigma'*||x||^2 + diag. The exact step is the Newton step
// clipped to the box; hinge and squared hinge differ only in (diag, upper_bound).
SNAPML_HOST_DEVICE SNAPML_INLINE double svc_gradient(double y, double alpha, double margin, double diag) {
  return y * margin - 1.0 + diag * alpha;
}

SNAPML_HOST_DEVICE SNAPML_INLINE double svc_step(double y, double alpha, double margin,
                                                 double scaled_sq_norm, double diag,
                                                 double upper_bound) {
  const double gradient = svc_gradient(y, alpha, margin, diag);
  const double curvature = scaled_sq_norm + diag;
  // An empty row with diag 0 (hinge) has a linear sub-problem: go to the end the
  // gradient points to.
  if (curvature <= 0.0) return gradient < 0.0 ? upper_bound : (gradient > 0.0 ? 0.0 : alpha);
  return clamp_to(alpha - gradient / curvature, 0.0, upper_bound);
}

// Shrinking for the SVM-style dual (Hsieh et al. 2008, section 3.2; LIBLINEAR's
// solve_l2r_l1l2_svc). A coordinate at a bound whose gradient G (above) points out
// of the box by more than the largest violation of the previous pass,
// [pg_min_old, pg_max_old], is likely to stay at that bound: it is left out of the
// next passes until the solver brings every coordinate back. Otherwise
// `projected` receives the projected gradient (0 at a bound G points out of), whose
// range over a pass measures how far the pass's coordinates are from optimal.
// Returns true when the coordinate is to be left out. A loss with kShrinkable
// (hinge, squared hinge) has the (diag, upper_bound) table svc_step uses.
SNAPML_HOST_DEVICE SNAPML_INLINE bool svc_shrinks(double gradient, double alpha, double upper_bound,
                                                  double pg_max_old, double pg_min_old, double& projected) {
  projected = 0.0;
  if (alpha <= 0.0) {
    if (gradient > pg_max_old) return true;
    if (gradient < 0.0) projected = gradient;
  } else if (alpha >= upper_bound) {
    if (gradient < pg_min_old) return true;
    if (gradient > 0.0) projected = gradient;
  } else {
    projected = gradient;
  }
  return false;
}

// Whether a loss struct is shrinkable (kShrinkable: svc_shrinks with its diag and
// upper_bound).
template <typename Loss, typename = void>
struct is_shrinkable : std::false_type {};
template <typename Loss>
struct is_shrinkable<Loss, std::void_t<decltype(Loss::kShrinkable)>> : std::bool_constant<Loss::kShrinkable> {};

// Whether a loss is exactly 0 wherever y * margin >= 1 (kZeroBeyondMarginOne): the
// hinge and the squared hinge. The duality-gap pass skips the rows it can prove
// are there (snapml/impl/objectives.h, MarginBounds).
template <typename Loss, typename = void>
struct is_zero_beyond_margin_one : std::false_type {};
template <typename Loss>
struct is_zero_beyond_margin_one<Loss, std::void_t<decltype(Loss::kZeroBeyondMarginOne)>>
    : std::bool_constant<Loss::kZeroBeyondMarginOne> {};

// Whether a loss is not smooth (kNonSmooth: the hinge's kink at margin 1), so
// that its dual's coordinate steps converge sublinearly and the last iterate
// wanders near the optimum; the dual fit then also certifies an average of its
// iterates (snapml/impl/cocoa_round.h, IterateAverage) and ends on the better one.
template <typename Loss, typename = void>
struct is_non_smooth : std::false_type {};
template <typename Loss>
struct is_non_smooth<Loss, std::void_t<decltype(Loss::kNonSmooth)>> : std::bool_constant<Loss::kNonSmooth> {};

// Whether a loss's margin is a log-odds (kHasProbabilities): the logistic loss
// is the negative log-likelihood of P(y | x) = sigmoid(y * margin), so its models
// predict probabilities (Model::predict_proba); the others' margins are scores.
template <typename Loss, typename = void>
struct has_probabilities : std::false_type {};
template <typename Loss>
struct has_probabilities<Loss, std::void_t<decltype(Loss::kHasProbabilities)>>
    : std::bool_constant<Loss::kHasProbabilities> {};

// Support-vector-regression step (LIBLINEAR's solve_l2r_l1l2_svr). The dual is
//   max_b  y*b - p*|b| - 0.5 * lambda * b^2 - ...,   -upper_bound <= b <= upper_bound,
// with G = margin - y + lambda*b and curvature Q = sigma'*||x||^2 + lambda. The
// |b| kink splits the line in two: the Newton step of the b > 0 side (derivative
// G + p at b) is taken when it lands at b > 0, the b < 0 side's (G - p) when it
// lands at b < 0; when neither does, the minimum sits on the kink, b = 0.
SNAPML_HOST_DEVICE SNAPML_INLINE double svr_step(double y, double beta, double margin,
                                                 double scaled_sq_norm, double p, double lambda,
                                                 double upper_bound) {
  const double gradient = margin - y + lambda * beta;
  const double curvature = scaled_sq_norm + lambda;
  const double gradient_positive = gradient + p;  // derivative of the -objective for b > 0
  const double gradient_negative = gradient - p;  // ... for b < 0
  double next;
  if (curvature <= 0.0) {
    // Linear sub-problem (empty row, L1 loss): a corner or stay.
    if (gradient_positive < 0.0) next = upper_bound;
    else if (gradient_negative > 0.0) next = -upper_bound;
    else next = 0.0;
  } else if (gradient_positive < curvature * beta) {
    next = beta - gradient_positive / curvature;
  } else if (gradient_negative > curvature * beta) {
    next = beta - gradient_negative / curvature;
  } else {
    next = 0.0;
  }
  return clamp_to(next, -upper_bound, upper_bound);
}

// loss(y, m), d/dm loss(y, m) and d2/dm2 loss(y, m) (the generalized second
// derivative where it jumps) at one margin m: what the primal Newton solver reads
// of a row (primal_terms.h).
struct PrimalTerms {
  double value;
  double derivative;
  double curvature;
};

// x * log(x) with the limit 0 at x = 0.
SNAPML_HOST_DEVICE SNAPML_INLINE double x_log_x(double x) { return x > 0.0 ? x * std::log(x) : 0.0; }

}  // namespace snapml::losses
