// Primal coordinate descent for L1-regularised problems (LIBLINEAR -s 5, -s 6 and
// the lasso), on one process and one thread.
//
//   min_w  F(w) = ||w||_1 + L(w),   L(w) = sum_i C_i loss(y_i, w.x_i)
//
// with the intercept as the constant feature `intercept_scaling` at index
// n_features, inside ||w||_1 as LIBLINEAR regularises it (docs/algorithms.md "L1");
// a free intercept trains by newGLMNET only (validate() refuses it here).
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
// w = 0, as its own first epoch may already be near 0) times LIBLINEAR's factor
// max(min(#pos, #neg), 1) / l (L1Data::stop_scale). Shrinking (Yuan et al. 2010,
// section 6.1): a zero weight with |G| < 1 - M/l (M: the previous epoch's largest
// violation, l: rows) leaves the active set; when the rule is met on a shrunk set,
// every coordinate comes back and the epoch repeats.
//
// Certificate: objectives.cpp's l1_objectives evaluates P(w) and the dual-scaling
// point from the source itself (independent of the incremental margins here);
// FitResult::history records P(w), the best dual value so far and their gap, and
// state.alpha returns that best dual point. The gap is a bound to read, not the
// stopping rule: it stays loose while any |G_j| is well above 1 (the scaling
// divides every theta_i by the largest), and tightens near w*. It is two passes
// over every row, where an epoch passes over the active columns only (a few once
// shrinking has set the zeros aside), so it is taken after the first epoch, the
// last, and in between once the epochs since the previous one have read at least
// kEpochWorkPerCertificate times its non-zeros (about a tenth of the fit's time
// at most: after every epoch it was a third of the time on a9a's 5,000 rows,
// docs/benchmarks/primal.md "L1 coordinate descent: the certificate's share and
// the column pass"). The cadence counts non-zeros, not seconds, so a seed
// still gives one history; certify_every_epoch (snap-train --history) asks for a
// record after every epoch.
//
// Memory: fit() builds a column-major (CSC) copy of the rows once (l1_columns.h)
// and 8 bytes a row for the margins.
//
// newGLMNET (snapml/src/l1/glmnet_cpu.cpp) is the default for the logistic and
// squared losses; this solver trains the squared hinge, and the others when asked
// for by solver cd (solver_factory.h).
//
// One thread: an epoch is sequential by nature here (each step reads the margins
// the previous one wrote); columns are visited in a fresh random order each epoch
// (splitmix64, seeded), so a seed gives bit-for-bit the same run.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "l1_columns.h"
#include "../common/random.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml {
namespace {

using detail::Columns;
using detail::L1Data;
using detail::L1RowsOf;
using detail::target;
using detail::with_l1_rows;

constexpr double kArmijoSigma = 0.01;  // Yuan et al. 2010's sigma
constexpr int kMaxHalvings = 20;
constexpr double kSmallestStep = 1e-12;  // |d| below this: nothing to gain
constexpr double kCurvatureFloor = 1e-12;
// A certificate reads every non-zero twice; the epochs between two read at least
// this many times as many (see the top of the file).
constexpr double kEpochWorkPerCertificate = 10.0;

class CdL1CpuSolver final : public Solver {
 public:
  explicit CdL1CpuSolver(const SolverParameters& parameters) : parameters_(parameters) {
    validate(parameters_);
    require(parameters_.penalty == Penalty::L1,
            "make_cd_l1_cpu_solver solves penalty L1 only; use make_sdca_cpu_solver for L2");
    require(detail::l1_free_column(parameters_, 0) < 0,
            "plain L1 coordinate descent penalises the intercept (LIBLINEAR's); a free intercept trains by "
            "newGLMNET (make_glmnet_cpu_solver)");
  }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  void initialise(SolverState& state);
  template <typename Rows>
  double epoch(std::int64_t& active_size, double& largest_violation, std::int64_t& nonzeros_read);
  template <typename Rows>
  void step(std::int64_t column, double gradient, double curvature);

  SolverParameters parameters_;
  L1Data data_;
  std::int32_t n_features_ = 0;
  std::int64_t n_rows_ = 0;
  const Columns& columns_ = data_.columns;
  const std::vector<double>& costs_ = data_.costs;
  const std::vector<double>& targets_ = data_.targets;
  std::vector<double> margins_;  // m_i = c(y_i) w.x_i, updated with every step
  std::vector<double> weights_;  // n_features_ + 1
  std::vector<std::int64_t> order_;  // columns; the first active_size are active
  detail::SplitMix64 random_{0};
  double previous_largest_ = std::numeric_limits<double>::infinity();  // M of the shrinking test
};

void CdL1CpuSolver::initialise(SolverState& state) {
  weights_ = detail::l1_start(state.weights, n_features_, parameters_.intercept_scaling);
  margins_ = detail::l1_margins(data_, weights_);
  order_.resize(static_cast<std::size_t>(columns_.n_columns()));
  for (std::int64_t j = 0; j < columns_.n_columns(); ++j) order_[static_cast<std::size_t>(j)] = j;
}

// The CDN step on one column given its G and H (see the top of the file).
template <typename Rows>
void CdL1CpuSolver::step(std::int64_t column, double gradient, double curvature) {
  double& w = weights_[static_cast<std::size_t>(column)];
  double d;
  if (gradient + 1.0 <= curvature * w) d = -(gradient + 1.0) / curvature;
  else if (gradient - 1.0 >= curvature * w) d = -(gradient - 1.0) / curvature;
  else d = -w;
  // A step onto 0 is taken however small: skipped, a tiny weight's violation
  // |G_j -+ 1| stays in the stopping rule for good (newGLMNET's stall on a9a,
  // glmnet_cpu.cpp).
  if (std::fabs(d) < kSmallestStep && d != -w) return;

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
// violation; shrinks the active set in place; adds the non-zeros it read to
// nonzeros_read.
template <typename Rows>
double CdL1CpuSolver::epoch(std::int64_t& active_size, double& largest_violation, std::int64_t& nonzeros_read) {
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
    std::int64_t k = columns_.offsets[column];
    const std::int64_t end = columns_.offsets[column + 1];
    nonzeros_read += end - k;
    // Two pairs of sums, the even and the odd non-zeros: one pair's additions wait
    // on each other (their latency, not the loads, bounds a column's pass).
    double gradient = 0.0, gradient_odd = 0.0;
    double curvature = 0.0, curvature_odd = 0.0;
    const auto add = [&](std::int64_t nonzero, double& into_gradient, double& into_curvature) {
      const std::int32_t i = rows[nonzero];
      double first, second;
      Rows::derivatives(m[i], target<Rows>(t, i), costs[i], first, second);
      const double value = values[nonzero];
      into_gradient += value * first;
      into_curvature += value * value * second;
    };
    for (; k + 1 < end; k += 2) {
      add(k, gradient, curvature);
      add(k + 1, gradient_odd, curvature_odd);
    }
    if (k < end) add(k, gradient, curvature);
    gradient += gradient_odd;
    curvature += curvature_odd;
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
  // The certificates' clock starts here, before the column copy is built.
  detail::L1Certificates certificates(source, parameters_, source.n_features(), 1);
  data_ = detail::read_l1_data(source, parameters_, true);
  n_features_ = data_.n_features;
  n_rows_ = data_.n_rows;
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
    first_violation = with_l1_rows(parameters_.loss, [&](auto rows) { return detail::l1_violation_at_zero<decltype(rows)>(data_, 1.0); });
  }
  // What a certificate reads: every non-zero twice (the margins, then X^T theta).
  const double certificate_work = 2.0 * static_cast<double>(columns_.offsets[n_columns]);
  std::int64_t read_since_certificate = 0;
  FitResult result;
  while (result.epochs < parameters_.max_epochs) {
    double largest = 0.0;
    double violation = 0.0;
    violation = with_l1_rows(parameters_.loss, [&](auto rows) {
      return epoch<decltype(rows)>(active_size, largest, read_since_certificate);
    });
    if (first_violation < 0.0) first_violation = violation;
    ++result.epochs;

    const bool met = violation <= parameters_.tol * data_.stop_scale * first_violation;
    const bool last = (met && active_size == n_columns) || result.epochs == parameters_.max_epochs;
    if (parameters_.certify_every_epoch || result.epochs == 1 || last ||
        static_cast<double>(read_since_certificate) >= kEpochWorkPerCertificate * certificate_work) {
      certificates.record(result, weights_);
      read_since_certificate = 0;
    }
    // Between epochs, as the other solvers between rounds: Python's Ctrl-C check
    // (TrainParameters::on_round), which the cadence's few certificates would
    // leave many epochs apart.
    if (parameters_.on_progress)
      parameters_.on_progress(result.epochs, [this] {
        SolverState now;
        now.weights = weights_;
        return now;
      });

    if (met) {
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
  state.alpha = certificates.take_dual_point();
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
