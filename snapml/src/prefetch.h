// Internal: when the passes over the rows prefetch the weights of a row's columns.
#pragma once

#include <cstddef>

namespace snapml::detail {

// The weights a row's columns pick are random accesses into w. Prefetching them
// pays when w misses the per-core cache; when w is small it stays in cache and the
// prefetch loop over the row's indices is pure overhead (measured on a9a's 124
// weights: a quarter of the gap pass's time). 1 MB of doubles: half the 2 MB L2 of
// the development machine, about what a core keeps of a randomly read array.
inline constexpr std::size_t kPrefetchWeightsFrom = std::size_t{1} << 17;

inline bool prefetch_weights(std::size_t n_weights) { return n_weights >= kPrefetchWeightsFrom; }

}  // namespace snapml::detail
