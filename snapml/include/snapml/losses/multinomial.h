// Multinomial (softmax) logistic loss: scikit-learn's LogisticRegression for more
// than two classes (its default, multi_class="multinomial").
//
//   primal  sum_i C_i [log sum_k exp(m_ik) - m_i,y_i] + 0.5 ||W||^2,  m_ik = w_k.x_i
//   dual    max  sum_i C_i H(p_i) - 0.5 ||sum_i x_i a_i^T||^2,
//           a_i = C_i (e_y_i - p_i), p_i in the probability simplex,
//           H(p) = -sum_k p_k log p_k
// (the conjugate of log-sum-exp is the negative entropy on the simplex). The
// primal point W gives the dual point with p_i = softmax(m_i) (alpha_ik = -C_i (p_ik
// - y_ik)), and sum_i x_i a_i^T = W - G with G the gradient when every weight is
// penalised: the same certificate as the scalar losses (docs/algorithms.md).
//
// One dual variable per class and row (kDualDimension = kOnePerClass): no scalar
// solver takes it (dispatch.h's with_loss refuses it); the primal Newton solver
// does (snapml/src/primal/multinomial_objective.cpp). With two classes it is the logistic loss
// on w_1 - w_0 and train() trains it as that, as scikit-learn does.
#pragma once

#include <algorithm>
#include <cmath>

#include "snapml/losses/common.h"

namespace snapml::losses {

struct MultinomialLoss {
  static constexpr const char* kName = "multinomial";
  static constexpr bool kIsClassification = true;
  static constexpr int kDualDimension = kOnePerClass;
  static constexpr bool kHasProbabilities = true;  // common.h, has_probabilities

  static MultinomialLoss from(const LossParameters&) { return {}; }

  // p = softmax(margins), k < classes; returns log sum_k exp(margins_k), both
  // computed around the largest margin so that nothing overflows. p may be
  // margins itself (the GPU's rows compute it in place). Host and device: the
  // GPU Newton solver's rows (cuda/src/primal/kernels/class_rows.cu) run this code.
  SNAPML_HOST_DEVICE static double softmax(const double* margins, int classes, double* p) {
    double top = margins[0];
    for (int k = 1; k < classes; ++k) top = margins[k] > top ? margins[k] : top;
    double sum = 0.0;
    for (int k = 0; k < classes; ++k) sum += (p[k] = std::exp(margins[k] - top));
    for (int k = 0; k < classes; ++k) p[k] /= sum;
    return top + std::log(sum);
  }
  // -sum_k p_k log p_k (0 log 0 = 0).
  SNAPML_HOST_DEVICE static double entropy(const double* p, int classes) {
    double sum = 0.0;
    for (int k = 0; k < classes; ++k) sum -= x_log_x(p[k]);
    return sum;
  }
};

}  // namespace snapml::losses
