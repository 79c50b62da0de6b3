// Internal: sums over the entries of dense vectors in four interleaved partial
// sums, for the solvers' vector arithmetic (the Newton solver's conjugate
// gradients and L-BFGS recursion).
//
// Why: a sum kept in one running variable cannot be reordered by the compiler
// (floating-point addition is not associative), so each entry waits on the
// previous addition's latency (3 to 4 cycles) even where the products are
// vectorised; over the 62,061 weights of news20 that was an eighth of a
// trust-region fit. Four chains overlap, and the order stays fixed
// ((s0 + s1) + (s2 + s3) after lanes j mod 4): the same bits on every call.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "omp_threads.h"

namespace snapml::detail {

// The K sums over j in [begin, end) of what add(j, sums) adds into sums[0..K).
template <std::size_t K, typename Add>
std::array<double, K> interleaved_sums(std::int64_t begin, std::int64_t end, const Add& add) {
  double lanes[4][K] = {};
  std::int64_t j = begin;
  for (; j + 4 <= end; j += 4)
    for (int lane = 0; lane < 4; ++lane) add(j + lane, lanes[lane]);
  for (; j < end; ++j) add(j, lanes[0]);
  std::array<double, K> sums{};
  for (std::size_t k = 0; k < K; ++k) sums[k] = (lanes[0][k] + lanes[1][k]) + (lanes[2][k] + lanes[3][k]);
  return sums;
}

// a . b over [begin, end).
inline double interleaved_dot(const double* a, const double* b, std::int64_t begin, std::int64_t end) {
  return interleaved_sums<1>(begin, end, [a, b](std::int64_t j, double* sum) { sum[0] += a[j] * b[j]; })[0];
}

// Sums too long for one thread: for each block of kSumBlock entries,
// `block(begin, end)` returns the block's part of the sum, on the threads
// (threads_for), and the parts are added in block order: the same bits for any
// thread count, identical on every rank.
inline constexpr std::int64_t kSumBlock = 4096;

// The same for K sums at once: `block(begin, end)` returns the block's K parts.
template <std::size_t K, typename Block>
std::array<double, K> blocked_sums(std::int64_t width, int threads, const Block& block) {
  const std::int64_t blocks = (width + kSumBlock - 1) / kSumBlock;
  std::vector<std::array<double, K>> sums(static_cast<std::size_t>(blocks));
SNAPML_OMP(parallel for num_threads(threads_for(width, threads)) schedule(static))
  for (std::int64_t b = 0; b < blocks; ++b)
    sums[static_cast<std::size_t>(b)] = block(b * kSumBlock, std::min(width, (b + 1) * kSumBlock));
  std::array<double, K> total{};
  for (const auto& sum : sums)
    for (std::size_t k = 0; k < K; ++k) total[k] += sum[k];
  return total;
}

template <typename Block>
double blocked_sum(std::int64_t width, int threads, const Block& block) {
  return blocked_sums<1>(width, threads, [&](std::int64_t begin, std::int64_t end) {
    return std::array<double, 1>{block(begin, end)};
  })[0];
}

// A sweep over the `width` entries of dense vectors that also sums K values of
// them (the Newton solver's CG and dot products): below kParallelEntries one
// thread's interleaved_sums, from there blocked_sums of interleaved_sums. Which
// one depends on the width alone, so the bits do not depend on the thread count.
// add(j, sums) may write entry j of the vectors: each entry is visited once.
template <std::size_t K, typename Add>
std::array<double, K> vector_sums(std::int64_t width, int threads, const Add& add) {
  if (width < kParallelEntries) return interleaved_sums<K>(0, width, add);
  return blocked_sums<K>(width, threads,
                         [&](std::int64_t begin, std::int64_t end) { return interleaved_sums<K>(begin, end, add); });
}

}  // namespace snapml::detail
