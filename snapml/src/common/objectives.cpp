// Primal, dual and duality gap: the one implementation every solver reports.
// Everything is summed in double whatever the data's precision.
#include "snapml/impl/objectives.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "omp_threads.h"
#include "prefetch.h"

namespace snapml {
namespace {

// The dual variable the optimality conditions pair with a margin m, so that
// alpha_i c(y_i) = -d/dm [C_i loss(y_i, m)] (the losses' alpha_from_margin). Logistic is written out because its
// alpha_from_margin keeps a warm start strictly inside (0, C), and that inset
// would cost the certificate up to C * 1e-8 * |log 1e-8| a row.
template <typename Loss>
double paired_dual(const Loss& loss, double y, double margin, double cost) {
  if constexpr (std::is_same_v<Loss, losses::LogisticLoss>)
    return cost / (1.0 + std::exp(y * margin));
  else
    return loss.alpha_from_margin(y, margin, cost);
}

// A free intercept's dual constraint s = sum_i alpha_i c(y_i) = 0, met by moving
// alpha by the one rule (dual_repair, snapml/impl/objectives.h). Here v = X^T
// (alpha c) is recomputed exactly from its two parts (`part`: the c = -1 rows'
// share, or the active rows' sum of x_i), so the bound needs no correction term.
struct DualFeasibility {
  double positive_factor = 1.0;  // classification: alpha_i *= this where c = +1
  double negative_factor = 1.0;  // and this where c = -1
  double shift = 0.0;            // regression: alpha_i -= this on active rows
  double apply(double alpha, double coefficient) const {
    return coefficient > 0.0 ? alpha * positive_factor - shift : alpha * negative_factor;
  }
};

DualFeasibility free_intercept_feasibility(bool classification, double positive_sum, double negative_sum,
                                           std::int64_t active_rows) {
  const DualRepair repair =
      dual_repair(classification, positive_sum, negative_sum, static_cast<double>(active_rows));
  DualFeasibility f;
  f.shift = -repair.shift;
  (repair.heavy_side == 0 ? f.positive_factor : f.negative_factor) = 1.0 - repair.shrink;
  return f;
}

template <typename Loss>
Objectives l1_objectives_for(const Loss& loss, ChunkSource& source, const RowTargets& targets,
                             const double* weights, std::int32_t n_features, double bias_value,
                             double l1_ratio, bool free_intercept, double* dual_point,
                             [[maybe_unused]] int threads) {
  const double bias_weight = weights[n_features];
  std::vector<double> own;  // alpha_i, when the caller passes no buffer
  if (!dual_point) {
    own.assign(static_cast<std::size_t>(source.n_rows()), 0.0);
    dual_point = own.data();
  }
  std::vector<double> v(static_cast<std::size_t>(n_features) + 1, 0.0);  // sum_i alpha_i c(y_i) x_i
  // A free intercept: v's second part (DualFeasibility), and s's parts.
  std::vector<double> part(free_intercept ? v.size() : 0, 0.0);
  double positive_sum = 0.0;  // sum of alpha_i c_i over c_i = +1
  double negative_sum = 0.0;  // over c_i = -1
  std::int64_t active_rows = 0;
  double loss_sum = 0.0;
  std::int64_t row_offset = 0;
  CsrView x;
  source.reset();
  while (source.next(x)) {
    double* alpha = dual_point + row_offset;
    double chunk_loss = 0.0;
SNAPML_OMP(parallel for num_threads(threads) schedule(static) reduction(+ : chunk_loss))
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double y = targets.target(x.labels[row]);
      const double cost = targets.cost(y, x.weight(row));
      alpha[row] = 0.0;
      if (!(cost > 0.0)) continue;  // absent from both problems: theta_i = 0
      const double margin = row_dot(x, row, weights) + bias_value * bias_weight;
      chunk_loss += cost * loss.loss(y, margin);
      alpha[row] = paired_dual(loss, y, margin, cost);
    }
    loss_sum += chunk_loss;
    // X^T (alpha c) in row order: deterministic whatever the thread count.
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double coefficient = Loss::coefficient(targets.target(x.labels[row]));
      const double scale = alpha[row] * coefficient;
      std::vector<double>* into = &v;
      if (free_intercept) {
        if (!(targets.cost(targets.target(x.labels[row]), x.weight(row)) > 0.0)) continue;
        ++active_rows;
        (coefficient > 0.0 ? positive_sum : negative_sum) += alpha[row];
        if (!targets.classification) {
          // Regression: v from alpha, and the active rows' sum of x_i in `part`.
          for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
            part[static_cast<std::size_t>(x.col_indices[k])] += static_cast<double>(x.values[k]);
          part[static_cast<std::size_t>(n_features)] += bias_value;
        } else if (coefficient < 0.0) {
          into = &part;  // the c = -1 rows' share
        }
      }
      if (scale == 0.0) continue;
      add_scaled_row(x, row, scale, into->data());
      (*into)[static_cast<std::size_t>(n_features)] += scale * bias_value;
    }
    row_offset += x.n_rows;
  }
  DualFeasibility feasibility;
  if (free_intercept) {
    feasibility = free_intercept_feasibility(targets.classification, positive_sum, negative_sum, active_rows);
    for (std::size_t j = 0; j < v.size(); ++j)
      v[j] = targets.classification
                 ? feasibility.positive_factor * v[j] + feasibility.negative_factor * part[j]
                 : v[j] - feasibility.shift * part[j];
  }
  // A free intercept's column is the constraint, not the penalty: its v entry
  // (now B s = 0) takes no part in the scaling or the conjugate, nor its weight
  // in the norms.
  const std::size_t penalised = free_intercept ? v.size() - 1 : v.size();
  // Pure L1: theta = alpha / max(1, ||v||_inf) is feasible. The elastic net's
  // conjugate is finite everywhere, so alpha itself is the dual point and pays
  // g*(v) = sum_j max(0, |v_j| - a)^2 / (2 b) (a = l1_ratio, b = 1 - a).
  const double l2_ratio = 1.0 - l1_ratio;
  double largest = 1.0;
  double conjugate = 0.0;
  if (l2_ratio > 0.0) {
    for (std::size_t j = 0; j < penalised; ++j) {
      const double excess = std::max(0.0, std::fabs(v[j]) - l1_ratio);
      conjugate += excess * excess / (2.0 * l2_ratio);
    }
  } else {
    for (std::size_t j = 0; j < penalised; ++j) largest = std::max(largest, std::fabs(v[j]));
  }

  // Second pass: D(theta) needs each row's target and cost again.
  double dual_sum = 0.0;
  row_offset = 0;
  source.reset();
  while (source.next(x)) {
    double* theta = dual_point + row_offset;
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double y = targets.target(x.labels[row]);
      const double cost = targets.cost(y, x.weight(row));
      if (!(cost > 0.0)) continue;
      if (free_intercept) theta[row] = feasibility.apply(theta[row], Loss::coefficient(y));
      theta[row] /= largest;
      dual_sum += loss.dual_value(y, theta[row], cost);
    }
    row_offset += x.n_rows;
  }
  double l1_norm = 0.0;
  double squared_norm = 0.0;
  for (std::size_t j = 0; j < penalised; ++j) {
    l1_norm += std::fabs(weights[j]);
    squared_norm += weights[j] * weights[j];
  }
  Objectives result;
  result.primal = loss_sum + l1_ratio * l1_norm + 0.5 * l2_ratio * squared_norm;
  result.dual = dual_sum - conjugate;
  result.gap = result.primal - result.dual;
  return result;
}

template <typename Loss>
ObjectiveSums sums_for(const Loss& loss, ChunkSource& source, const RowTargets& targets,
                       const double* weights, std::int32_t n_features, double bias_value,
                       const double* alpha, [[maybe_unused]] int threads, MarginBounds* bounds) {
  if constexpr (!losses::is_zero_beyond_margin_one<Loss>::value) bounds = nullptr;
  const double bias_weight = weights[n_features];
  constexpr std::int64_t kWeightsAhead = 4;
  const bool fetch_weights = detail::prefetch_weights(static_cast<std::size_t>(n_features) + 1);
  ObjectiveSums total;
  std::int64_t row_offset = 0;  // alpha is indexed in visiting order, not by first_row
  std::vector<double> block_sums;  // loss and dual sum of each block of rows
  CsrView x;
  source.reset();
  while (source.next(x)) {
    const double* chunk_alpha = alpha ? alpha + row_offset : nullptr;
    const std::int64_t blocks = detail::row_blocks(x.n_rows);
    block_sums.assign(3 * static_cast<std::size_t>(blocks), 0.0);
    // Blocks to whichever thread is free (omp_threads.h), each summed on its own
    // and the block sums added in order: the same bits for any thread count.
SNAPML_OMP(parallel for num_threads(threads) schedule(dynamic, 1))
    for (std::int64_t block = 0; block < blocks; ++block) {
      double loss_sum = 0.0;
      double dual_sum = 0.0;
      std::int64_t bounded = 0;
      const std::int64_t end = std::min(x.n_rows, (block + 1) * detail::kRowBlock);
      for (std::int64_t row = block * detail::kRowBlock; row < end; ++row) {
        // The rows' data streams in order; their columns' weights are random
        // accesses into w, fetched a few rows ahead.
        if (fetch_weights && row + kWeightsAhead < x.n_rows)
          for (std::int64_t k = x.row_begin(row + kWeightsAhead); k < x.row_end(row + kWeightsAhead); ++k)
            __builtin_prefetch(weights + x.col_indices[k]);
        const double y = targets.target(x.labels[row]);
        const double cost = targets.cost(y, x.weight(row));
        if (!(cost > 0.0)) continue;  // a zero-cost row is absent from both problems
        if (chunk_alpha) dual_sum += loss.dual_value(y, chunk_alpha[row], cost);
        const auto index = static_cast<std::size_t>(row_offset + row);
        if (bounds != nullptr && bounds->beyond_one(index)) {
          ++bounded;  // loss 0, proved without the dot product
          continue;
        }
        const double margin = row_dot(x, row, weights) + bias_value * bias_weight;
        if (bounds != nullptr) bounds->computed(index, y * margin);
        loss_sum += cost * loss.loss(y, margin);
      }
      block_sums[3 * static_cast<std::size_t>(block)] = loss_sum;
      block_sums[3 * static_cast<std::size_t>(block) + 1] = dual_sum;
      block_sums[3 * static_cast<std::size_t>(block) + 2] = static_cast<double>(bounded);
    }
    for (std::size_t b = 0; b < block_sums.size(); b += 3) {
      total.loss += block_sums[b];
      total.dual += block_sums[b + 1];
      total.rows_bounded += static_cast<std::int64_t>(block_sums[b + 2]);
    }
    row_offset += x.n_rows;
  }
  return total;
}

}  // namespace

MarginBounds::MarginBounds(const double* squared_norms, std::size_t n_rows)
    : squared_norms_(squared_norms), margin_(n_rows, -HUGE_VAL), stamp_(n_rows, 0.0) {}

void MarginBounds::moved_to(const double* weights, std::size_t size) {
  if (previous_.size() == size) {
    double squared = 0.0;
    for (std::size_t j = 0; j < size; ++j) {
      const double step = weights[j] - previous_[j];
      squared += step * step;
    }
    drift_ += std::sqrt(squared);
  }
  previous_.assign(weights, weights + size);
}

ObjectiveSums objective_sums(ChunkSource& source, const SolverParameters& parameters,
                             const double* weights, std::int32_t n_features, const double* alpha,
                             int threads, MarginBounds* bounds) {
  const RowTargets targets = RowTargets::from(parameters);
  const int team = detail::resolve_threads(threads);
  return with_loss(parameters.loss, parameters.epsilon, 0.0, [&](const auto& loss) {
    return sums_for(loss, source, targets, weights, n_features, parameters.intercept_scaling,
                    alpha, team, bounds);
  });
}

bool record_round(FitResult& result, const Objectives& objectives, double seconds,
                  const SolverParameters& parameters) {
  EpochRecord record;
  record.epoch = result.epochs;
  record.seconds = seconds;
  record.primal = objectives.primal;
  record.dual = objectives.dual;
  record.gap = objectives.gap;
  result.history.push_back(record);
  if (parameters.on_epoch) parameters.on_epoch(record);
  // An infinite primal meets tol * P with any gap, an infinite dual makes the gap
  // -inf: a diverged iterate never converges.
  result.converged = std::isfinite(objectives.primal) && std::isfinite(objectives.gap) &&
                     objectives.gap <= parameters.tol * objectives.primal;
  return result.converged;
}

Objectives combine(const ObjectiveSums& sums, const double* weights, std::int64_t size) {
  double squared_norm = 0.0;
  for (std::int64_t j = 0; j < size; ++j) squared_norm += weights[j] * weights[j];
  return combine(sums, squared_norm);
}

Objectives combine(const ObjectiveSums& sums, double squared_norm) {
  Objectives result;
  result.primal = sums.loss + 0.5 * squared_norm;
  result.dual = sums.dual - 0.5 * squared_norm;
  result.gap = result.primal - result.dual;
  return result;
}

Objectives l1_objectives(ChunkSource& source, const SolverParameters& parameters,
                         const double* weights, std::int32_t n_features, double* dual_point,
                         int threads) {
  const RowTargets targets = RowTargets::from(parameters);
  const int team = detail::resolve_threads(threads);
  return with_loss(parameters.loss, parameters.epsilon, 0.0, [&](const auto& loss) {
    const bool free_intercept = !parameters.penalise_intercept && parameters.intercept_scaling != 0.0;
    return l1_objectives_for(loss, source, targets, weights, n_features, parameters.intercept_scaling,
                             parameters.l1_ratio, free_intercept, dual_point, team);
  });
}

double primal_objective(ChunkSource& source, const SolverParameters& parameters,
                        const double* weights, std::int32_t n_features) {
  const ObjectiveSums sums = objective_sums(source, parameters, weights, n_features, nullptr, 1);
  return combine(sums, weights, static_cast<std::int64_t>(n_features) + 1).primal;
}

}  // namespace snapml
