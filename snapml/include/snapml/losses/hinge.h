// Hinge loss: the L1-loss linear SVM (LIBLINEAR -s 3, L2R_L1LOSS_SVC_DUAL).
//
//   primal  C_i * max(0, 1 - y_i * w.x_i)
//   dual    max  sum_i alpha_i - 0.5 * ||sum_i alpha_i y_i x_i||^2,   0 <= alpha_i <= C_i
//   step    alpha <- clip(alpha - G / Q, 0, C),  G = y*margin - 1,  Q = sigma'*||x||^2
// (Hsieh et al. 2008, ICML.) It is the squared hinge's step with diag = 0 and
// upper bound C instead of diag = 1/(2C) and no upper bound: see common.h.
#pragma once

#include "snapml/losses/common.h"

namespace snapml::losses {

struct HingeLoss {
  static constexpr const char* kName = "hinge";
  static constexpr bool kIsClassification = true;
  static constexpr int kDualDimension = 1;
  static HingeLoss from(const LossParameters&) { return {}; }

  // LIBLINEAR's table entries for this loss.
  SNAPML_HOST_DEVICE static double diag(double) { return 0.0; }
  SNAPML_HOST_DEVICE static double upper_bound(double C) { return C; }

  SNAPML_HOST_DEVICE static double coefficient(double y) { return y; }
  SNAPML_HOST_DEVICE double loss(double y, double margin) const {
    const double slack = 1.0 - y * margin;
    return slack > 0.0 ? slack : 0.0;
  }
  SNAPML_HOST_DEVICE double dual_value(double, double alpha, double) const { return alpha; }
  SNAPML_HOST_DEVICE DualInterval interval(double C) const { return {0.0, upper_bound(C)}; }
  SNAPML_HOST_DEVICE double initial_alpha(double) const { return 0.0; }
  SNAPML_HOST_DEVICE double step(double y, double alpha, double margin, double sq_norm, double C,
                                 double sigma) const {
    return svc_step(y, alpha, margin, sigma * sq_norm, diag(C), upper_bound(C));
  }
  static constexpr bool kShrinkable = true;           // common.h, svc_shrinks
  static constexpr bool kZeroBeyondMarginOne = true;  // loss(y, m) = 0 for y*m >= 1
  static constexpr bool kNonSmooth = true;            // the kink at y*m = 1 (common.h)
  // The dual point the optimality conditions pair with a primal w (warm start from
  // weights): alpha = C where the hinge is active, 0 elsewhere.
  SNAPML_HOST_DEVICE double alpha_from_margin(double y, double margin, double C) const {
    return y * margin < 1.0 ? C : 0.0;
  }
};

}  // namespace snapml::losses
