// Squared (epsilon-insensitive) loss: ridge regression when epsilon = 0, and
// LIBLINEAR's L2-loss support vector regression otherwise (-s 11 primal /
// -s 12 dual, L2R_L2LOSS_SVR_DUAL; the command line passes LIBLINEAR's p = 0.1).
//
//   primal  C_i * max(0, |y_i - w.x_i| - p)^2          (ridge: C_i * (y_i - w.x_i)^2)
//   dual    max  sum_i (y_i b_i - p |b_i| - b_i^2 / (4 C_i)) - 0.5 * ||sum_i b_i x_i||^2,
//           b_i free (w = sum_i b_i x_i: the label does not multiply x_i)
//   step    G = margin - y + b/(2C),  Q = sigma'*||x||^2 + 1/(2C);
//           b <- b - (G + p)/Q if that is > 0, else b - (G - p)/Q if that is < 0,
//           else 0 (the kink of |b|). With p = 0 this is the closed form
//           b <- b - G/Q of ridge regression.
// (Ho & Lin 2012, "Large-scale linear support vector regression", JMLR.)
#pragma once

#include <cmath>

#include "snapml/losses/common.h"

namespace snapml::losses {

struct SquaredLoss {
  static constexpr const char* kName = "squared";
  static constexpr bool kIsClassification = false;
  static constexpr int kDualDimension = 1;
  double epsilon = 0.0;  // p: residuals within +-p cost nothing

  static SquaredLoss from(const LossParameters& parameters) { return SquaredLoss{parameters.epsilon}; }

  SNAPML_HOST_DEVICE static double diag(double C) { return 0.5 / C; }  // LIBLINEAR's lambda
  SNAPML_HOST_DEVICE static double upper_bound(double) { return HUGE_VAL; }

  SNAPML_HOST_DEVICE static double coefficient(double) { return 1.0; }
  SNAPML_HOST_DEVICE double loss(double y, double margin) const {
    const double excess = std::fabs(y - margin) - epsilon;
    return excess > 0.0 ? excess * excess : 0.0;
  }
  SNAPML_HOST_DEVICE double dual_value(double y, double beta, double C) const {
    return y * beta - epsilon * std::fabs(beta) - 0.5 * diag(C) * beta * beta;
  }
  SNAPML_HOST_DEVICE DualInterval interval(double C) const {
    return {-upper_bound(C), upper_bound(C)};
  }
  SNAPML_HOST_DEVICE double initial_alpha(double) const { return 0.0; }
  SNAPML_HOST_DEVICE double step(double y, double beta, double margin, double sq_norm, double C,
                                 double sigma) const {
    return svr_step(y, beta, margin, sigma * sq_norm, epsilon, diag(C), upper_bound(C));
  }
  // The primal Newton solver's derivatives (contract.h, is_primal_loss): with
  // r = margin - y, d/dm = 2 sign(r) max(0, |r| - p), and the generalized second
  // derivative 2 outside the zone |r| <= p, 0 inside (LIBLINEAR's -s 11). Ridge's
  // (p = 0) is 2 everywhere, r = 0 included: a row whose target is 0 still
  // curves the loss at w = 0, where the zone's test would drop it from the first
  // Hessian (and the solver takes ridge's Hessian as constant: hessian_is_constant).
  SNAPML_HOST_DEVICE double primal_derivative(double y, double margin) const {
    const double residual = margin - y;
    const double excess = std::fabs(residual) - epsilon;
    if (excess <= 0.0) return 0.0;
    return residual > 0.0 ? 2.0 * excess : -2.0 * excess;
  }
  SNAPML_HOST_DEVICE double primal_curvature(double y, double margin) const {
    return epsilon == 0.0 || std::fabs(margin - y) > epsilon ? 2.0 : 0.0;
  }
  // Optimality pairs w with b = 2C * sign(r) * max(0, |r| - p), r = y - margin.
  SNAPML_HOST_DEVICE double alpha_from_margin(double y, double margin, double C) const {
    const double residual = y - margin;
    const double excess = std::fabs(residual) - epsilon;
    if (excess <= 0.0) return 0.0;
    return residual > 0.0 ? 2.0 * C * excess : -2.0 * C * excess;
  }
};

}  // namespace snapml::losses
