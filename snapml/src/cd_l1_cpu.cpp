// Primal coordinate descent for L1-regularised problems (LIBLINEAR -s 5, -s 6 and
// the lasso), on one process and one thread.
//
//   min_w  F(w) = ||w||_1 + L(w),   L(w) = sum_i C_i loss(y_i, w.x_i)
//
// with the intercept as the constant feature `intercept_scaling` at index
// n_features, inside ||w||_1 as LIBLINEAR regularises it (docs/algorithms.md "L1").
// Writing m_i = c(y_i) w.x_i (c(y) = y for classification, 1 for regression) and
// x~_ij = c(y_i) x_ij, one coordinate j sees
//
//   G = dL/dw_j = sum_i x~_ij l'_i,   H = sum_i x~_ij^2 l''_i   (l = C_i loss, by m_i)
//
// and takes the CDN step of Yuan, Chang, Hsieh & Lin (2010, JMLR 11, "A comparison
// of optimization methods and software for large-scale L1-regularized linear
// classification", section 4.1.2): the minimiser of the 1-D model
// G d + 0.5 H d^2 + |w_j + d| - |w_j|, which is soft-thresholding,
//
//   d = -(G + 1)/H  if G + 1 <= H w_j,   -(G - 1)/H  if G - 1 >= H w_j,   else -w_j,
//
// then an Armijo line search over lambda = 1, 1/2, 1/4, ... accepting the first
// step with F(w + lambda d e_j) - F(w) <= sigma lambda Delta,
// Delta = G d + |w_j + d| - |w_j| (sigma = 0.01, at most 20 halvings; none
// accepted: no step). The squared loss (lasso) is quadratic, so d is its exact
// coordinate minimiser: the closed-form soft-thresholding step.
//
// The line search first tries a bound that needs no pass over the column: with
// B_j = sup(l''/C) * sum_i C_i x~_ij^2 >= every H along the line, the loss change
// is at most lambda G d + 0.5 B_j (lambda d)^2 (Yuan et al. 2010, appendix; B_j is
// exact for the lasso, where the test always passes at lambda = 1 because
// Delta <= -H d^2). Only when it fails is the loss change summed over the
// column's rows, per row as a difference (log1p form for the logistic loss), so
// tiny changes near the optimum are not lost to cancellation.
//
// Stopping (LIBLINEAR's rule; L1 iterates carry no dual certificate of their own):
// the minimum-norm sub-gradient of F along j, v_j = |G + sign(w_j)| for w_j != 0
// and max(0, |G| - 1) for w_j = 0, is summed over an epoch before each step; stop
// when that sum is <= tol times the first epoch's (a warm start: times the sum at
// w = 0, as its own first epoch may already be near 0). Shrinking (Yuan et al. 2010,
// section 6.1): a zero weight with |G| < 1 - M/l (M: the previous epoch's largest
// violation, l: rows) leaves the active set; when the rule is met on a shrunk set,
// every coordinate comes back and the epoch repeats.
//
// Certificate: after every epoch objectives.cpp's l1_objectives evaluates P(w) and
// the dual-scaling point from the source itself (independent of the incremental
// margins here); FitResult::history records P(w), the best dual value so far and
// their gap, and state.alpha returns that best dual point. The gap is a bound to
// read, not the stopping rule: it stays loose while any |G_j| is well above 1
// (the scaling divides every theta_i by the largest), and tightens near w*.
//
// Memory: fit() builds a column-major (CSC) copy of the rows once, one more copy
// of the data: 4-byte row indices and 4-byte float values a non-zero (the labels'
// signs folded in, exact) plus an 8-byte column offset a feature, and one entry a
// row for the intercept column; per row 16 bytes (margin, cost) and 8 more for
// the regression target. Rows are 32-bit indexed: fewer than 2^31 rows.
//
// One thread: an epoch is sequential by nature here (each step reads the margins
// the previous one wrote); columns are visited in a fresh random order each epoch
// (splitmix64, seeded), so a seed gives bit-for-bit the same run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "random.h"
#include "snapml/error.h"
#include "snapml/objectives.h"
#include "snapml/solver.h"

namespace snapml {
namespace {

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
    const double slack = 1.0 - m;
    first = slack > 0.0 ? -2.0 * C * slack : 0.0;
    second = slack > 0.0 ? 2.0 * C : 0.0;  // generalised Hessian (Mangasarian 2002)
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

// The rows of each listed loss the L1 solver solves; void for the others (the
// hinge: LIBLINEAR has no L1-regularised L1-loss SVM either). A loss without rows
// is refused by validate() (l1_penalty_supports), never trained as another.
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
struct Columns {
  std::vector<std::int64_t> offsets;  // n_columns + 1
  std::vector<std::int32_t> rows;
  std::vector<float> values;          // c(y_i) x_ij
  std::vector<double> scale;          // per column: 1, or intercept_scaling for the last
  std::vector<double> curvature_sum;  // per column: sum_i C_i x~_ij^2 (B_j / kCurvatureBound)
  std::int64_t n_columns() const { return static_cast<std::int64_t>(scale.size()); }
};

constexpr double kArmijoSigma = 0.01;  // Yuan et al. 2010's sigma
constexpr int kMaxHalvings = 20;
constexpr double kSmallestStep = 1e-12;  // |d| below this: nothing to gain
constexpr double kCurvatureFloor = 1e-12;

class CdL1CpuSolver final : public Solver {
 public:
  explicit CdL1CpuSolver(const SolverParameters& parameters) : parameters_(parameters) {
    validate(parameters_);
    require(parameters_.penalty == Penalty::L1,
            "make_cd_l1_cpu_solver solves penalty L1 only; use make_sdca_cpu_solver for L2");
  }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  void build_columns(ChunkSource& source);
  void initialise(SolverState& state);
  template <typename Rows>
  double epoch(std::int64_t& active_size, double& largest_violation);
  template <typename Rows>
  void step(std::int64_t column, double gradient, double curvature);
  template <typename Rows>
  double violation_at_zero() const;

  SolverParameters parameters_;
  std::int32_t n_features_ = 0;
  std::int64_t n_rows_ = 0;
  Columns columns_;
  std::vector<double> margins_;  // m_i = c(y_i) w.x_i, updated with every step
  std::vector<double> costs_;    // C_i
  std::vector<double> targets_;  // y_i (regression only; empty for classification)
  std::vector<double> weights_;  // n_features_ + 1
  std::vector<std::int64_t> order_;  // columns; the first active_size are active
  detail::SplitMix64 random_{0};
  double previous_largest_ = std::numeric_limits<double>::infinity();  // M of the shrinking test
};

void CdL1CpuSolver::build_columns(ChunkSource& source) {
  n_features_ = source.n_features();
  n_rows_ = source.n_rows();
  require(n_rows_ < std::numeric_limits<std::int32_t>::max(),
          "the L1 solver indexes rows with 32 bits and got " + std::to_string(n_rows_) +
              " rows; train on fewer than 2^31 rows");
  const RowTargets targets = RowTargets::from(parameters_);
  const bool classification = targets.classification;
  const double bias = parameters_.intercept_scaling;
  const std::int64_t n_columns = static_cast<std::int64_t>(n_features_) + 1;

  // Pass 1: costs, targets and the entries per column (zero-cost rows are absent).
  costs_.assign(static_cast<std::size_t>(n_rows_), 0.0);
  targets_.assign(classification ? 0 : static_cast<std::size_t>(n_rows_), 0.0);
  std::vector<double> signs(static_cast<std::size_t>(n_rows_), 1.0);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n_columns) + 1, 0);
  std::int64_t offset = 0;
  CsrView x;
  source.reset();
  while (source.next(x)) {
    require(offset + x.n_rows <= n_rows_, "the chunk source returned more rows than it counts");
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const auto i = static_cast<std::size_t>(offset + row);
      const double y = targets.target(x.labels[row]);
      costs_[i] = targets.cost(y, x.weight(row));
      if (classification) signs[i] = y;
      else targets_[i] = y;
      if (!(costs_[i] > 0.0)) continue;
      for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) ++counts[static_cast<std::size_t>(x.col_indices[k]) + 1];
      if (bias > 0.0) ++counts[static_cast<std::size_t>(n_columns)];
    }
    offset += x.n_rows;
  }
  require(offset == n_rows_, "the chunk source returned fewer rows than it counts");
  for (std::size_t j = 1; j < counts.size(); ++j) counts[j] += counts[j - 1];
  columns_.offsets = counts;

  // Pass 2: scatter the entries; rows arrive in order, so each column is sorted.
  const auto nnz = static_cast<std::size_t>(counts.back());
  columns_.rows.resize(nnz);
  columns_.values.resize(nnz);
  std::vector<std::int64_t> next(counts.begin(), counts.end() - 1);
  offset = 0;
  source.reset();
  while (source.next(x)) {
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const auto i = static_cast<std::size_t>(offset + row);
      if (!(costs_[i] > 0.0)) continue;
      const float sign = static_cast<float>(signs[i]);
      for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
        const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(x.col_indices[k])]++);
        columns_.rows[slot] = static_cast<std::int32_t>(offset + row);
        columns_.values[slot] = sign * x.values[k];
      }
      if (bias > 0.0) {
        const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(n_features_)]++);
        columns_.rows[slot] = static_cast<std::int32_t>(offset + row);
        columns_.values[slot] = sign;  // the intercept's value lives in scale, exactly
      }
    }
    offset += x.n_rows;
  }
  columns_.scale.assign(static_cast<std::size_t>(n_columns), 1.0);
  columns_.scale.back() = bias;
  columns_.curvature_sum.assign(static_cast<std::size_t>(n_columns), 0.0);
  for (std::int64_t j = 0; j < n_columns; ++j) {
    double sum = 0.0;
    for (std::int64_t k = columns_.offsets[j]; k < columns_.offsets[j + 1]; ++k) {
      const double value = columns_.values[static_cast<std::size_t>(k)];
      sum += costs_[static_cast<std::size_t>(columns_.rows[static_cast<std::size_t>(k)])] * value * value;
    }
    const double scale = columns_.scale[static_cast<std::size_t>(j)];
    columns_.curvature_sum[static_cast<std::size_t>(j)] = sum * scale * scale;
  }
}

void CdL1CpuSolver::initialise(SolverState& state) {
  const auto size = static_cast<std::size_t>(n_features_) + 1;
  weights_.assign(size, 0.0);
  if (!state.weights.empty()) {
    require(state.weights.size() == size - 1 || state.weights.size() == size,
            "warm start: weights have " + std::to_string(state.weights.size()) + " entries; pass n_features (" +
                std::to_string(n_features_) + ") or n_features + 1 (with the intercept's weight)");
    std::copy(state.weights.begin(), state.weights.end(), weights_.begin());
    if (parameters_.intercept_scaling == 0.0) weights_.back() = 0.0;
  }
  // Margins of the starting point, column by column.
  margins_.assign(static_cast<std::size_t>(n_rows_), 0.0);
  for (std::int64_t j = 0; j < columns_.n_columns(); ++j) {
    const double w = weights_[static_cast<std::size_t>(j)] * columns_.scale[static_cast<std::size_t>(j)];
    if (w == 0.0) continue;
    for (std::int64_t k = columns_.offsets[j]; k < columns_.offsets[j + 1]; ++k)
      margins_[static_cast<std::size_t>(columns_.rows[static_cast<std::size_t>(k)])] +=
          w * columns_.values[static_cast<std::size_t>(k)];
  }
  order_.resize(static_cast<std::size_t>(columns_.n_columns()));
  for (std::int64_t j = 0; j < columns_.n_columns(); ++j) order_[static_cast<std::size_t>(j)] = j;
}

// sum_j max(0, |G_j(0)| - 1): the stopping rule's reference for a warm start.
template <typename Rows>
double CdL1CpuSolver::violation_at_zero() const {
  const double* t = targets_.empty() ? nullptr : targets_.data();
  double sum = 0.0;
  for (std::int64_t j = 0; j < columns_.n_columns(); ++j) {
    double gradient = 0.0;
    for (std::int64_t k = columns_.offsets[j]; k < columns_.offsets[j + 1]; ++k) {
      const std::int32_t i = columns_.rows[static_cast<std::size_t>(k)];
      double first, second;
      Rows::derivatives(0.0, target<Rows>(t, i), costs_[static_cast<std::size_t>(i)], first, second);
      gradient += columns_.values[static_cast<std::size_t>(k)] * first;
    }
    sum += std::max(0.0, std::fabs(gradient * columns_.scale[static_cast<std::size_t>(j)]) - 1.0);
  }
  return sum;
}

// The CDN step on one column given its G and H (see the top of the file).
template <typename Rows>
void CdL1CpuSolver::step(std::int64_t column, double gradient, double curvature) {
  double& w = weights_[static_cast<std::size_t>(column)];
  double d;
  if (gradient + 1.0 <= curvature * w) d = -(gradient + 1.0) / curvature;
  else if (gradient - 1.0 >= curvature * w) d = -(gradient - 1.0) / curvature;
  else d = -w;
  if (std::fabs(d) < kSmallestStep) return;

  const std::int64_t begin = columns_.offsets[column];
  const std::int64_t end = columns_.offsets[column + 1];
  const std::int32_t* rows = columns_.rows.data();
  const float* values = columns_.values.data();
  const double scale = columns_.scale[static_cast<std::size_t>(column)];
  const double bound = Rows::kCurvatureBound * columns_.curvature_sum[static_cast<std::size_t>(column)];
  const double* t = targets_.empty() ? nullptr : targets_.data();
  double* m = margins_.data();
  const double* costs = costs_.data();

  double delta = gradient * d + std::fabs(w + d) - std::fabs(w);  // lambda = 1
  double accepted = 0.0;
  for (int halving = 0; halving <= kMaxHalvings; ++halving) {
    const double regulariser_change = std::fabs(w + d) - std::fabs(w);
    // The curvature bound decides without touching the data when it can.
    if (gradient * d + 0.5 * bound * d * d + regulariser_change <= kArmijoSigma * delta) {
      accepted = d;
      break;
    }
    double loss_change = 0.0;
    const double move = d * scale;
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int32_t i = rows[k];
      loss_change += Rows::change(m[i], target<Rows>(t, i), costs[i], move * values[k]);
    }
    if (loss_change + regulariser_change <= kArmijoSigma * delta) {
      accepted = d;
      break;
    }
    d *= 0.5;
    delta *= 0.5;
  }
  if (accepted == 0.0) return;  // no sufficient decrease: leave w_j as it is
  w += accepted;
  const double move = accepted * scale;
  for (std::int64_t k = begin; k < end; ++k) m[rows[k]] += move * values[k];
}

// One pass over the active columns in a fresh random order. Returns the summed
// violation; shrinks the active set in place.
template <typename Rows>
double CdL1CpuSolver::epoch(std::int64_t& active_size, double& largest_violation) {
  detail::shuffle(order_.data(), active_size, random_);
  const double shrink_margin = previous_largest_ / static_cast<double>(std::max<std::int64_t>(n_rows_, 1));
  const std::int32_t* rows = columns_.rows.data();
  const float* values = columns_.values.data();
  const double* t = targets_.empty() ? nullptr : targets_.data();
  const double* m = margins_.data();
  const double* costs = costs_.data();
  double violation_sum = 0.0;
  largest_violation = 0.0;
  for (std::int64_t position = 0; position < active_size; ++position) {
    const std::int64_t column = order_[static_cast<std::size_t>(position)];
    double gradient = 0.0;
    double curvature = 0.0;
    for (std::int64_t k = columns_.offsets[column]; k < columns_.offsets[column + 1]; ++k) {
      const std::int32_t i = rows[k];
      double first, second;
      Rows::derivatives(m[i], target<Rows>(t, i), costs[i], first, second);
      const double value = values[k];
      gradient += value * first;
      curvature += value * value * second;
    }
    const double scale = columns_.scale[static_cast<std::size_t>(column)];
    gradient *= scale;
    curvature = std::max(curvature * scale * scale, kCurvatureFloor);

    const double w = weights_[static_cast<std::size_t>(column)];
    double violation;
    if (w > 0.0) {
      violation = std::fabs(gradient + 1.0);
    } else if (w < 0.0) {
      violation = std::fabs(gradient - 1.0);
    } else {
      violation = std::max(0.0, std::fabs(gradient) - 1.0);
      if (violation == 0.0 && std::fabs(gradient) < 1.0 - shrink_margin) {
        // Zero and well inside the sub-differential: likely zero at the optimum.
        --active_size;
        std::swap(order_[static_cast<std::size_t>(position)], order_[static_cast<std::size_t>(active_size)]);
        --position;
        continue;
      }
    }
    largest_violation = std::max(largest_violation, violation);
    violation_sum += violation;
    step<Rows>(column, gradient, curvature);
  }
  return violation_sum;
}

FitResult CdL1CpuSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  require(communicator.size() == 1,
          "the L1 solver runs on one process; train penalty l1 without mpirun (or with one rank), "
          "or use penalty l2 for distributed training");
  const auto started = std::chrono::steady_clock::now();
  build_columns(source);
  initialise(state);
  random_ = detail::SplitMix64(parameters_.seed);
  previous_largest_ = std::numeric_limits<double>::infinity();

  const std::int64_t n_columns = columns_.n_columns();
  std::int64_t active_size = n_columns;
  // The stopping rule's reference: LIBLINEAR's, the first epoch's violation sum,
  // on a cold start. A warm start near the optimum would make that reference tiny
  // and the rule unreachable, so it takes the violation at w = 0 instead.
  const bool warm = std::any_of(weights_.begin(), weights_.end(), [](double w) { return w != 0.0; });
  double first_violation = -1.0;
  if (warm) {
    first_violation = with_l1_rows(parameters_.loss, [&](auto rows) { return violation_at_zero<decltype(rows)>(); });
  }
  // Every dual-scaling point is feasible, so the best one so far bounds P(w*)
  // from below: the recorded gap uses it, and state.alpha returns it.
  std::vector<double> dual_point(static_cast<std::size_t>(n_rows_), 0.0);
  std::vector<double> best_dual_point(static_cast<std::size_t>(n_rows_), 0.0);
  double best_dual = -std::numeric_limits<double>::infinity();
  FitResult result;
  while (result.epochs < parameters_.max_epochs) {
    double largest = 0.0;
    double violation = 0.0;
    violation = with_l1_rows(parameters_.loss, [&](auto rows) { return epoch<decltype(rows)>(active_size, largest); });
    if (first_violation < 0.0) first_violation = violation;
    ++result.epochs;

    const Objectives objectives = l1_objectives(source, parameters_, weights_.data(), n_features_,
                                                dual_point.data(), 1);
    if (objectives.dual > best_dual) {
      best_dual = objectives.dual;
      best_dual_point.swap(dual_point);
    }
    EpochRecord record;
    record.epoch = result.epochs;
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    record.primal = objectives.primal;
    record.dual = best_dual;
    record.gap = objectives.primal - best_dual;
    result.history.push_back(record);
    if (parameters_.on_epoch) parameters_.on_epoch(record);

    if (violation <= parameters_.tol * first_violation) {
      if (active_size == n_columns) {
        result.converged = true;
        break;
      }
      // Met on the shrunk set only: bring every coordinate back and check again.
      active_size = n_columns;
      previous_largest_ = std::numeric_limits<double>::infinity();
      continue;
    }
    previous_largest_ = largest;
  }
  state.weights = weights_;
  state.alpha = std::move(best_dual_point);
  return result;
}

}  // namespace

bool l1_penalty_supports(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) {
    return !std::is_void_v<typename L1RowsOf<typename decltype(tag)::type>::type>;
  });
}

std::unique_ptr<Solver> make_cd_l1_cpu_solver(const SolverParameters& parameters) {
  return std::make_unique<CdL1CpuSolver>(parameters);
}

}  // namespace snapml
