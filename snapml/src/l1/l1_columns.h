// Internal: what the two L1 solvers share (snapml/src/l1/cd_l1_cpu.cpp, plain
// coordinate descent, and snapml/src/l1/glmnet_cpu.cpp, newGLMNET): each loss as a
// function of the folded margin, and the column-major copy of the rows.
//
// Writing m_i = c(y_i) w.x_i (c(y) = y for classification, 1 for regression) and
// x~_ij = c(y_i) x_ij, a coordinate j sees
//   dL/dw_j = sum_i x~_ij l'_i,   d2L/dw_j^2 = sum_i x~_ij^2 l''_i   (l = C_i loss, by m_i)
// with the intercept as the constant feature `intercept_scaling` at index
// n_features, penalised as a feature or free (l1_free_column; docs/algorithms.md
// "L1").
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/solver.h"

namespace snapml::detail {

// Each loss as a function of the folded margin m (and of the row's target t where
// kUsesTarget, the regression): its first and second derivatives, and the exact
// change of C * loss when m moves by delta. kCurvatureBound is sup l''(m) / C.
struct SquaredRows {  // C (t - m)^2: the lasso
  static constexpr bool kUsesTarget = true;
  static constexpr double kCurvatureBound = 2.0;
  static void derivatives(double m, double t, double C, double& first, double& second) {
    first = -2.0 * C * (t - m);
    second = 2.0 * C;
  }
  static double change(double m, double t, double C, double delta) {
    return C * delta * (delta - 2.0 * (t - m));  // (t - m - delta)^2 - (t - m)^2
  }
};

struct SquaredHingeRows {  // C max(0, 1 - m)^2
  static constexpr bool kUsesTarget = false;
  static constexpr double kCurvatureBound = 2.0;
  static void derivatives(double m, double, double C, double& first, double& second) {
    // Branch-free: whether a row is inside the margin follows no pattern along a
    // column, and a mispredicted branch a non-zero cost coordinate descent more
    // than the arithmetic (docs/benchmarks/primal.md, "L1 coordinate descent").
    const double inside = static_cast<double>(m < 1.0);  // 1 inside the margin, else 0
    second = 2.0 * C * inside;  // generalised Hessian (Mangasarian 2002)
    first = -second * (1.0 - m);
  }
  static double change(double m, double, double C, double delta) {
    const double before = std::max(0.0, 1.0 - m);
    const double after = std::max(0.0, 1.0 - m - delta);
    return C * (after - before) * (after + before);
  }
};

struct LogisticRows {  // C log(1 + exp(-m))
  static constexpr bool kUsesTarget = false;
  static constexpr double kCurvatureBound = 0.25;
  static void derivatives(double m, double, double C, double& first, double& second) {
    const double s = 1.0 / (1.0 + std::exp(m));  // sigmoid(-m); exp overflow gives s = 0
    first = -C * s;
    second = C * s * (1.0 - s);
  }
  // log(1 + e^{-m-delta}) - log(1 + e^{-m}) = log1p(sigmoid(-m) * expm1(-delta)).
  static double change(double m, double, double C, double delta) {
    const double term = std::expm1(-delta) / (1.0 + std::exp(m));
    if (std::isfinite(term)) return C * std::log1p(term);
    const losses::LogisticLoss loss;  // overflow of one factor: the plain difference
    return C * (loss.loss(1.0, m + delta) - loss.loss(1.0, m));
  }
};

// The rows of each loss an L1 solver solves; void for the others (the hinge:
// LIBLINEAR has no L1-regularised L1-loss SVM either). A loss without rows is
// refused by validate() (l1_penalty_supports), never trained as another.
template <typename Loss>
struct L1RowsOf {
  using type = void;
};
template <>
struct L1RowsOf<losses::SquaredLoss> {
  using type = SquaredRows;
};
template <>
struct L1RowsOf<losses::SquaredHingeLoss> {
  using type = SquaredHingeRows;
};
template <>
struct L1RowsOf<losses::LogisticLoss> {
  using type = LogisticRows;
};

// Returns function(Rows{}) with the rows of `kind`'s loss.
template <typename Function>
double with_l1_rows(LossKind kind, Function&& function) {
  return visit_loss_type(kind, [&](auto tag) -> double {
    using Rows = typename L1RowsOf<typename decltype(tag)::type>::type;
    if constexpr (std::is_void_v<Rows>) {
      throw InvalidArgument(std::string("penalty l1 is not available with the ") + loss_name(kind) + " loss");
    } else {
      return function(Rows{});
    }
  });
}

// Row i's target for the losses that read one; the others never index `t`.
template <typename Rows>
inline double target(const double* t, std::int32_t i) {
  if constexpr (Rows::kUsesTarget) return t[i];
  else return 1.0;
}

// The column-major copy: the columns of the features, then the intercept column.
//
// Memory: one more copy of the data: 4-byte row indices and 4-byte float values a
// non-zero (the labels' signs folded in, exact) plus an 8-byte column offset a
// feature, and one entry a row for the intercept column; per row 8 bytes (cost)
// and 8 more for the regression target. Rows are 32-bit indexed: fewer than 2^31.
struct Columns {
  std::vector<std::int64_t> offsets;  // n_columns + 1
  std::vector<std::int32_t> rows;
  std::vector<float> values;          // c(y_i) x_ij
  std::vector<double> scale;          // per column: 1, or intercept_scaling for the last
  std::vector<double> curvature_sum;  // per column: sum_i C_i x~_ij^2 (B_j / kCurvatureBound); may be empty
  std::int64_t n_columns() const { return static_cast<std::int64_t>(scale.size()); }
};

// The rows of a source as the L1 solvers read them.
struct L1Data {
  std::int32_t n_features = 0;
  std::int64_t n_rows = 0;
  Columns columns;
  std::vector<double> costs;    // C_i; 0: the row is absent from the columns
  std::vector<double> targets;  // y_i (regression only; empty for classification)
  // The factor LIBLINEAR puts on eps for its L1 solvers (-s 5, -s 6; train_one's
  // primal_solver_tol): max(min(#pos, #neg), 1) / l over every row, weighted or
  // not; 1 for regression, which LIBLINEAR has no L1 solver for. The stopping
  // rule is `violation <= tol * stop_scale * first violation`, so a -e (or
  // scikit-learn's liblinear tol) means what it means to LIBLINEAR.
  double stop_scale = 1.0;
  const double* target_data() const { return targets.empty() ? nullptr : targets.data(); }
};

// Two passes over `source`: costs and targets, then the columns; the columns'
// curvature sums when `curvature_sums` (cd_l1's line-search bound).
L1Data read_l1_data(ChunkSource& source, const SolverParameters& parameters, bool curvature_sums);

// The column of a free (unpenalised) intercept, n_features; -1 when the intercept
// is penalised (LIBLINEAR's) or absent (intercept_scaling 0). Only newGLMNET
// trains a free one (validate() refuses it to solver cd).
inline std::int64_t l1_free_column(const SolverParameters& parameters, std::int32_t n_features) {
  return !parameters.penalise_intercept && parameters.intercept_scaling != 0.0 ? n_features : -1;
}

// w's copy into n_features + 1 entries from a warm start's `weights` (n_features
// or n_features + 1 entries; empty: zeros); the intercept's is 0 without one.
std::vector<double> l1_start(const std::vector<double>& weights, std::int32_t n_features,
                             double intercept_scaling);

// m_i = c(y_i) w.x_i of `weights` (n_columns entries), column by column.
std::vector<double> l1_margins(const L1Data& data, const std::vector<double>& weights);

// The L1 solvers' certificates: after each iteration, objectives.cpp's
// l1_objectives at w (independent of the solver's incremental margins). Every
// dual point it gives is feasible, so the best one so far bounds P(w*) from
// below: the recorded gap uses it, and take_dual_point() returns it.
class L1Certificates {
 public:
  L1Certificates(ChunkSource& source, const SolverParameters& parameters, std::int32_t n_features, int threads);
  // Appends the record of `weights` to result.history (epoch: result.epochs) and
  // reports it to parameters.on_epoch.
  void record(FitResult& result, const std::vector<double>& weights);
  std::vector<double> take_dual_point() { return std::move(best_dual_point_); }

 private:
  ChunkSource& source_;
  const SolverParameters& parameters_;
  std::int32_t n_features_;
  int threads_;
  std::chrono::steady_clock::time_point started_;
  std::vector<double> dual_point_;
  std::vector<double> best_dual_point_;
  double best_dual_;
};

// sum_j max(0, |G_j(0)| - l1_weight): the minimum-norm sub-gradient's 1-norm at
// w = 0, the stopping rule's reference for a warm start (whose own first one may
// already be near 0); |G_j(0)| for `free_column` (-1: none), which has no penalty.
template <typename Rows>
double l1_violation_at_zero(const L1Data& data, double l1_weight, std::int64_t free_column = -1) {
  const Columns& columns = data.columns;
  const double* t = data.target_data();
  double sum = 0.0;
  for (std::int64_t j = 0; j < columns.n_columns(); ++j) {
    double gradient = 0.0;
    for (std::int64_t k = columns.offsets[j]; k < columns.offsets[j + 1]; ++k) {
      const std::int32_t i = columns.rows[static_cast<std::size_t>(k)];
      double first, second;
      Rows::derivatives(0.0, target<Rows>(t, i), data.costs[static_cast<std::size_t>(i)], first, second);
      gradient += columns.values[static_cast<std::size_t>(k)] * first;
    }
    sum += std::max(0.0, std::fabs(gradient * columns.scale[static_cast<std::size_t>(j)]) -
                             (j == free_column ? 0.0 : l1_weight));
  }
  return sum;
}

}  // namespace snapml::detail
