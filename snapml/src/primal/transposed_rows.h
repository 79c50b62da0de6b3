// Internal: a column-major copy of resident rows for the block products X^T D
// (K columns at once: the multinomial loss's gradient and Hessian products),
// built by the CPU matrix operations (matrix_operations_cpu.cpp).
//
// Row-major, X^T D scatters each non-zero's K sums into the row of weights its
// column names: random read-modify-writes over the whole K (n_features + 1)
// product, which the threads can only share by a private copy each, zeroed and
// summed every pass. Column-major, each weight row is the gather sum_i x_ij D_i
// over its column's rows (D, n x K, is read at random; it is far smaller than
// the product), written once, and threads own whole columns. Each sum runs over
// its rows in increasing order, as one thread's row-major pass does: the same
// bits as that pass for any thread count. Memory: 8 bytes a non-zero and 8 a
// feature, against a copy of the product per thread.
//
// X W reads the same copy: each thread owns a range of rows and walks every
// column's entries in its range, reading W's rows in order (a stream) where the
// row-major pass reads them at random, one per non-zero. Each margin gains its
// columns in increasing order, as a canonical row (columns increasing) does in
// the row-major pass: the same bits again. The ranges' starts in each column
// take 8 bytes a feature per thread beyond the first. Both loops are compiled
// for AVX2 beside the baseline (vector_clones.h: K adjacent doubles a non-zero,
// bound by instruction count on the baseline's two-double vectors; the same bits).
#pragma once

#include <cstdint>
#include <vector>

#include "snapml/chunk_source.h"

namespace snapml::detail {

class TransposedRows {
 public:
  // The bytes the copy of `source` takes, with `threads` ranges of rows.
  static std::uint64_t bytes(const ChunkSource& source, int threads);
  // From a resident source with fewer than 2^31 rows (its chunks in order: row
  // indices are global).
  TransposedRows(const ChunkSource& source, int threads);

  // out[j K + k] = sum_i f_ik x_ij (x_ij^2 with `squared`) for the source's
  // columns j < columns(); the rest (the bias's) are the caller's. f is n x K,
  // row-major.
  void times(const double* f, std::size_t K, bool squared, double* out, int threads) const;
  // out[i K + k] += sum_j x_ij w[j K + k] over the source's columns j: out holds
  // each margin's start (the bias's term). With the constructor's `threads`.
  void add_times(const double* w, std::size_t K, double* out) const;
  std::size_t columns() const { return offsets_.size() - 1; }

 private:
  std::vector<std::int64_t> offsets_;  // n_features + 1
  std::vector<std::int32_t> rows_;     // global row indices, increasing within a column
  std::vector<float> values_;
  int threads_;
  std::vector<std::int64_t> range_rows_;    // threads + 1 row boundaries
  std::vector<std::int64_t> range_starts_;  // (threads - 1) x columns: where range t > 0 starts in column j
};

}  // namespace snapml::detail
