// Squared hinge loss: the L2-loss linear SVM (LIBLINEAR -s 1, L2R_L2LOSS_SVC_DUAL).
//
//   primal  C_i * max(0, 1 - y_i * w.x_i)^2
//   dual    max  sum_i (alpha_i - alpha_i^2 / (4 C_i)) - 0.5 * ||sum_i alpha_i y_i x_i||^2,
//           alpha_i >= 0
//   step    alpha <- max(0, alpha - G / Q),  G = y*margin - 1 + alpha/(2C),
//           Q = sigma'*||x||^2 + 1/(2C)
// (Hsieh et al. 2008, ICML.) The diagonal term 1/(2C) comes from the conjugate of
// the square; it is the hinge's step with another (diag, upper bound) pair.
#pragma once

#include <cmath>

#include "snapml/losses/common.h"

namespace snapml::losses {

struct SquaredHingeLoss {
  static constexpr const char* kName = "squared_hinge";
  static constexpr bool kIsClassification = true;
  static constexpr int kDualDimension = 1;
  static SquaredHingeLoss from(const LossParameters&) { return {}; }

  SNAPML_HOST_DEVICE static double diag(double C) { return 0.5 / C; }
  SNAPML_HOST_DEVICE static double upper_bound(double) { return HUGE_VAL; }

  SNAPML_HOST_DEVICE static double coefficient(double y) { return y; }
  SNAPML_HOST_DEVICE double loss(double y, double margin) const {
    const double slack = 1.0 - y * margin;
    return slack > 0.0 ? slack * slack : 0.0;
  }
  SNAPML_HOST_DEVICE double dual_value(double, double alpha, double C) const {
    return alpha - 0.5 * diag(C) * alpha * alpha;
  }
  SNAPML_HOST_DEVICE DualInterval interval(double C) const { return {0.0, upper_bound(C)}; }
  SNAPML_HOST_DEVICE double initial_alpha(double) const { return 0.0; }
  SNAPML_HOST_DEVICE double step(double y, double alpha, double margin, double sq_norm, double C,
                                 double sigma) const {
    return svc_step(y, alpha, margin, sigma * sq_norm, diag(C), upper_bound(C));
  }
  static constexpr bool kShrinkable = true;           // common.h, svc_shrinks
  static constexpr bool kZeroBeyondMarginOne = true;  // loss(y, m) = 0 for y*m >= 1
  // The primal Newton solver's derivatives (contract.h, is_primal_loss). The loss
  // is once differentiable: its second derivative jumps at y*m = 1, where the
  // generalized Hessian takes 0 (Mangasarian 2002; LIBLINEAR's -s 2 uses the
  // active rows y*m < 1 only).
  SNAPML_HOST_DEVICE double primal_derivative(double y, double margin) const {
    const double slack = 1.0 - y * margin;
    return slack > 0.0 ? -2.0 * y * slack : 0.0;
  }
  SNAPML_HOST_DEVICE double primal_curvature(double y, double margin) const {
    return 1.0 - y * margin > 0.0 ? 2.0 : 0.0;
  }
  // Optimality pairs w with alpha = 2C * max(0, 1 - y*margin).
  SNAPML_HOST_DEVICE double alpha_from_margin(double y, double margin, double C) const {
    const double slack = 1.0 - y * margin;
    return slack > 0.0 ? 2.0 * C * slack : 0.0;
  }
};

}  // namespace snapml::losses
