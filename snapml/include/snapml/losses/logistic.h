// Logistic loss: L2-regularised logistic regression (LIBLINEAR -s 7, L2R_LR_DUAL).
//
//   primal  C_i * log(1 + exp(-y_i * w.x_i))
//   dual    max  -sum_i [a_i log a_i + (C_i - a_i) log(C_i - a_i) - C_i log C_i]
//                - 0.5 * ||sum_i a_i y_i x_i||^2,                0 < a_i < C_i
//   step    no closed form: minimise over z in (0, C) the 1-D sub-problem
//             f(z) = 0.5 a (z - alpha)^2 + b (z - alpha) + z log z + (C - z) log(C - z)
//           with a = sigma'*||x||^2, b = y*margin, by Newton's method as in Yu, Huang
//           & Lin 2011 ("Dual coordinate descent methods for logistic regression and
//           maximum entropy models", Machine Learning 85), Algorithm 4.
//
// Why the iteration is safe: f'(z) = a(z - alpha) + b + log(z / (C - z)) is
// increasing, and concave on (0, C/2]. The paper first picks the half that holds
// the root (the sign of f'(C/2)) and, by the symmetry z <-> C - z, always solves
// for the coordinate whose root lies in (0, C/2]. There Newton's tangent lies above
// f', so an iterate left of the root stays left and climbs to it monotonically; an
// iterate right of it lands left after one step. A step that would leave (0, C)
// through 0 is replaced by shrinking z tenfold. Solving for the smaller of z and
// C - z also keeps the logarithm accurate near the bound C.
#pragma once

#include <cmath>

#include "snapml/losses/common.h"

namespace snapml::losses {

struct LogisticLoss {
  static constexpr const char* kName = "logistic";
  static constexpr bool kIsClassification = true;
  static constexpr int kDualDimension = 1;
  static constexpr bool kHasProbabilities = true;  // common.h, has_probabilities
  // Stop when |f'(z)| falls below this. The solver starts loose and tightens it
  // epoch by epoch, as LIBLINEAR does (its innereps); the default is an exact step.
  double newton_tolerance = 1e-11;
  int max_newton_steps = 100;

  static LogisticLoss from(const LossParameters& parameters) {
    LogisticLoss loss;
    loss.newton_tolerance = parameters.newton_tolerance;
    return loss;
  }

  SNAPML_HOST_DEVICE static double coefficient(double y) { return y; }
  SNAPML_HOST_DEVICE double loss(double y, double margin) const {
    const double t = -y * margin;
    return softplus(t, std::exp(-std::fabs(t)));
  }
  // C log C - a log a - (C - a) log(C - a) written as -a log(a / C) - (C - a)
  // log((C - a) / C): C times the entropy of a / C, two logarithms instead of
  // three (the certificate takes it at every row). The share nearer 1 goes
  // through log1p of the other (log(1 - s) = log1p(-s)), which keeps its digits
  // where the plain quotient would round next to 1.
  SNAPML_HOST_DEVICE double dual_value(double, double alpha, double C) const {
    const double rest = C - alpha;
    if (!(alpha > 0.0) || !(rest > 0.0)) return 0.0;  // a bound: the entropy is 0
    const double share = alpha / C, rest_share = rest / C;
    const double log_share = share <= 0.5 ? std::log(share) : std::log1p(-rest_share);
    const double log_rest_share = rest_share <= 0.5 ? std::log(rest_share) : std::log1p(-share);
    return -alpha * log_share - rest * log_rest_share;
  }
  SNAPML_HOST_DEVICE DualInterval interval(double C) const { return {0.0, C}; }
  // LIBLINEAR's start: strictly inside (0, C), where the entropy is differentiable.
  SNAPML_HOST_DEVICE double initial_alpha(double C) const {
    const double small = 1e-3 * C;
    return small < 1e-8 ? small : 1e-8;
  }
  SNAPML_HOST_DEVICE double step(double y, double alpha, double margin, double sq_norm, double C,
                                 double sigma) const {
    const double a = sigma * sq_norm;
    const double b = y * margin;
    // f'(C/2) >= 0: the root is in (0, C/2], solve for z = alpha. Otherwise for
    // z = C - alpha, whose sub-problem has b negated.
    const bool solve_for_alpha = 0.5 * a * (C - 2.0 * alpha) + b >= 0.0;
    const double sign = solve_for_alpha ? 1.0 : -1.0;
    const double z_old = solve_for_alpha ? alpha : C - alpha;
    double z = z_old;
    if (z > 0.5 * C) z *= 0.1;  // start in (0, C/2], where the iteration is monotone
    const double z_floor = 1e-20 * C;
    if (z < z_floor) z = z_floor;  // alpha rounded onto a bound: re-enter the interior
    double gradient = a * (z - z_old) + sign * b + std::log(z / (C - z));
    if (z == z_old && std::fabs(gradient) <= newton_tolerance) return alpha;  // already optimal
    for (int k = 0; k < max_newton_steps && std::fabs(gradient) > newton_tolerance; ++k) {
      const double curvature = a + C / ((C - z) * z);
      const double next = z - gradient / curvature;
      if (next == z) break;  // no representable progress left
      z = next > 0.0 ? next : 0.1 * z;
      gradient = a * (z - z_old) + sign * b + std::log(z / (C - z));
    }
    return solve_for_alpha ? z : C - z;
  }
  // The primal Newton solver's terms (primal_terms.h) from one exp and one log1p,
  // e = exp(-|t|), t = -y m, which never overflows: loss = max(t, 0) + log1p(e),
  // sigmoid(t) = 1 / (1 + e) for t > 0 and e / (1 + e) otherwise, d/dm loss =
  // -y sigmoid(t), and d2/dm2 loss = sigmoid(t) sigmoid(-t) = e / (1 + e)^2
  // (symmetric in t; exact in both tails, where 1 - sigmoid would cancel).
  SNAPML_HOST_DEVICE PrimalTerms primal_terms(double y, double margin) const {
    const double t = -y * margin;
    const double e = std::exp(-std::fabs(t));
    const double r = 1.0 / (1.0 + e);
    const double s = t > 0.0 ? r : e * r;  // sigmoid(t) = sigmoid(-y m)
    return {softplus(t, e), -y * s, e * r * r};
  }
  // The derivatives in the margin (contract.h, is_primal_loss), from primal_terms.
  SNAPML_HOST_DEVICE double primal_derivative(double y, double margin) const {
    return primal_terms(y, margin).derivative;
  }
  SNAPML_HOST_DEVICE double primal_curvature(double y, double margin) const {
    return primal_terms(y, margin).curvature;
  }
  // Optimality pairs w with alpha = C * sigmoid(-y*margin), kept inside (0, C).
  SNAPML_HOST_DEVICE double alpha_from_margin(double y, double margin, double C) const {
    const double alpha = C / (1.0 + std::exp(y * margin));
    const double inset = initial_alpha(C);
    return clamp_to(alpha, inset, C - inset);
  }

 private:
  // log(1 + e^t) given e = exp(-|t|): max(t, 0) + log1p(e), without overflow.
  SNAPML_HOST_DEVICE static double softplus(double t, double e) { return (t > 0.0 ? t : 0.0) + std::log1p(e); }
};

}  // namespace snapml::losses
