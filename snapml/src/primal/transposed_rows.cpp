#include "transposed_rows.h"

#include <algorithm>
#include <limits>

#include "../common/omp_threads.h"
#include "snapml/error.h"

namespace snapml::detail {

std::uint64_t TransposedRows::bytes(const ChunkSource& source, int threads) {
  const auto nnz = static_cast<std::uint64_t>(source.nnz());
  const auto columns = static_cast<std::uint64_t>(source.n_features()) + 1;
  const auto ranges = static_cast<std::uint64_t>(std::max(threads, 1));
  return nnz * (sizeof(std::int32_t) + sizeof(float)) + columns * ranges * sizeof(std::int64_t);
}

TransposedRows::TransposedRows(const ChunkSource& source, int threads) : threads_(std::max(threads, 1)) {
  require(source.resident(), "TransposedRows: the rows are not resident");
  require(source.n_rows() <= std::numeric_limits<std::int32_t>::max(), "TransposedRows: 2^31 rows or more");
  const auto n_features = static_cast<std::size_t>(source.n_features());
  std::vector<std::int64_t> counts(n_features + 1, 0);
  for (std::size_t c = 0; c < source.n_chunks(); ++c) {
    const CsrView x = source.chunk(c);
    for (std::int64_t e = 0; e < x.nnz(); ++e) ++counts[static_cast<std::size_t>(x.col_indices[e]) + 1];
  }
  for (std::size_t j = 0; j < n_features; ++j) counts[j + 1] += counts[j];
  offsets_ = counts;
  rows_.resize(static_cast<std::size_t>(offsets_.back()));
  values_.resize(rows_.size());
  // Chunks and rows in order: each column's rows come out increasing.
  std::int64_t first = 0;
  for (std::size_t c = 0; c < source.n_chunks(); ++c) {
    const CsrView x = source.chunk(c);
    for (std::int64_t row = 0; row < x.n_rows; ++row)
      for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) {
        const auto slot = static_cast<std::size_t>(counts[static_cast<std::size_t>(x.col_indices[e])]++);
        rows_[slot] = static_cast<std::int32_t>(first + row);
        values_[slot] = x.values[e];
      }
    first += x.n_rows;
  }
  // Equal ranges of rows; where each starts in each column (its rows increase).
  const auto ranges = static_cast<std::size_t>(threads_);
  range_rows_.resize(ranges + 1);
  for (std::size_t t = 0; t <= ranges; ++t)
    range_rows_[t] = first * static_cast<std::int64_t>(t) / static_cast<std::int64_t>(ranges);
  range_starts_.resize((ranges - 1) * n_features);
  for (std::size_t j = 0; j < n_features; ++j) {
    std::int64_t e = offsets_[j];
    for (std::size_t t = 1; t < ranges; ++t) {
      while (e < offsets_[j + 1] && rows_[static_cast<std::size_t>(e)] < range_rows_[t]) ++e;
      range_starts_[(t - 1) * n_features + j] = e;
    }
  }
}

void TransposedRows::add_times(const double* w, std::size_t K, double* out) const {
  const std::size_t n_features = columns();
  const auto ranges = static_cast<std::int64_t>(threads_);
SNAPML_OMP(parallel for num_threads(threads_) schedule(static, 1))
  for (std::int64_t t = 0; t < ranges; ++t) {
    const auto range = static_cast<std::size_t>(t);
    const std::int64_t* starts = range == 0 ? offsets_.data() : range_starts_.data() + (range - 1) * n_features;
    const std::int64_t* ends = range + 1 == static_cast<std::size_t>(ranges)
                                   ? offsets_.data() + 1
                                   : range_starts_.data() + range * n_features;
    for (std::size_t j = 0; j < n_features; ++j) {
      const double* column = w + j * K;
      for (std::int64_t e = starts[j]; e < ends[j]; ++e) {
        const auto value = static_cast<double>(values_[static_cast<std::size_t>(e)]);
        double* target = out + static_cast<std::size_t>(rows_[static_cast<std::size_t>(e)]) * K;
        for (std::size_t k = 0; k < K; ++k) target[k] += value * column[k];
      }
    }
  }
}

void TransposedRows::times(const double* f, std::size_t K, bool squared, double* out, int threads) const {
  const auto columns = static_cast<std::int64_t>(offsets_.size()) - 1;
  // Columns in blocks claimed dynamically: their lengths are skewed (a text
  // set's common words have thousands of rows, most columns a few).
SNAPML_OMP(parallel for num_threads(threads) schedule(dynamic, 64))
  for (std::int64_t j = 0; j < columns; ++j) {
    double* target = out + static_cast<std::size_t>(j) * K;
    std::fill(target, target + K, 0.0);
    for (std::int64_t e = offsets_[static_cast<std::size_t>(j)]; e < offsets_[static_cast<std::size_t>(j) + 1]; ++e) {
      const auto value = static_cast<double>(values_[static_cast<std::size_t>(e)]);
      const double scale = squared ? value * value : value;
      const double* source = f + static_cast<std::size_t>(rows_[static_cast<std::size_t>(e)]) * K;
      for (std::size_t k = 0; k < K; ++k) target[k] += source[k] * scale;
    }
  }
}

}  // namespace snapml::detail
