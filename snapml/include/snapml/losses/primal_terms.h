// What the primal Newton solver (snapml/src/tron.cpp) reads of a primal loss
// (contract.h, is_primal_loss) at one row's margin, in one call.
//
// The solver's passes over the rows evaluate the loss, its derivative and its
// curvature at every row (the line search), and the derivative, the curvature and
// the paired dual value (the gradient and its certificate). Evaluated member by
// member, the logistic loss pays five transcendental functions a row for the
// gradient (two exp, three log) and four for a line-search point; on a small
// problem they are a third of the fit. primal_terms and paired_dual_value below
// read them from one exp and one log1p where the loss provides the fused form, and
// from the members otherwise (the same values as before, bit for bit).
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "snapml/host_device.h"
#include "snapml/losses/logistic.h"

namespace snapml::losses {

// loss(y, m), d/dm loss(y, m) and d2/dm2 loss(y, m) (the generalized second
// derivative where it jumps) at one margin m.
struct PrimalTerms {
  double value;
  double derivative;
  double curvature;
};

// The logistic loss's terms from e = exp(-|t|), t = -y m, which never overflows:
// loss = max(t, 0) + log1p(e), sigmoid(t) = 1 / (1 + e) for t > 0 and e / (1 + e)
// otherwise, derivative = -y sigmoid(t) and curvature = sigmoid(t) sigmoid(-t) =
// e / (1 + e)^2 (symmetric in t; exact in both tails, where 1 - sigmoid cancels).
SNAPML_HOST_DEVICE SNAPML_INLINE PrimalTerms logistic_terms(double y, double margin) {
  const double t = -y * margin;
  const double e = std::exp(-std::fabs(t));
  const double r = 1.0 / (1.0 + e);
  const double s = t > 0.0 ? r : e * r;  // sigmoid(t) = sigmoid(-y m)
  return {(t > 0.0 ? t : 0.0) + std::log1p(e), -y * s, e * r * r};
}

template <typename Loss>
SNAPML_HOST_DEVICE PrimalTerms primal_terms(const Loss& loss, double y, double margin) {
  if constexpr (std::is_same_v<Loss, LogisticLoss>)
    return logistic_terms(y, margin);
  else
    return {loss.loss(y, margin), loss.primal_derivative(y, margin), loss.primal_curvature(y, margin)};
}

// dual_value(y, alpha, C) at the dual point paired with the margin,
// alpha = -C loss'(m) coefficient(y) (the gradient's certificate, tron.cpp), given
// the margin's terms. For a differentiable loss Fenchel-Young holds with equality
// there, so the value is C (loss(m) - m loss'(m)); for the logistic loss that is
// C (log(1 + e^-u) + u sigmoid(-u)), u = y m: the binary entropy of
// alpha / C = sigmoid(-u) times C, without its three logarithms. (Where u is very
// negative the two terms cancel to about e^u (1 - u); the absolute error stays
// near |u| times the rounding of one term, far below any gap a fit reports.)
template <typename Loss>
SNAPML_HOST_DEVICE double paired_dual_value(const Loss& loss, double y, double margin, double C,
                                            const PrimalTerms& terms) {
  if constexpr (std::is_same_v<Loss, LogisticLoss>)
    return C * (terms.value - margin * terms.derivative);
  else
    return loss.dual_value(y, -C * terms.derivative * Loss::coefficient(y), C);
}

}  // namespace snapml::losses
