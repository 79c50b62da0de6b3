// Internal: when and how the passes over the rows prefetch (the SDCA epoch's
// pipeline; the gap pass fetches the weights of the row a few ahead itself).
#pragma once

#include <cstddef>
#include <cstdint>

namespace snapml::detail {

// The weights a row's columns pick are random accesses into w. Prefetching them
// pays when w misses the per-core cache; when w is small it stays in cache and the
// prefetch loop over the row's indices is pure overhead (measured on a9a's 124
// weights: a quarter of the gap pass's time). 1 MB of doubles: half the 2 MB L2 of
// the development machine, about what a core keeps of a randomly read array.
inline constexpr std::size_t kPrefetchWeightsFrom = std::size_t{1} << 17;

inline bool prefetch_weights(std::size_t n_weights) { return n_weights >= kPrefetchWeightsFrom; }

// A random order defeats the hardware prefetcher, so each row's data would be a
// cold miss. A three-stage software pipeline hides them, each stage's loads
// hitting what the stage before fetched: kFar positions ahead the row's offsets,
// label, weight, alpha and norm; kMid ahead every cache line of its column
// indices and values; kNear ahead the weights of its columns (the random
// accesses into w). `locate(index)` gives the chunk and row of order[] entry
// `index`; alpha and squared_norms are indexed by it; `v` is null when w is small
// enough to stay in cache (prefetch_weights). `end` is the length of the
// whole order, not of the caller's block: rows of another thread's block are
// fetched for it.
template <typename Locate>
inline void prefetch_ahead(const std::int64_t* order, std::int64_t position, std::int64_t end,
                           const Locate& locate, const double* alpha, const double* squared_norms,
                           const double* v) {
  constexpr std::int64_t kFar = 16;
  constexpr std::int64_t kMid = 8;
  constexpr std::int64_t kNear = 3;
  constexpr std::int64_t kLine = 16;  // 4-byte indices or values in a 64-byte cache line
  if (position + kFar < end) {
    const std::int64_t ahead = order[position + kFar];
    const auto [x, row] = locate(ahead);
    __builtin_prefetch(x.row_offsets + row);
    __builtin_prefetch(x.labels + row);
    if (x.weights != nullptr) __builtin_prefetch(x.weights + row);
    __builtin_prefetch(alpha + ahead);
    __builtin_prefetch(squared_norms + ahead);
  }
  if (position + kMid < end) {
    const auto [x, row] = locate(order[position + kMid]);
    const std::int64_t start = x.row_offsets[row];
    const std::int64_t stop = x.row_offsets[row + 1];
    for (std::int64_t k = start; k < stop; k += kLine) {
      __builtin_prefetch(x.col_indices + k);
      __builtin_prefetch(x.values + k);
    }
    if (stop > start) {  // the last line, when the row starts late in its first
      __builtin_prefetch(x.col_indices + stop - 1);
      __builtin_prefetch(x.values + stop - 1);
    }
  }
  if (v != nullptr && position + kNear < end) {
    const auto [x, row] = locate(order[position + kNear]);
    for (std::int64_t k = x.row_offsets[row]; k < x.row_offsets[row + 1]; ++k) __builtin_prefetch(v + x.col_indices[k]);
  }
}

// The primal solver's passes (snapml/src/primal/matrix_operations_cpu.cpp) read
// the rows in order, which the hardware prefetcher follows, but each entry
// gathers from a vector of the weights (v in H v, w in X w) or adds into one (a
// thread's X^T d) at its column. Where those vectors miss a core's cache
// (prefetch_weights), the lines of the entries kRowsAhead rows ahead are
// fetched, the gathered vector's and the scattered one's (for writing), for the
// columns from kPrefetchColumnsFrom: a wide set's frequent columns come first
// (snapml/src/train/compact_columns.h, or a set numbered so already), and the
// first 2^16 of each vector (512 KiB) stay in a core's L2; only the rare
// columns' lines, each a miss, are worth the prefetch's instruction. On the
// generated 2M-row click log (2^20 columns, Newton, 2 threads) the fit took 0.74
// (C = 0.1) and 0.81 (C = 1) of its time; a text-like set whose columns are
// already in that order gained nothing, and prefetching its every entry
// measured no better (docs/benchmarks/primal.md, "Prefetching the rare columns").
inline constexpr std::int64_t kRowsAhead = 4;
inline constexpr std::int32_t kPrefetchColumnsFrom = std::int32_t{1} << 16;

// Prefetches gathered[j] and scattered[j] (either may be null) for the columns j
// >= kPrefetchColumnsFrom of columns[begin, end).
inline void prefetch_columns(const std::int32_t* columns, std::int64_t begin, std::int64_t end,
                             const double* gathered, const double* scattered) {
  for (std::int64_t e = begin; e < end; ++e) {
    const std::int32_t j = columns[e];
    if (j < kPrefetchColumnsFrom) continue;
    if (gathered != nullptr) __builtin_prefetch(gathered + j);
    if (scattered != nullptr) __builtin_prefetch(scattered + j, 1);
  }
}

}  // namespace snapml::detail
