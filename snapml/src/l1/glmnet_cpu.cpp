// newGLMNET for L1 and elastic-net regularised logistic regression and the
// squared loss (Yuan, Ho & Lin 2012, JMLR 13, "An improved GLMNET for
// L1-regularized logistic regression"; LIBLINEAR's -s 6), on one process.
//
//   min_w  F(w) = a ||w||_1 + f(w),   f(w) = L(w) + (b/2) ||w||^2,
//   L(w) = sum_i C_i loss(y_i, w.x_i),  a = l1_ratio,  b = 1 - l1_ratio
//
// (scikit-learn's elastic net with C on the loss; l1_ratio = 1 is penalty l1),
// the intercept the constant feature `intercept_scaling`: inside both norms with
// penalise_intercept (LIBLINEAR's -s 6, as the L1 coordinate descent solver has
// it), or free, outside them (scikit-learn's saga; LIBLINEAR 2.40+'s
// regularize_bias = 0). A free intercept is one more coordinate whose penalty
// weights a and b are 0: its one-variable model is a plain Newton step, its
// violation |G_b| (the KKT residual of an unpenalised coordinate), and it is never
// shrunk (docs/algorithms.md "L1").
//
// Each outer (Newton) iteration at w, in the folded margins of l1_columns.h:
//  1. G_j = df/dw_j and H_jj = sum_i x~_ij^2 l''_i + b + nu (nu = 1e-12, LIBLINEAR's,
//     keeps H positive on empty columns) for the active columns; the minimum-norm
//     sub-gradient v_j of F (|G_j + a sign(w_j)| for w_j != 0, max(0, |G_j| - a)
//     at 0) is summed; pure L1 (b = 0) stops when that sum is <= tol times the
//     first iteration's (w = 0's for a warm start) times LIBLINEAR's factor
//     max(min(#pos, #neg), 1) / l (L1Data::stop_scale), on the full set of columns (a
//     stop met on the shrunk set brings every column back and checks again,
//     unlike LIBLINEAR). The elastic net (b > 0), which LIBLINEAR does not have,
//     also needs its duality gap <= tol P(w), as the L2 solvers do: its dual needs
//     no scaling and certifies the fit, and the sub-gradient rule alone at the
//     default tol left a9a's relative gap at 0.0028 and its weights 41 % from the
//     optimum's (issue 36). At a tiny tol the sub-gradient rule is the tighter.
//     A zero weight with |G_j| < a - M/l (M: the previous iteration's largest
//     violation) leaves the active set (section 5.1's shrinking).
//  2. The direction d minimises the quadratic model
//       q(d) = G.d + 0.5 d^T H d + a ||w + d||_1 - a ||w||_1,  H = X~^T D X~ + (b + nu) I
//     by cyclic coordinate descent in a random order, each step the soft-threshold
//     of the one-variable model with the gradient G_j + (H (d))_j kept up to date
//     through X~ d (one column pass a step), clipped to |z| <= 10 as LIBLINEAR
//     does, with shrinking of its own; the inner loop stops when its summed
//     violation is <= inner_tol times the first outer one. inner_tol starts at 1 and
//     is quartered whenever the inner loop needs a single pass (the model was easy:
//     solve the next one more accurately), as in the paper's section 5.2.
//  3. An Armijo line search along d over lambda = 1, 1/2, ... :
//       F(w + lambda d) - F(w) <= sigma lambda (G.d + a ||w + d||_1 - a ||w||_1)
//     (sigma = 0.01, at most 20 halvings), the loss change summed per row exactly
//     (log1p form) from the margins and lambda X~ d, in parallel over rows. No
//     step accepted: the margins are recomputed from w (rounding drift) and the fit
//     stops there, not converged.
// The squared loss is quadratic: its model is exact, so each outer iteration solves
// the problem up to the inner tolerance and the line search takes lambda = 1.
//
// Certificate: after every outer iteration objectives.cpp's l1_objectives gives
// P(w) and the dual point alpha_i = -l'_i, scaled into the dual's feasible set for
// the pure L1 penalty (b = 0), as the elastic net's conjugate needs no scaling
// (a free intercept: alpha first moved onto its constraint sum_i alpha_i c(y_i) = 0);
// FitResult::history records P(w), the best dual value so far and their gap, and
// state.alpha returns that best dual point (docs/algorithms.md).
//
// Threads: the gradient and Hessian diagonal (over columns), the line search and
// the margin update (over rows) use parameters.threads; the inner coordinate
// descent is sequential (each step reads X~ d as the last one left it). A seed
// gives bit-for-bit the same run for a given thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "l1_columns.h"
#include "../common/omp_threads.h"
#include "../common/random.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml {
namespace {

using detail::Columns;
using detail::L1Data;
using detail::target;
using detail::with_l1_rows;

constexpr double kArmijoSigma = 0.01;  // the paper's sigma
constexpr int kMaxHalvings = 20;
constexpr int kMaxInnerPasses = 1000;  // LIBLINEAR's max_iter for the model
constexpr double kNu = 1e-12;          // LIBLINEAR's nu
constexpr double kSmallestStep = 1e-12;
constexpr double kLargestStep = 10.0;  // LIBLINEAR clips each inner step to this

class GlmnetCpuSolver final : public Solver {
 public:
  explicit GlmnetCpuSolver(const SolverParameters& parameters) : parameters_(parameters) {
    validate(parameters_);
    require(parameters_.penalty == Penalty::L1 && glmnet_supports(parameters_.loss),
            std::string("make_glmnet_cpu_solver solves penalty l1 (or elastic net) with the ") +
                loss_names_text(glmnet_supports) + " loss");
    l1_weight_ = parameters_.l1_ratio;
    l2_weight_ = 1.0 - parameters_.l1_ratio;
    threads_ = detail::resolve_threads(parameters_.threads);
  }
  // The penalty weights of column j: 0 for a free intercept's.
  double l1_of(std::int64_t j) const { return j == free_column_ ? 0.0 : l1_weight_; }
  double l2_of(std::int64_t j) const { return j == free_column_ ? 0.0 : l2_weight_; }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  template <typename Rows>
  void derivatives();
  template <typename Rows>
  double gradient_pass(std::int64_t& active_size, double& largest_violation, double shrink_margin);
  template <typename Rows>
  int solve_model(std::int64_t active_size, double inner_bound);
  template <typename Rows>
  bool line_search();
  // The minimum-norm sub-gradient of F along a coordinate whose L1 weight is a
  // (0: |gradient|, a free coordinate's).
  static double violation(double w, double gradient, double a) {
    if (w > 0.0) return std::fabs(gradient + a);
    if (w < 0.0) return std::fabs(gradient - a);
    return std::max(0.0, std::fabs(gradient) - a);
  }
  double penalty_change(double lambda, double& l1_change) const;

  SolverParameters parameters_;
  double l1_weight_ = 1.0;
  double l2_weight_ = 0.0;
  std::int64_t free_column_ = -1;  // the free intercept's column; -1: none (penalised or absent)
  int threads_ = 1;
  L1Data data_;
  std::vector<double> weights_;   // w, n_columns
  std::vector<double> margins_;   // m_i = c(y_i) w.x_i
  std::vector<double> first_;     // l'_i at m_i
  std::vector<double> second_;    // l''_i at m_i
  std::vector<double> gradient_;  // G_j of f
  std::vector<double> hessian_;   // H_jj
  std::vector<double> direction_; // d
  std::vector<double> x_times_d_; // (X~ d)_i
  // Columns; the first active_size are active, and the inner loop shrinks and
  // shuffles within that prefix (the outer pass accepts any order of it).
  std::vector<std::int64_t> order_;
  detail::SplitMix64 random_{0};
};

template <typename Rows>
void GlmnetCpuSolver::derivatives() {
  const double* t = data_.target_data();
  const auto n = static_cast<std::int64_t>(data_.n_rows);
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
  for (std::int64_t i = 0; i < n; ++i) {
    const auto r = static_cast<std::size_t>(i);
    Rows::derivatives(margins_[r], target<Rows>(t, static_cast<std::int32_t>(i)), data_.costs[r], first_[r],
                      second_[r]);
  }
}

// Step 1: G and H's diagonal on the active columns, shrinking in place (the kept
// columns keep their order, so the run does not depend on the thread count).
// Returns the summed violation.
template <typename Rows>
double GlmnetCpuSolver::gradient_pass(std::int64_t& active_size, double& largest_violation, double shrink_margin) {
  const Columns& columns = data_.columns;
  const std::int32_t* rows = columns.rows.data();
  const float* values = columns.values.data();
  const std::int64_t size = active_size;
SNAPML_OMP(parallel for num_threads(threads_) schedule(dynamic, 64))
  for (std::int64_t position = 0; position < size; ++position) {
    const std::int64_t j = order_[static_cast<std::size_t>(position)];
    double gradient = 0.0;
    double curvature = 0.0;
    for (std::int64_t k = columns.offsets[j]; k < columns.offsets[j + 1]; ++k) {
      const auto i = static_cast<std::size_t>(rows[k]);
      const double value = values[k];
      gradient += value * first_[i];
      curvature += value * value * second_[i];
    }
    const double scale = columns.scale[static_cast<std::size_t>(j)];
    gradient_[static_cast<std::size_t>(j)] = gradient * scale + l2_of(j) * weights_[static_cast<std::size_t>(j)];
    hessian_[static_cast<std::size_t>(j)] = curvature * scale * scale + l2_of(j) + kNu;
  }
  double sum = 0.0;
  largest_violation = 0.0;
  std::int64_t kept = 0;
  for (std::int64_t position = 0; position < size; ++position) {
    const std::int64_t j = order_[static_cast<std::size_t>(position)];
    const double w = weights_[static_cast<std::size_t>(j)];
    const double g = gradient_[static_cast<std::size_t>(j)];
    const double a = l1_of(j);
    const double v = violation(w, g, a);
    // Likely 0 at w* (never a free coordinate: a = 0 fails the test).
    if (w == 0.0 && v == 0.0 && std::fabs(g) < a - shrink_margin) continue;
    order_[static_cast<std::size_t>(position)] = order_[static_cast<std::size_t>(kept)];
    order_[static_cast<std::size_t>(kept++)] = j;
    largest_violation = std::max(largest_violation, v);
    sum += v;
  }
  active_size = kept;
  return sum;
}

// Step 2: direction_ minimises the quadratic model over the active columns to the
// summed violation inner_bound. Returns the passes it took.
template <typename Rows>
int GlmnetCpuSolver::solve_model(std::int64_t active_size, double inner_bound) {
  const Columns& columns = data_.columns;
  const std::int32_t* rows = columns.rows.data();
  const float* values = columns.values.data();
  const double* second = second_.data();
  double* xd = x_times_d_.data();
  std::fill(x_times_d_.begin(), x_times_d_.end(), 0.0);
  std::fill(direction_.begin(), direction_.end(), 0.0);
  std::int64_t model_active = active_size;
  double previous_largest = std::numeric_limits<double>::infinity();
  const double rows_count = static_cast<double>(std::max<std::int64_t>(data_.n_rows, 1));
  int passes = 0;
  while (passes < kMaxInnerPasses) {
    ++passes;
    detail::shuffle(order_.data(), model_active, random_);
    const double shrink_margin = previous_largest / rows_count;
    double sum = 0.0;
    double largest = 0.0;
    for (std::int64_t position = 0; position < model_active; ++position) {
      const std::int64_t j = order_[static_cast<std::size_t>(position)];
      const auto jj = static_cast<std::size_t>(j);
      const double scale = columns.scale[jj];
      // (X~^T D X~ d)_j, the even and odd non-zeros summed apart: one sum's
      // additions wait on each other, and that latency, not the loads, bounds the
      // pass (as in cd_l1_cpu.cpp's column pass).
      double product = 0.0, product_odd = 0.0;
      const std::int64_t end = columns.offsets[j + 1];
      std::int64_t k = columns.offsets[j];
      for (; k + 1 < end; k += 2) {
        const auto i = static_cast<std::size_t>(rows[k]);
        const auto i_odd = static_cast<std::size_t>(rows[k + 1]);
        product += values[k] * second[i] * xd[i];
        product_odd += values[k + 1] * second[i_odd] * xd[i_odd];
      }
      if (k < end) product += values[k] * second[rows[k]] * xd[rows[k]];
      product += product_odd;
      const double h = hessian_[jj];
      const double g = gradient_[jj] + product * scale + (l2_of(j) + kNu) * direction_[jj];
      const double wd = weights_[jj] + direction_[jj];
      const double a = l1_of(j);
      const double v = violation(wd, g, a);
      if (wd == 0.0 && v == 0.0 && std::fabs(g) < a - shrink_margin) {
        --model_active;
        std::swap(order_[static_cast<std::size_t>(position)],
                  order_[static_cast<std::size_t>(model_active)]);
        --position;
        continue;
      }
      largest = std::max(largest, v);
      sum += v;
      // The one-variable model's minimiser: soft-thresholding (a = 0: the
      // Newton step -g / h).
      double z;
      if (g + a <= h * wd) z = -(g + a) / h;
      else if (g - a >= h * wd) z = -(g - a) / h;
      else z = -wd;
      if (z == -wd && std::fabs(z) <= kLargestStep) {
        // The minimiser is w_j + d_j = 0: set exactly (d_j = -w_j, so that the
        // line search's unit step lands on 0), however small the move. Skipped as
        // below kSmallestStep, it left a weight of -5e-19 whose violation
        // |G_j - a| (0.44) the outer rule counted at every iteration: a9a at C
        // 0.019 with one seed ran all 1000 iterations at a relative gap of 0.22,
        // 300 s (found by the random option test, issue 36).
        z = -weights_[jj] - direction_[jj];
        if (z == 0.0) continue;
        direction_[jj] = -weights_[jj];
      } else {
        // A free intercept takes however small a step: its curvature C sum_i l''_i
        // can be small enough (the lasso at C 1e-5) that a step below
        // kSmallestStep still leaves |G| above the stopping rule's bound.
        if (std::fabs(z) < kSmallestStep && (j != free_column_ || z == 0.0)) continue;
        z = std::clamp(z, -kLargestStep, kLargestStep);
        direction_[jj] += z;
      }
      const double move = z * scale;
      for (std::int64_t k = columns.offsets[j]; k < columns.offsets[j + 1]; ++k) xd[rows[k]] += move * values[k];
    }
    if (sum <= inner_bound) {
      if (model_active == active_size) break;
      // Met on the shrunk set only: every active column back, once more.
      model_active = active_size;
      previous_largest = std::numeric_limits<double>::infinity();
      continue;
    }
    previous_largest = largest;
  }
  return passes;
}

// The penalty's change from w to w + lambda d, summed per coordinate as
// differences, a (|w_j + lambda d_j| - |w_j|) + (b/2) lambda d_j (2 w_j + lambda d_j),
// so that changes near the optimum are not lost to cancellation in ||w||; the L1
// part alone in `l1_change`.
double GlmnetCpuSolver::penalty_change(double lambda, double& l1_change) const {
  double l1 = 0.0;
  double l2 = 0.0;
  for (std::size_t j = 0; j < weights_.size(); ++j) {
    const double w = weights_[j];
    const double step = lambda * direction_[j];
    if (step == 0.0 || static_cast<std::int64_t>(j) == free_column_) continue;  // a free intercept: no penalty
    l1 += std::fabs(w + step) - std::fabs(w);
    l2 += step * (2.0 * w + step);
  }
  l1_change = l1_weight_ * l1;
  return l1_change + 0.5 * l2_weight_ * l2;
}

// Step 3: the Armijo search; on success w and the margins move. Returns whether a
// step was accepted.
template <typename Rows>
bool GlmnetCpuSolver::line_search() {
  const double* t = data_.target_data();
  const auto n = static_cast<std::int64_t>(data_.n_rows);
  double directional = 0.0;  // G.d
  for (std::size_t j = 0; j < weights_.size(); ++j) directional += gradient_[j] * direction_[j];
  double lambda = 1.0;
  for (int halving = 0; halving <= kMaxHalvings; ++halving, lambda *= 0.5) {
    // The model's decrease Delta counts the L1 part only (the paper's, gamma = 0);
    // the L2 part is in f and so in G.
    double l1_change = 0.0;
    const double penalty_step = penalty_change(lambda, l1_change);
    const double delta = lambda * directional + l1_change;
    double loss_change = 0.0;
SNAPML_OMP(parallel for num_threads(threads_) schedule(static) reduction(+ : loss_change))
    for (std::int64_t i = 0; i < n; ++i) {
      const auto r = static_cast<std::size_t>(i);
      const double move = lambda * x_times_d_[r];
      if (move != 0.0)
        loss_change += Rows::change(margins_[r], target<Rows>(t, static_cast<std::int32_t>(i)), data_.costs[r], move);
    }
    if (loss_change + penalty_step <= kArmijoSigma * delta) {
      for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += lambda * direction_[j];
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
      for (std::int64_t i = 0; i < n; ++i) margins_[static_cast<std::size_t>(i)] += lambda * x_times_d_[static_cast<std::size_t>(i)];
      return true;
    }
  }
  margins_ = detail::l1_margins(data_, weights_);  // rounding drift: start clean
  return false;
}

FitResult GlmnetCpuSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  require(communicator.size() == 1,
          "the newGLMNET L1 solver runs on one process; train penalty l1 without mpirun (or with one rank), "
          "or use penalty l2 for distributed training");
  // The certificates' clock starts here, before the column copy is built.
  detail::L1Certificates certificates(source, parameters_, source.n_features(), threads_);
  data_ = detail::read_l1_data(source, parameters_, false);
  const std::int64_t n_columns = data_.columns.n_columns();
  const auto rows = static_cast<std::size_t>(data_.n_rows);
  weights_ = detail::l1_start(state.weights, data_.n_features, parameters_.intercept_scaling);
  margins_ = detail::l1_margins(data_, weights_);
  first_.assign(rows, 0.0);
  second_.assign(rows, 0.0);
  x_times_d_.assign(rows, 0.0);
  gradient_.assign(static_cast<std::size_t>(n_columns), 0.0);
  hessian_.assign(static_cast<std::size_t>(n_columns), 0.0);
  direction_.assign(static_cast<std::size_t>(n_columns), 0.0);
  order_.resize(static_cast<std::size_t>(n_columns));
  for (std::int64_t j = 0; j < n_columns; ++j) order_[static_cast<std::size_t>(j)] = j;
  random_ = detail::SplitMix64(parameters_.seed);
  free_column_ = detail::l1_free_column(parameters_, data_.n_features);

  const bool warm = std::any_of(weights_.begin(), weights_.end(), [](double w) { return w != 0.0; });
  double first_violation = -1.0;
  if (warm) {
    first_violation = with_l1_rows(parameters_.loss, [&](auto r) {
      return detail::l1_violation_at_zero<decltype(r)>(data_, l1_weight_, free_column_);
    });
  }
  // The elastic net also needs its duality gap below tol.
  const bool gap_rule = parameters_.l1_ratio < 1.0;
  std::int64_t active_size = n_columns;
  double previous_largest = std::numeric_limits<double>::infinity();
  double inner_tol = 1.0;
  FitResult result;
  while (result.epochs < parameters_.max_epochs) {
    double largest = 0.0;
    const double shrink_margin = previous_largest / static_cast<double>(std::max<std::int64_t>(data_.n_rows, 1));
    const double violation = with_l1_rows(parameters_.loss, [&](auto r) {
      derivatives<decltype(r)>();
      return gradient_pass<decltype(r)>(active_size, largest, shrink_margin);
    });
    if (first_violation < 0.0) first_violation = violation;
    if (violation <= parameters_.tol * data_.stop_scale * first_violation) {
      if (active_size == n_columns) {
        if (result.history.empty()) certificates.record(result, weights_);  // w = 0 (or the start) is optimal: certify it
        const EpochRecord& last = result.history.back();
        if (!gap_rule || last.gap <= parameters_.tol * last.primal) {
          result.converged = true;
          break;
        }
        // The elastic net's gap is not there yet: another Newton step.
      } else {
        // Met on the shrunk set only: bring every column back and check again.
        active_size = n_columns;
        previous_largest = std::numeric_limits<double>::infinity();
        continue;
      }
    }
    previous_largest = largest;
    bool moved = false;
    with_l1_rows(parameters_.loss, [&](auto r) {
      const int passes = solve_model<decltype(r)>(active_size, inner_tol * first_violation);
      if (passes == 1) inner_tol *= 0.25;
      moved = line_search<decltype(r)>();
      return 0.0;
    });
    ++result.epochs;

    certificates.record(result, weights_);
    if (!moved) break;  // no sufficient decrease along the Newton direction: rounding's floor
  }
  state.weights = weights_;
  state.alpha = certificates.take_dual_point();
  return result;
}

}  // namespace

bool glmnet_supports(LossKind kind) { return kind == LossKind::Logistic || kind == LossKind::Squared; }

std::unique_ptr<Solver> make_glmnet_cpu_solver(const SolverParameters& parameters) {
  return std::make_unique<GlmnetCpuSolver>(parameters);
}

}  // namespace snapml
