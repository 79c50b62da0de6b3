// The column-major copy the L1 solvers read (l1_columns.h).
#include "l1_columns.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "snapml/error.h"
#include "snapml/impl/objectives.h"

namespace snapml::detail {

L1Data read_l1_data(ChunkSource& source, const SolverParameters& parameters, bool curvature_sums) {
  L1Data data;
  data.n_features = source.n_features();
  data.n_rows = source.n_rows();
  const std::int64_t n_rows = data.n_rows;
  require(n_rows < std::numeric_limits<std::int32_t>::max(),
          "the L1 solver indexes rows with 32 bits and got " + std::to_string(n_rows) +
              " rows; train on fewer than 2^31 rows");
  const RowTargets targets = RowTargets::from(parameters);
  const bool classification = targets.classification;
  const double bias = parameters.intercept_scaling;
  const std::int64_t n_columns = static_cast<std::int64_t>(data.n_features) + 1;
  Columns& columns = data.columns;
  std::vector<double>& costs = data.costs;

  // Pass 1: costs, targets and the entries per column (zero-cost rows are absent).
  costs.assign(static_cast<std::size_t>(n_rows), 0.0);
  data.targets.assign(classification ? 0 : static_cast<std::size_t>(n_rows), 0.0);
  std::vector<double> signs(static_cast<std::size_t>(n_rows), 1.0);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n_columns) + 1, 0);
  std::int64_t positives = 0;
  std::int64_t offset = 0;
  CsrView x;
  source.reset();
  while (source.next(x)) {
    require(offset + x.n_rows <= n_rows, "the chunk source returned more rows than it counts");
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const auto i = static_cast<std::size_t>(offset + row);
      const double y = targets.target(x.labels[row]);
      costs[i] = targets.cost(y, x.weight(row));
      if (classification) {
        signs[i] = y;
        if (y > 0.0) ++positives;
      } else {
        data.targets[i] = y;
      }
      if (!(costs[i] > 0.0)) continue;
      for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) ++counts[static_cast<std::size_t>(x.col_indices[k]) + 1];
      if (bias > 0.0) ++counts[static_cast<std::size_t>(n_columns)];
    }
    offset += x.n_rows;
  }
  require(offset == n_rows, "the chunk source returned fewer rows than it counts");
  if (classification && n_rows > 0) {
    const std::int64_t fewer = std::max<std::int64_t>(std::min(positives, n_rows - positives), 1);
    data.stop_scale = static_cast<double>(fewer) / static_cast<double>(n_rows);
  }
  for (std::size_t j = 1; j < counts.size(); ++j) counts[j] += counts[j - 1];
  columns.offsets = std::move(counts);
  const std::vector<std::int64_t>& starts = columns.offsets;

  // Pass 2: scatter the entries; rows arrive in order, so each column is sorted.
  const auto nnz = static_cast<std::size_t>(starts.back());
  columns.rows.resize(nnz);
  columns.values.resize(nnz);
  std::vector<std::int64_t> next(starts.begin(), starts.end() - 1);
  offset = 0;
  source.reset();
  while (source.next(x)) {
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const auto i = static_cast<std::size_t>(offset + row);
      if (!(costs[i] > 0.0)) continue;
      const float sign = static_cast<float>(signs[i]);
      for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
        const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(x.col_indices[k])]++);
        columns.rows[slot] = static_cast<std::int32_t>(offset + row);
        columns.values[slot] = sign * x.values[k];
      }
      if (bias > 0.0) {
        const auto slot = static_cast<std::size_t>(next[static_cast<std::size_t>(data.n_features)]++);
        columns.rows[slot] = static_cast<std::int32_t>(offset + row);
        columns.values[slot] = sign;  // the intercept's value lives in scale, exactly
      }
    }
    offset += x.n_rows;
  }
  columns.scale.assign(static_cast<std::size_t>(n_columns), 1.0);
  columns.scale.back() = bias;
  if (!curvature_sums) return data;
  columns.curvature_sum.assign(static_cast<std::size_t>(n_columns), 0.0);
  for (std::int64_t j = 0; j < n_columns; ++j) {
    double sum = 0.0;
    for (std::int64_t k = columns.offsets[j]; k < columns.offsets[j + 1]; ++k) {
      const double value = columns.values[static_cast<std::size_t>(k)];
      sum += costs[static_cast<std::size_t>(columns.rows[static_cast<std::size_t>(k)])] * value * value;
    }
    const double scale = columns.scale[static_cast<std::size_t>(j)];
    columns.curvature_sum[static_cast<std::size_t>(j)] = sum * scale * scale;
  }
  return data;
}

std::vector<double> l1_start(const std::vector<double>& weights, std::int32_t n_features,
                             double intercept_scaling) {
  const auto size = static_cast<std::size_t>(n_features) + 1;
  std::vector<double> start(size, 0.0);
  if (!weights.empty()) {
    require(weights.size() == size - 1 || weights.size() == size,
            "warm start: weights have " + std::to_string(weights.size()) + " entries; pass n_features (" +
                std::to_string(n_features) + ") or n_features + 1 (with the intercept's weight)");
    std::copy(weights.begin(), weights.end(), start.begin());
    if (intercept_scaling == 0.0) start.back() = 0.0;
  }
  return start;
}

std::vector<double> l1_margins(const L1Data& data, const std::vector<double>& weights) {
  const Columns& columns = data.columns;
  std::vector<double> margins(static_cast<std::size_t>(data.n_rows), 0.0);
  for (std::int64_t j = 0; j < columns.n_columns(); ++j) {
    const double w = weights[static_cast<std::size_t>(j)] * columns.scale[static_cast<std::size_t>(j)];
    if (w == 0.0) continue;
    for (std::int64_t k = columns.offsets[j]; k < columns.offsets[j + 1]; ++k)
      margins[static_cast<std::size_t>(columns.rows[static_cast<std::size_t>(k)])] +=
          w * columns.values[static_cast<std::size_t>(k)];
  }
  return margins;
}

L1Certificates::L1Certificates(ChunkSource& source, const SolverParameters& parameters, std::int32_t n_features,
                               int threads)
    : source_(source),
      parameters_(parameters),
      n_features_(n_features),
      threads_(threads),
      started_(std::chrono::steady_clock::now()),
      dual_point_(static_cast<std::size_t>(source.n_rows()), 0.0),
      best_dual_point_(static_cast<std::size_t>(source.n_rows()), 0.0),
      best_dual_(-std::numeric_limits<double>::infinity()) {}

void L1Certificates::record(FitResult& result, const std::vector<double>& weights) {
  const Objectives objectives =
      l1_objectives(source_, parameters_, weights.data(), n_features_, dual_point_.data(), threads_);
  if (objectives.dual > best_dual_) {
    best_dual_ = objectives.dual;
    best_dual_point_.swap(dual_point_);
  }
  // Coordinate descent with a line search only decreases the primal; a non-finite
  // value means the arithmetic overflowed, and the weights mean nothing.
  if (!std::isfinite(objectives.primal))
    throw FitDiverged("the L1 fit's objective turned non-finite after " + std::to_string(result.epochs) +
                      " iterations (primal " + number_text(objectives.primal) +
                      "); no model is returned. Scale the features or lower C");
  EpochRecord entry;
  entry.epoch = result.epochs;
  entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  entry.primal = objectives.primal;
  entry.dual = best_dual_;
  entry.gap = objectives.primal - best_dual_;
  result.history.push_back(entry);
  if (parameters_.on_epoch) parameters_.on_epoch(entry);
}

}  // namespace snapml::detail
