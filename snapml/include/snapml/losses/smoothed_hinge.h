// The hinge loss smoothed by gamma: the surrogate the GPU dual solver steps on for
// the hinge (docs/algorithms.md, "GPU dual: hot columns"). Not a loss of its own
// (not in AllLosses): the fit certifies the hinge itself.
//
//   primal  C_i * l_g(y_i * w.x_i),  l_g(u) = 0 (u >= 1), (1 - u)^2 / (2 gamma)
//           (1 - gamma < u < 1), 1 - u - gamma / 2 (u <= 1 - gamma)
//   dual    max  sum_i (alpha_i - gamma alpha_i^2 / (2 C_i)) - 0.5 ||w(alpha)||^2,
//           0 <= alpha_i <= C_i
//   step    the hinge's clipped Newton step with diag gamma / C (common.h, svc_step)
// (Shalev-Shwartz & Zhang 2013, "Stochastic dual coordinate ascent methods for
// regularized loss minimization", JMLR 14, section 5.1: the smoothed hinge.)
//
// Why: the GPU solver moves the weights of the columns most rows share by Newton
// steps on the primal (a dense block, epoch_schedule.h), which the hinge's kink
// does not allow, and block coordinate descent on a non-smooth objective can stop
// short of its minimum. l_g is once differentiable with curvature 1/gamma on the
// band 1 - gamma < u < 1, and 0 <= hinge - l_g <= gamma/2, so
//   hinge gap(w, alpha) = smoothed gap(w, alpha) + sum_i C_i (hinge - l_g)(u_i)
//                         - gamma/2 sum_i alpha_i^2 / C_i:
// the certificate of the hinge is exact whatever gamma, and solving the smoothed
// problem while gamma falls (smoothed_hinge_continuation below) closes it.
#pragma once

#include "snapml/losses/common.h"

namespace snapml::losses {

struct SmoothedHingeLoss {
  double gamma = 1.0;

  SNAPML_HOST_DEVICE static double coefficient(double y) { return y; }
  SNAPML_HOST_DEVICE double diag(double C) const { return gamma / C; }
  SNAPML_HOST_DEVICE double loss(double y, double margin) const {
    const double slack = 1.0 - y * margin;
    if (slack <= 0.0) return 0.0;
    return slack < gamma ? 0.5 * slack * slack / gamma : slack - 0.5 * gamma;
  }
  SNAPML_HOST_DEVICE double dual_value(double, double alpha, double C) const {
    return alpha - 0.5 * diag(C) * alpha * alpha;
  }
  SNAPML_HOST_DEVICE DualInterval interval(double C) const { return {0.0, C}; }
  SNAPML_HOST_DEVICE double initial_alpha(double) const { return 0.0; }
  SNAPML_HOST_DEVICE double step(double y, double alpha, double margin, double sq_norm, double C,
                                 double sigma) const {
    return svc_step(y, alpha, margin, sigma * sq_norm, diag(C), C);
  }
  SNAPML_HOST_DEVICE double primal_derivative(double y, double margin) const {
    const double slack = 1.0 - y * margin;
    if (slack <= 0.0) return 0.0;
    return slack < gamma ? -y * slack / gamma : -y;
  }
  SNAPML_HOST_DEVICE double primal_curvature(double y, double margin) const {
    const double slack = 1.0 - y * margin;
    return slack > 0.0 && slack < gamma ? 1.0 / gamma : 0.0;
  }
  SNAPML_HOST_DEVICE double alpha_from_margin(double y, double margin, double C) const {
    return -C * primal_derivative(y, margin) * y;
  }
};

}  // namespace snapml::losses
