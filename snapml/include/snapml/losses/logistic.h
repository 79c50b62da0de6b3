// Logistic loss: L2-regularised logistic regression (LIBLINEAR -s 7, L2R_LR_DUAL).
//
//   primal  C_i * log(1 + exp(-y_i * w.x_i))
//   dual    max  -sum_i [a_i log a_i + (C_i - a_i) log(C_i - a_i) - C_i log C_i]
//                - 0.5 * ||sum_i a_i y_i x_i||^2,                0 < a_i < C_i
//   step    no closed form: minimise over z in (0, C) the 1-D sub-problem
//             f(z) = 0.5 a (z - alpha)^2 + b (z - alpha) + z log z + (C - z) log(C - z)
//           with a = sigma'*||x||^2, b = y*margin, by Newton's method after Yu, Huang
//           & Lin 2011 ("Dual coordinate descent methods for logistic regression and
//           maximum entropy models", Machine Learning 85), Algorithm 4, in whichever
//           of two variables makes f' nearer linear.
//
// f'(z) = a(z - alpha) + b + log(z / (C - z)) is increasing. As the paper does, the
// sign of f'(C/2) picks the half that holds the root, and by the symmetry
// z <-> C - z the step always solves for the coordinate whose root lies in
// (0, C/2] (which also keeps the logarithm accurate near the bound C). There f' is
// concave in z, and as a function of the log-odds u = log(z / (C - z)) (z = C
// sigmoid(u), u <= 0) it is g(u) = a(z(u) - alpha) + b + u, convex. So from any
// point Newton's step in z lands left of the root (the tangent of a concave
// function lies above it) and Newton's step in u lands right of it (below a convex
// one). The paper iterates in z alone, where the logarithm makes the climb from a
// start near 0 slow (from LIBLINEAR's 1e-8: eight steps a row in the first epoch
// of the click-log benchmark); in u the logarithm is linear. Each step takes the
// variable whose part of the curvature is larger: g'(u) = 1 + a z (C - z) / C,
// the 1 the logarithm's and the rest the quadratic's. The points seen bound the
// root on both sides (f' < 0 left of it, > 0 right of it), and a step that leaves
// those bounds bisects them in u instead; either step costs one exp or one log.
// Over a grid of a, b, C and alpha (1e-6 to 1e8, 1e-4 to 1e4, both signs, alpha
// from 0 to C) this takes 3.2 steps on average and at most 9, against 19 and 100
// (the step limit) in z alone; on the click log 1.9 in the first epoch from
// alpha = 0 (z alone from 1e-8: 7.8) and 2.0 later (2.5).
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
  // The cold start is alpha = 0, where w(alpha) = 0 needs no pass over the data.
  // LIBLINEAR starts at min(1e-3 C, 1e-8) instead, inside (0, C) where the
  // entropy is differentiable, and pays a pass to build w from it (on the click
  // log a serial pass as long as half an epoch). Neither the step nor the
  // certificate needs the interior: the step re-enters it from a bound (its
  // first iterate is the log-odds kLowestLogOdds), and the entropy is 0 there.
  SNAPML_HOST_DEVICE double initial_alpha(double) const { return 0.0; }
  SNAPML_HOST_DEVICE double step(double y, double alpha, double margin, double sq_norm, double C,
                                 double sigma) const {
    const double a = sigma * sq_norm;
    const double b = y * margin;
    // f'(C/2) >= 0: the root is in (0, C/2], solve for z = alpha. Otherwise for
    // z = C - alpha, whose sub-problem has b negated (and f'(C/2) its sign).
    const double at_half = 0.5 * a * (C - 2.0 * alpha) + b;
    const bool solve_for_alpha = at_half >= 0.0;
    const double sign = solve_for_alpha ? 1.0 : -1.0;
    const double z_old = solve_for_alpha ? alpha : C - alpha;
    // The point: z, C - z and the log-odds u = log(z / (C - z)), kept together.
    double z, rest, u, gradient;
    if (z_old >= 0.5 * C) {  // start at C/2, where f' = |f'(C/2)| >= 0 is known
      z = rest = 0.5 * C;
      u = 0.0;
      gradient = sign * at_half;
    } else if (z_old > kLowestShare * C) {
      z = z_old;
      rest = C - z_old;
      u = std::log(z / rest);
      gradient = sign * b + u;
      if (std::fabs(gradient) <= newton_tolerance) return alpha;  // already optimal
    } else {  // alpha rounded onto a bound: re-enter the interior
      u = kLowestLogOdds;
      set_from_log_odds(u, C, z, rest);
      gradient = a * (z - z_old) + sign * b + u;
    }
    // The root lies in [lower, upper] (log-odds); f'(C/2) >= 0 gives upper = 0.
    double lower = -HUGE_VAL, upper = 0.0;
    for (int k = 0; k < max_newton_steps && std::fabs(gradient) > newton_tolerance; ++k) {
      if (gradient < 0.0) lower = u; else upper = u;
      // f'' in u is 1 + spread, spread the quadratic's part: at most 1, the
      // logarithm rules and Newton goes in u, where it is linear; otherwise the
      // quadratic rules and Newton goes in z, where it is.
      const double spread = a * z * rest / C;
      if (spread <= 1.0) {
        const double next = u - gradient / (1.0 + spread);
        if (next == u) break;  // no representable progress left
        u = next >= lower && next <= upper ? next : 0.5 * (lower + upper);
        set_from_log_odds(u, C, z, rest);
      } else {
        double share = z - gradient / (a + C / (z * rest));
        if (share == z) break;
        if (!(share > 0.0)) share = 0.1 * z;  // the step left (0, C) through 0
        const double share_rest = C - share;
        const double next = std::log(share / share_rest);
        if (next >= lower && next <= upper) {
          u = next;
          z = share;
          rest = share_rest;
        } else {
          u = 0.5 * (lower + upper);
          set_from_log_odds(u, C, z, rest);
        }
      }
      gradient = a * (z - z_old) + sign * b + u;
    }
    return solve_for_alpha ? z : rest;
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
    const double inset = interior_inset(C);
    return clamp_to(alpha, inset, C - inset);
  }

 private:
  // How far inside (0, C) a dual variable paired with a margin is kept.
  SNAPML_HOST_DEVICE static double interior_inset(double C) {
    const double small = 1e-3 * C;
    return small < 1e-8 ? small : 1e-8;
  }
  static constexpr double kLowestShare = 1e-20;
  static constexpr double kLowestLogOdds = -46.051701859880914;  // log(1e-20)
  // z = C sigmoid(u) and C - z = C sigmoid(-u) for u <= 0, one exp and one division.
  SNAPML_HOST_DEVICE static void set_from_log_odds(double u, double C, double& z, double& rest) {
    const double e = std::exp(u);
    const double r = 1.0 / (1.0 + e);
    z = C * e * r;
    rest = C * r;
  }
  // log(1 + e^t) given e = exp(-|t|): max(t, 0) + log1p(e), without overflow.
  SNAPML_HOST_DEVICE static double softplus(double t, double e) { return (t > 0.0 ? t : 0.0) + std::log1p(e); }
};

}  // namespace snapml::losses
