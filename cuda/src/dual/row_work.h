// The per-row work of the GPU dual solver's epoch (epoch_schedule.h, "hot and
// cold"), written once: the CUDA kernels (cuda/src/dual/*.cu) call these functions
// from each thread block, and the host executor of tests/support/gpu_epoch_model.*
// calls them row by row, so CI runs the arithmetic the device runs. Loops take
// (first, stride): a block's threads pass (threadIdx.x, blockDim.x) and reduce their
// partial sums; the host passes (0, 1).
//
// Columns are hot (slot[j] >= 0: their weight is a primal variable moved by the hot
// step) or cold (slot[j] < 0: their weight is w_K(alpha), moved by the rows'
// coordinate steps). The intercept, when there is one (bias_value != 0), is hot,
// in the last slot.
#pragma once

#include <cstdint>
#include <type_traits>

#include "snapml/csr_view.h"
#include "snapml/host_device.h"
#include "snapml/losses/logistic.h"
#include "snapml/losses/squared.h"

namespace snapml::cuda::dual {

// A row's state, packed so that its loads are one 32-byte sector (issue 33, item
// 5: the kernel read target, cost, norm and alpha from four arrays).
struct alignas(32) RowState {
  double alpha = 0.0;
  double cost = 0.0;       // C_i; 0: the row is absent from both problems
  double curvature = 0.0;  // the step's ||x_i||^2 over the cold columns with their ESO factors
  double target = 0.0;     // +-1, or the regression target
};

// The columns' split and what a row reads of w: v has n_features + 1 entries,
// the intercept's weight last.
struct ColumnSplit {
  const std::int32_t* slot = nullptr;  // per column: its hot slot, or -1 (cold)
  std::int32_t bias_index = 0;         // n_features
  double bias_value = 0.0;             // intercept_scaling; 0 without intercept
  std::int32_t bias_slot = -1;         // the intercept's hot slot (the last), -1 without
};

// This thread's share of x_i . v over all the row's entries (the intercept is
// added by the caller once). `load(column)` reads v (on the device: through L2).
template <typename Load>
SNAPML_HOST_DEVICE SNAPML_INLINE double partial_row_margin(const CsrView& x, std::int64_t row, int first, int stride,
                                                           Load load) {
  double sum = 0.0;
  const std::int64_t end = x.row_end(row);
  for (std::int64_t k = x.row_begin(row) + first; k < end; k += stride)
    sum += static_cast<double>(x.values[k]) * load(x.col_indices[k]);
  return sum;
}

// A coordinate step against the cold columns (TPA-SCD; the hot weights are held):
// the loss's exact step at the row's cold curvature from `margin` = x_i . v (all
// columns, the intercept included). Writes alpha and returns the scale
// sigma' (alpha_new - alpha) coefficient(y) of the row's update of the cold columns.
template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE double cold_step(const Loss& loss, RowState& row, double margin, double sigma) {
  if (!(row.cost > 0.0)) return 0.0;
  const double old_alpha = row.alpha;
  const double new_alpha = loss.step(row.target, old_alpha, margin, row.curvature, row.cost, sigma);
  row.alpha = new_alpha;
  return new_alpha == old_alpha ? 0.0 : sigma * (new_alpha - old_alpha) * Loss::coefficient(row.target);
}

// This thread's share of a row's update of the cold columns: add(column, scale x_ij)
// for each cold entry (on the device an atomic add; every cold column is in at most
// about n / R of a chunk's rows, so the adds rarely meet).
template <typename Add>
SNAPML_HOST_DEVICE SNAPML_INLINE void scatter_cold(const CsrView& x, std::int64_t row, const std::int32_t* slot,
                                                   double scale, int first, int stride, Add add) {
  const std::int64_t end = x.row_end(row);
  for (std::int64_t k = x.row_begin(row) + first; k < end; k += stride) {
    const std::int32_t column = x.col_indices[k];
    if (slot[column] < 0) add(column, scale * static_cast<double>(x.values[k]));
  }
}

// The shipped schedule (the negative control): the update of every column of the
// row, the hot ones too, and the intercept's by the caller.
template <typename Add>
SNAPML_HOST_DEVICE SNAPML_INLINE void scatter_all(const CsrView& x, std::int64_t row, double scale, int first,
                                                  int stride, Add add) {
  const std::int64_t end = x.row_end(row);
  for (std::int64_t k = x.row_begin(row) + first; k < end; k += stride)
    add(x.col_indices[k], scale * static_cast<double>(x.values[k]));
}

// This thread's share of x_i^hot . d (d by hot slot; the intercept by the caller).
template <typename Load>
SNAPML_HOST_DEVICE SNAPML_INLINE double partial_hot_dot(const CsrView& x, std::int64_t row, const std::int32_t* slot,
                                                        int first, int stride, Load load) {
  double sum = 0.0;
  const std::int64_t end = x.row_end(row);
  for (std::int64_t k = x.row_begin(row) + first; k < end; k += stride) {
    const std::int32_t s = slot[x.col_indices[k]];
    if (s >= 0) sum += static_cast<double>(x.values[k]) * load(s);
  }
  return sum;
}

// This thread's share of a row's entries in the hot columns: add(slot, x_ij) for
// each (the caller scales and accumulates; the intercept by the caller).
template <typename Add>
SNAPML_HOST_DEVICE SNAPML_INLINE void for_hot_entries(const CsrView& x, std::int64_t row, const std::int32_t* slot,
                                                      int first, int stride, Add add) {
  const std::int64_t end = x.row_end(row);
  for (std::int64_t k = x.row_begin(row) + first; k < end; k += stride) {
    const std::int32_t s = slot[x.col_indices[k]];
    if (s >= 0) add(s, static_cast<double>(x.values[k]));
  }
}

// The dual's curvature -phi_i''(a) at a (0 where it is linear), and whether a sits
// where the step does not answer a change of the margin (a bound of the box; the
// kink of the insensitive zone).
template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE double dual_curvature(const Loss& loss, double alpha, double C, bool* flat) {
  const losses::DualInterval box = loss.interval(C);
  *flat = alpha <= box.lower || alpha >= box.upper;
  if constexpr (std::is_same_v<Loss, losses::LogisticLoss>) {
    return C / (alpha * (C - alpha));
  } else if constexpr (std::is_same_v<Loss, losses::SquaredLoss>) {
    if (loss.epsilon > 0.0 && alpha == 0.0) *flat = true;
    return Loss::diag(C);
  } else {
    return loss.diag(C);
  }
}

// What the hot step reads of a row at margin z (hot_newton.h): the row's loss seen
// through its own cold response. The cold pass that follows steps alpha_i at the
// row's cold curvature q (RowState::curvature) against whatever margin the hot
// weights leave, so the hot step minimises, per row, the envelope
//   e(z) = max_a [ phi(a) - a c z - q/2 (a - alpha)^2 ]
// (phi the row's dual term, c its coefficient): C loss(z) where the row has no
// cold entry (q = 0, Fenchel), and flatter where its cold entries will absorb part
// of a margin change (the Moreau envelope of C loss with parameter q, less a term
// in alpha; docs/algorithms.md, "GPU dual"). Its derivative is -a* c and its
// curvature c^2 / (q + h(a*)) (h the dual's curvature; 0 at an active bound), a*
// the loss's own coordinate step from alpha at margin z, the code the cold pass
// runs. Without the envelope (the loss itself), rows whose cold entries are few
// and their own (a click log's rare values) made the alternation of hot steps and
// cold passes take 105 to 112 epochs on the Criteo sample where it takes 17 to 19.
struct EnvelopeTerms {
  double value = 0.0;
  double derivative = 0.0;
  double curvature = 0.0;
};

template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE EnvelopeTerms envelope_terms(const Loss& loss, const RowState& row, double margin) {
  if (!(row.cost > 0.0)) return {};
  const double c = Loss::coefficient(row.target);
  const double q = row.curvature;
  const double a = loss.step(row.target, row.alpha, margin, q, row.cost, 1.0);
  const double move = a - row.alpha;
  EnvelopeTerms t;
  t.value = loss.dual_value(row.target, a, row.cost) - a * c * margin - 0.5 * q * move * move;
  t.derivative = -a * c;
  bool flat = false;
  const double weight = c * c / (q + dual_curvature(loss, a, row.cost, &flat));
  t.curvature = flat || !(weight < 1e300) ? 0.0 : weight;
  return t;
}

// One row's share of the line search along the hot direction: the envelope, its
// derivative and curvature in t at margin m + t z.
struct LineTerms {
  double value = 0.0;
  double slope = 0.0;
  double curvature = 0.0;
};

template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE LineTerms line_terms(const Loss& loss, const RowState& row, double margin,
                                                      double direction, double t) {
  const EnvelopeTerms e = envelope_terms(loss, row, margin + t * direction);
  return {e.value, e.derivative * direction, e.curvature * direction * direction};
}

SNAPML_HOST_DEVICE SNAPML_INLINE void add_line_terms(LineTerms& into, const LineTerms& from) {
  into.value += from.value;
  into.slope += from.slope;
  into.curvature += from.curvature;
}

// The dual point the optimality conditions pair with margin m for a differentiable
// loss, alpha = -C_i loss'(m) coefficient(y_i) (coefficient(y)^2 = 1): the
// certificate of the primal point (objectives.h; the Newton solver's), feasible for
// every loss here (the smoothed hinge's lies in [0, C], the hinge's box).
template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE double paired_alpha(const Loss& loss, const RowState& row, double margin) {
  if (!(row.cost > 0.0)) return 0.0;
  return -row.cost * loss.primal_derivative(row.target, margin) * Loss::coefficient(row.target);
}

// One row's share of the certificate at margin m (objectives.h): C_i loss(m) and
// dual_value(alpha_i) of the loss certified, and, for the smoothed hinge, the same
// two of the surrogate (smoothed_hinge.h: the continuation compares them).
struct RowSums {
  double loss = 0.0;
  double dual = 0.0;
  double surrogate_loss = 0.0;
  double surrogate_dual = 0.0;
};

template <typename Loss, typename Surrogate>
SNAPML_HOST_DEVICE SNAPML_INLINE RowSums row_sums(const Loss& loss, const Surrogate& surrogate, const RowState& row,
                                                  double margin) {
  if (!(row.cost > 0.0)) return {};
  return {row.cost * loss.loss(row.target, margin), loss.dual_value(row.target, row.alpha, row.cost),
          row.cost * surrogate.loss(row.target, margin), surrogate.dual_value(row.target, row.alpha, row.cost)};
}

// The certificate's dual values of a row at (1 - theta) alpha + theta alpha^v (its
// search between the two, hybrid_backend.h): the certified loss's and the stepping
// loss's, added into sums[0] and sums[1].
template <typename Loss, typename Surrogate>
SNAPML_HOST_DEVICE SNAPML_INLINE void add_mixed_dual(const Loss& loss, const Surrogate& surrogate, const RowState& row,
                                                     double paired, double theta, double* sums) {
  if (!(row.cost > 0.0)) return;
  const double a = (1.0 - theta) * row.alpha + theta * paired;
  sums[0] += loss.dual_value(row.target, a, row.cost);
  sums[1] += surrogate.dual_value(row.target, a, row.cost);
}

SNAPML_HOST_DEVICE SNAPML_INLINE void add_row_sums(RowSums& into, const RowSums& from) {
  into.loss += from.loss;
  into.dual += from.dual;
  into.surrogate_loss += from.surrogate_loss;
  into.surrogate_dual += from.surrogate_dual;
}

}  // namespace snapml::cuda::dual
