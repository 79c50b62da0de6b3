#include "row_overlap.h"

#include <algorithm>
#include <cmath>

namespace snapml::detail {

RowOverlapSample::RowOverlapSample(std::int64_t rows, std::int64_t nnz, double intercept_value)
    : intercept_value_(intercept_value) {
  if (rows <= 0) return;
  const double per_row = static_cast<double>(std::max<std::int64_t>(nnz, 0)) / static_cast<double>(rows) +
                         (intercept_value != 0.0 ? 1.0 : 0.0);
  const double wanted = std::clamp(static_cast<double>(kSampleNonZeros) / std::max(per_row, 1.0), 1.0,
                                   static_cast<double>(kMostRows));
  stride_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(rows) / wanted)));
}

void RowOverlapSample::add(const CsrView& x, std::int64_t first) {
  // The first row of this chunk on the stride.
  std::int64_t row = (stride_ - first % stride_) % stride_;
  for (; row < x.n_rows && sampled_ < kMostRows; row += stride_) {
    ++sampled_;
    double square = intercept_value_ * intercept_value_;
    for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
      square += static_cast<double>(x.values[k]) * x.values[k];
    if (!(square > 0.0) || !std::isfinite(square)) continue;  // an empty row is orthogonal to every other
    const double scale = 1.0 / std::sqrt(square);
    for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
      columns_.push_back(x.col_indices[k]);
      values_.push_back(scale * static_cast<double>(x.values[k]));
    }
    if (intercept_value_ != 0.0) {
      columns_.push_back(-1);
      values_.push_back(scale * intercept_value_);
    }
    offsets_.push_back(static_cast<std::int64_t>(columns_.size()));
  }
}

double RowOverlapSample::largest_eigenvalue() const {
  const std::int64_t m = sampled_;
  const auto stored = static_cast<std::int64_t>(offsets_.size()) - 1;
  if (stored <= 0) return 0.0;
  // The sample's columns numbered densely: the vectors below are as wide as the
  // sample, not as w.
  std::vector<std::int32_t> ids(columns_);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::int32_t> local(columns_.size());
  for (std::size_t k = 0; k < columns_.size(); ++k)
    local[k] = static_cast<std::int32_t>(std::lower_bound(ids.begin(), ids.end(), columns_[k]) - ids.begin());

  const auto normalise = [](std::vector<double>& v) {
    double square = 0.0;
    for (double e : v) square += e * e;
    if (!(square > 0.0)) return false;
    const double scale = 1.0 / std::sqrt(square);
    for (double& e : v) e *= scale;
    return true;
  };
  // Started from the rows' mean: the direction the intercept and the frequent
  // columns share (for unit rows mu >= ||mean||^2).
  std::vector<double> v(ids.size(), 0.0);
  for (std::size_t k = 0; k < local.size(); ++k) v[static_cast<std::size_t>(local[k])] += values_[k];
  if (!normalise(v)) return 0.0;
  std::vector<double> u(ids.size());
  double mu = 0.0;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    std::fill(u.begin(), u.end(), 0.0);
    for (std::int64_t s = 0; s < stored; ++s) {
      const auto begin = static_cast<std::size_t>(offsets_[static_cast<std::size_t>(s)]);
      const auto end = static_cast<std::size_t>(offsets_[static_cast<std::size_t>(s) + 1]);
      double dot = 0.0;
      for (std::size_t k = begin; k < end; ++k) dot += values_[k] * v[static_cast<std::size_t>(local[k])];
      for (std::size_t k = begin; k < end; ++k) u[static_cast<std::size_t>(local[k])] += dot * values_[k];
    }
    double rayleigh = 0.0;  // v is unit: v . M v
    for (std::size_t j = 0; j < u.size(); ++j) rayleigh += v[j] * u[j];
    rayleigh /= static_cast<double>(m);
    const bool settled = std::abs(rayleigh - mu) <= 1e-9 * rayleigh;
    mu = rayleigh;
    v.swap(u);
    if (settled || !normalise(v)) break;
  }
  return mu;
}

double RowOverlapSample::overlap(std::int64_t rows) const {
  if (rows <= 1) return 0.0;
  const double lambda = largest_eigenvalue() * static_cast<double>(rows);
  return std::clamp((lambda - 1.0) / static_cast<double>(rows - 1), 0.0, 1.0);
}

}  // namespace snapml::detail
