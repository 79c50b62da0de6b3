// vector_sums (snapml/src/common/interleaved_sums.h), the Newton solver's sweeps
// over its weights: every entry visited once, sums within rounding of an exact
// one, and the same bits for any thread count on either side of
// kParallelEntries, where the sweep moves from one thread to ordered blocks.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../../../snapml/src/common/interleaved_sums.h"

namespace {

using snapml::detail::kParallelEntries;
using snapml::detail::vector_sums;

TEST(VectorSums, EveryEntryOnceAndTheSameBitsForAnyThreadCount) {
  for (const std::int64_t width : {std::int64_t{1000}, kParallelEntries - 1, kParallelEntries, 3 * kParallelEntries + 7}) {
    SCOPED_TRACE(width);
    std::mt19937_64 random(static_cast<std::uint64_t>(width));
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> a(static_cast<std::size_t>(width)), b(a.size());
    for (std::size_t j = 0; j < a.size(); ++j) {
      a[j] = normal(random);
      b[j] = normal(random) * 1e3;
    }
    long double exact_dot = 0.0L, exact_squares = 0.0L;
    for (std::size_t j = 0; j < a.size(); ++j) {
      exact_dot += static_cast<long double>(a[j]) * b[j];
      exact_squares += static_cast<long double>(b[j]) * b[j];
    }
    std::array<double, 2> first{};
    for (const int threads : {1, 2, 4}) {
      std::vector<double> visits(a.size(), 0.0);
      const auto sums = vector_sums<2>(width, threads, [&](std::int64_t j, double* sum) {
        const auto i = static_cast<std::size_t>(j);
        visits[i] += 1.0;  // each entry written by the one thread that sums it
        sum[0] += a[i] * b[i];
        sum[1] += b[i] * b[i];
      });
      for (std::size_t j = 0; j < visits.size(); ++j) ASSERT_EQ(visits[j], 1.0) << "entry " << j;
      EXPECT_NEAR(sums[0], static_cast<double>(exact_dot), 1e-12 * static_cast<double>(exact_squares));
      EXPECT_NEAR(sums[1], static_cast<double>(exact_squares), 1e-13 * static_cast<double>(exact_squares));
      if (threads == 1) {
        first = sums;
      } else {
        EXPECT_EQ(sums[0], first[0]) << threads << " threads";
        EXPECT_EQ(sums[1], first[1]) << threads << " threads";
      }
    }
  }
}

}  // namespace
