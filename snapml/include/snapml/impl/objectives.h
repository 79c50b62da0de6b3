// The primal and dual objectives and the duality gap, computed in one place.
//
//   P(w)     = sum_i C_i loss(y_i, w.x_i) + 0.5 ||w||^2
//   D(alpha) = sum_i dual_value(y_i, alpha_i, C_i) - 0.5 ||w||^2,  w = w(alpha)
//   gap      = P(w) - D(alpha) >= P(w) - P(w*) >= 0   (weak duality)
//
// Over a row partition the two sums are additive, so a distributed run reduces
// the partial sums and adds the global ||w||^2 once (CoCoA+'s certificate).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/solver.h"

namespace snapml {

// A free intercept's dual constraint s(alpha) = sum_i c(y_i) alpha_i = 0 (the
// intercept's gradient), which a dual point paired with a primal iterate meets only
// at the optimum. The one move onto it that every certificate of a free intercept
// makes (SDCA's, dual/free_intercept.cpp; the primal Newton solver's,
// primal/scalar_objective.cpp; newGLMNET's, l1_objectives): classification scales
// the heavier side's alphas by 1 - shrink, shrink = |s| / S_heavy in [0, 1], which
// keeps each in its interval [0, C_i] (or [0, inf)); regression (c = 1, alpha
// unbounded) moves every active row's alpha by shift = -s / n.
struct DualRepair {
  int heavy_side = 0;   // classification: 0 for c = +1, 1 for c = -1
  double shrink = 0.0;  // classification: alpha'_i = (1 - shrink) alpha_i on the heavy side
  double shift = 0.0;   // regression: alpha'_i = alpha_i + shift
  bool moves() const { return shrink != 0.0 || shift != 0.0; }
};

// From the sides' sums: positive_sum = sum alpha_i over c = +1 (regression: every
// row), negative_sum over c = -1, rows the active rows (regression's n).
inline DualRepair dual_repair(bool classification, double positive_sum, double negative_sum, double rows) {
  DualRepair repair;
  const double s = positive_sum - negative_sum;
  if (classification) {
    repair.heavy_side = s > 0.0 ? 0 : 1;
    const double heavy = repair.heavy_side == 0 ? positive_sum : negative_sum;
    if (s != 0.0 && heavy > 0.0) repair.shrink = std::min(1.0, std::fabs(s) / heavy);
  } else if (rows > 0.0) {
    repair.shift = -s / rows;
  }
  return repair;
}

// How a row's target and cost follow from its label and weight.
struct RowTargets {
  bool classification = true;
  double positive_label = 1.0;
  double cost_positive = 1.0;  // C * class weight of the positive class
  double cost_negative = 1.0;

  static RowTargets from(const SolverParameters& p) {
    return {is_classification(p.loss), p.positive_label, p.C * p.class_weight_positive,
            p.C * p.class_weight_negative};
  }
  double target(double label) const {
    if (!classification) return label;
    return label == positive_label ? 1.0 : -1.0;
  }
  double cost(double target_value, float weight) const {
    const double class_cost = (!classification || target_value > 0.0) ? cost_positive : cost_negative;
    return class_cost * static_cast<double>(weight);
  }
};

struct ObjectiveSums {
  double loss = 0.0;  // sum_i C_i loss(y_i, w.x_i) over this rank's rows
  double dual = 0.0;  // sum_i dual_value(y_i, alpha_i, C_i) over this rank's rows
  std::int64_t rows_bounded = 0;  // rows whose loss MarginBounds proved 0 (no dot product)
};

// What lets a gap pass skip a row's dot product when its loss is provably 0 (the
// hinge and squared hinge, 0 wherever y * w.x >= 1). Each row keeps y_i * w.x_i
// from the pass that last computed it and the drift at that pass, where the drift
// is the sum over passes of ||w_t - w_(t-1)|| (the caller adds each pass's step with
// `moved_to`). By Cauchy-Schwarz and the triangle inequality
//   y_i * w_now.x_i >= margin_i - (drift_now - drift_i) * ||x_i||,
// so when the right side is at least 1 the loss is 0 without computing the margin:
// the sums are those of the full pass. `squared_norms`: ||x_i||^2 with the
// intercept's value squared, one per row of the source in visiting order (the
// solver's cached step curvatures; they must outlive the bounds). Rows far beyond
// the margin (most of an SVM's, late in a fit) are skipped until w has moved enough.
class MarginBounds {
 public:
  MarginBounds(const double* squared_norms, std::size_t n_rows);
  // Adds ||weights - the previous call's weights|| to the drift (nothing the first
  // time); call with the w of each pass, before the pass.
  void moved_to(const double* weights, std::size_t size);
  // Whether row i's loss is provably 0 at the current drift.
  bool beyond_one(std::size_t i) const {
    if (!(margin_[i] >= 1.0)) return false;  // never beyond once below: skip the sqrt
    return margin_[i] - (drift_ - stamp_[i]) * std::sqrt(squared_norms_[i]) >=
           1.0 + 1e-12 * (1.0 + std::fabs(margin_[i]));
  }
  void computed(std::size_t i, double y_margin) {
    margin_[i] = y_margin;
    stamp_[i] = drift_;
  }

 private:
  const double* squared_norms_;
  std::vector<double> margin_;  // -inf until computed: never "beyond one"
  std::vector<double> stamp_;
  std::vector<double> previous_;  // w at the last moved_to
  double drift_ = 0.0;
};

struct Objectives {
  double primal = 0.0;
  double dual = 0.0;
  double gap = 0.0;
};

// The end of a round, shared by the L2 solvers: appends the epoch's record to
// `result.history`, reports it to `parameters.on_epoch`, and returns whether the
// duality gap met tol (setting `result.converged`).
bool record_round(FitResult& result, const Objectives& objectives, double seconds,
                  const SolverParameters& parameters);

// Partial sums over the rows of `source` (one pass). `weights` has
// n_features + 1 entries (n_features: the global count, at least the source's),
// the last multiplying the constant `intercept_scaling`; `alpha` holds one entry
// per row of the source in visiting order, or is nullptr to leave `dual` at 0.
// `bounds` (hinge and squared hinge; ignored for the other losses), when not
// nullptr, skips the rows whose loss it proves 0 and records the margins it computes.
ObjectiveSums objective_sums(ChunkSource& source, const SolverParameters& parameters,
                             const double* weights, std::int32_t n_features, const double* alpha,
                             int threads, MarginBounds* bounds = nullptr);

// Objectives from global sums and the global weights (`size` entries), or their
// squared norm ||w||^2.
Objectives combine(const ObjectiveSums& sums, double squared_weight_norm);
Objectives combine(const ObjectiveSums& sums, const double* weights, std::int64_t size);

// P(w) of a single-process problem (weights as above), for tests and reports.
double primal_objective(ChunkSource& source, const SolverParameters& parameters,
                        const double* weights, std::int32_t n_features);

// Penalty L1: P(w) = ||w||_1 + sum_i C_i loss(y_i, w.x_i) (the intercept's weight
// in the norm, as LIBLINEAR), and the duality gap of the dual-scaling point
// (Massias, Gramfort & Salmon 2018; Ndiaye et al. 2017): alpha_i is the dual
// point each loss pairs with the margin, v = sum_i alpha_i c(y_i) x_i = -grad of
// the loss term, and theta = alpha / max(1, ||v||_inf) is dual feasible
// (||X^T theta||_inf <= 1, the conjugate of ||.||_1), so
//   D(theta) = sum_i dual_value(y_i, theta_i, C_i) <= P(w*) <= P(w)
// and gap = P(w) - D(theta) bounds the sub-optimality; it vanishes at the optimum,
// where ||v||_inf <= 1 (the KKT conditions). The elastic net (l1_ratio a < 1):
// P(w) = a ||w||_1 + (1-a)/2 ||w||^2 + the loss term, and alpha itself is the dual
// point, D(alpha) = sum_i dual_value(y_i, alpha_i, C_i) - g*(v) with the penalty's
// conjugate g*(v) = sum_j max(0, |v_j| - a)^2 / (2 (1-a)). A free intercept
// (!penalise_intercept, intercept_scaling != 0; scikit-learn's saga problem) is
// outside both norms, and its dual has the constraint sum_i alpha_i c(y_i) = 0:
// alpha is first moved onto it (the heavier class's alphas scaled down by one
// factor, or regression's shifted by their mean; objectives.cpp), v recomputed,
// and only the features' entries of v scaled or conjugated; the gap still vanishes
// at the optimum, where the intercept's gradient sum_i alpha_i c(y_i) is 0.
// Two passes over `source` (margins,
// then the dual values); `dual_point`, when not nullptr, receives theta (one per
// row in visiting order). `weights` as in objective_sums.
Objectives l1_objectives(ChunkSource& source, const SolverParameters& parameters,
                         const double* weights, std::int32_t n_features, double* dual_point,
                         int threads);

}  // namespace snapml
