#include "transposed_rows.h"

#include <algorithm>
#include <limits>

#include "../common/omp_threads.h"
#include "../common/vector_clones.h"
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

namespace {

// out[j K + k] = sum_e f[rows[e] K + k] v_e over column j's entries e (v = x or
// x^2), for the columns [first, last).
SNAPML_VECTOR_CLONES
void gather_columns(const std::int64_t* offsets, const std::int32_t* rows, const float* values, std::int64_t first,
                    std::int64_t last, const double* f, std::size_t K, bool squared, double* out) {
  for (std::int64_t j = first; j < last; ++j) {
    double* target = out + static_cast<std::size_t>(j) * K;
    for (std::size_t k = 0; k < K; ++k) target[k] = 0.0;
    for (std::int64_t e = offsets[j]; e < offsets[j + 1]; ++e) {
      const auto value = static_cast<double>(values[e]);
      const double scale = squared ? value * value : value;
      const double* source = f + static_cast<std::size_t>(rows[e]) * K;
      for (std::size_t k = 0; k < K; ++k) target[k] += source[k] * scale;
    }
  }
}

// out[rows[e] K + k] += x_e w[j K + k] over the entries [starts[j], ends[j]) of
// each column j < columns.
SNAPML_VECTOR_CLONES
void scatter_columns(const std::int64_t* starts, const std::int64_t* ends, std::size_t columns,
                     const std::int32_t* rows, const float* values, const double* w, std::size_t K, double* out) {
  for (std::size_t j = 0; j < columns; ++j) {
    const double* column = w + j * K;
    for (std::int64_t e = starts[j]; e < ends[j]; ++e) {
      const auto value = static_cast<double>(values[e]);
      double* target = out + static_cast<std::size_t>(rows[e]) * K;
      for (std::size_t k = 0; k < K; ++k) target[k] += value * column[k];
    }
  }
}

constexpr std::int64_t kColumnBlock = 64;  // columns a thread claims at once

}  // namespace

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
    scatter_columns(starts, ends, n_features, rows_.data(), values_.data(), w, K, out);
  }
}

void TransposedRows::times(const double* f, std::size_t K, bool squared, double* out, int threads) const {
  const auto columns = static_cast<std::int64_t>(offsets_.size()) - 1;
  const std::int64_t blocks = (columns + kColumnBlock - 1) / kColumnBlock;
  // Blocks of columns claimed dynamically: their lengths are skewed (a text
  // set's common words have thousands of rows, most columns a few).
SNAPML_OMP(parallel for num_threads(threads) schedule(dynamic, 1))
  for (std::int64_t block = 0; block < blocks; ++block)
    gather_columns(offsets_.data(), rows_.data(), values_.data(), block * kColumnBlock,
                   std::min(columns, (block + 1) * kColumnBlock), f, K, squared, out);
}

}  // namespace snapml::detail
