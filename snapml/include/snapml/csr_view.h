// The data view every solver reads: a non-owning CSR chunk of rows.
//
// Row offsets are 64-bit so that a chunk (or a whole dataset viewed as one chunk)
// may hold more than 2^31 non-zeros, a known failure of several peers. Column
// indices are 32-bit: the number of features stays below 2^31. Values are float32,
// labels float64 (as scikit-learn's load_svmlight_file returns them), weights
// float32 and optional.
#pragma once

#include <cstdint>

#include "snapml/host_device.h"

namespace snapml {

struct CsrView {
  std::int64_t n_rows = 0;
  std::int32_t n_features = 0;               // columns are in [0, n_features)
  const std::int64_t* row_offsets = nullptr;  // n_rows + 1 entries; row_offsets[0] == 0
  const std::int32_t* col_indices = nullptr;  // row_offsets[n_rows] entries
  const float* values = nullptr;              // row_offsets[n_rows] entries
  const double* labels = nullptr;             // n_rows entries
  const float* weights = nullptr;             // n_rows entries, or nullptr for all ones
  std::int64_t first_row = 0;                 // global index of this chunk's row 0

  SNAPML_HOST_DEVICE std::int64_t nnz() const { return n_rows ? row_offsets[n_rows] : 0; }
  SNAPML_HOST_DEVICE std::int64_t row_begin(std::int64_t row) const { return row_offsets[row]; }
  SNAPML_HOST_DEVICE std::int64_t row_end(std::int64_t row) const { return row_offsets[row + 1]; }
  SNAPML_HOST_DEVICE float weight(std::int64_t row) const { return weights ? weights[row] : 1.0f; }
};

// Sum over row `row`'s entries of value * weight(column), in four interleaved
// partial sums added as (s0 + s1) + (s2 + s3). One running sum waits on each
// addition's latency (3 to 4 cycles) at every entry, longer than the entry's loads
// take; four chains let the next entries' loads and products overlap it (a
// margin pass over long rows, news20's, runs about twice as fast). The order is
// fixed: the same bits on every call, whatever the threads.
template <typename Real, typename Weight>
SNAPML_HOST_DEVICE SNAPML_INLINE Real row_dot_with(const CsrView& x, std::int64_t row, const Weight& weight) {
  Real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const std::int64_t end = x.row_end(row);
  std::int64_t k = x.row_begin(row);
  for (; k + 4 <= end; k += 4) {
    s0 += static_cast<Real>(x.values[k]) * weight(x.col_indices[k]);
    s1 += static_cast<Real>(x.values[k + 1]) * weight(x.col_indices[k + 1]);
    s2 += static_cast<Real>(x.values[k + 2]) * weight(x.col_indices[k + 2]);
    s3 += static_cast<Real>(x.values[k + 3]) * weight(x.col_indices[k + 3]);
  }
  for (; k < end; ++k) s0 += static_cast<Real>(x.values[k]) * weight(x.col_indices[k]);
  return (s0 + s1) + (s2 + s3);
}

// Dot product of row `row` with a dense vector `w` of at least n_features entries.
template <typename Real>
SNAPML_HOST_DEVICE SNAPML_INLINE Real row_dot(const CsrView& x, std::int64_t row, const Real* w) {
  return row_dot_with<Real>(x, row, [w](std::int32_t column) { return w[column]; });
}

// w += scale * row `row` over its columns (the caller adds the intercept's
// constant feature): w(alpha)'s accumulation, one row at a time.
SNAPML_HOST_DEVICE SNAPML_INLINE void add_scaled_row(const CsrView& x, std::int64_t row, double scale, double* w) {
  for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
    w[x.col_indices[k]] += scale * static_cast<double>(x.values[k]);
}

// Squared Euclidean norm of row `row`.
SNAPML_HOST_DEVICE SNAPML_INLINE double row_squared_norm(const CsrView& x, std::int64_t row) {
  double sum = 0;
  for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
    sum += static_cast<double>(x.values[k]) * x.values[k];
  return sum;
}

}  // namespace snapml
