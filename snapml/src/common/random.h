// Internal: the seeded generator and shuffle every CPU solver draws its visiting
// order from, so one seed gives the same order on every platform and compiler.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace snapml::detail {

// splitmix64's finaliser: every bit of z moves every bit of the result (also
// what the ranks' order-free row checksum sums, rank_agreement.cpp).
inline std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// splitmix64 (Steele, Lea & Flood 2014): a small, seedable, portable generator.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return splitmix64_mix(state_ += 0x9E3779B97F4A7C15ULL); }
  // Uniform in [0, bound) by Lemire's multiply-shift (bias below 2^-32 for the
  // bounds used here, which is immaterial to a shuffle's quality).
  std::uint64_t below(std::uint64_t bound) {
    __extension__ typedef unsigned __int128 Wide;  // GCC and Clang; keeps -Wpedantic quiet
    return static_cast<std::uint64_t>((static_cast<Wide>(next()) * bound) >> 64);
  }

 private:
  std::uint64_t state_;
};

// Fisher-Yates over the n entries at `first`, in place.
inline void shuffle(std::int64_t* first, std::int64_t n, SplitMix64& random) {
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(first[i], first[random.below(static_cast<std::uint64_t>(i) + 1)]);
}

// A random order of 0..n-1.
inline void random_permutation(std::vector<std::int64_t>& order, std::int64_t n, SplitMix64& random) {
  order.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  shuffle(order.data(), n, random);
}

}  // namespace snapml::detail
