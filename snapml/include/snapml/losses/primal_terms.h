// What the primal Newton solver (snapml/src/primal/primal_newton_solver.cpp) reads of a primal loss
// (contract.h, is_primal_loss) at one row's margin, in one call.
//
// The solver's passes over the rows evaluate the loss, its derivative and its
// curvature at every row (the line search), and the derivative, the curvature and
// the paired dual value (the gradient and its certificate). Evaluated member by
// member, the logistic loss pays four or five transcendental functions a row for
// the gradient (two exp and the entropy's logarithms) and four for a line-search
// point; on a small problem they were a third of the fit. primal_terms and paired_dual_value below
// read them from one exp and one log1p where the loss provides the fused form
// (LogisticLoss::primal_terms), and from the members otherwise.
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "snapml/host_device.h"
#include "snapml/losses/common.h"
#include "snapml/losses/logistic.h"

namespace snapml::losses {

// A loss that evaluates its terms together declares a member primal_terms(y, m)
// (the logistic loss: one exp and one log1p); the others are read member by member.
template <typename Loss, typename = void>
struct has_primal_terms : std::false_type {};
template <typename Loss>
struct has_primal_terms<Loss, std::void_t<decltype(std::declval<const Loss&>().primal_terms(0.0, 0.0))>>
    : std::true_type {};

template <typename Loss>
SNAPML_HOST_DEVICE PrimalTerms primal_terms(const Loss& loss, double y, double margin) {
  if constexpr (has_primal_terms<Loss>::value)
    return loss.primal_terms(y, margin);
  else
    return {loss.loss(y, margin), loss.primal_derivative(y, margin), loss.primal_curvature(y, margin)};
}

// dual_value(y, alpha, C) at the dual point paired with the margin,
// alpha = -C loss'(m) coefficient(y) (the gradient's certificate, primal_newton_solver.cpp), given
// the margin's terms. For a differentiable loss Fenchel-Young holds with equality
// there, so the value is C (loss(m) - m loss'(m)); for the logistic loss that is
// C (log(1 + e^-u) + u sigmoid(-u)), u = y m: the binary entropy of
// alpha / C = sigmoid(-u) times C, without its logarithms. (Where u is very
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
