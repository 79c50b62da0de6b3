// The per-epoch random order of the GPU SDCA solver: a bijection of [0, n)
// computed on the fly, so no permutation array is stored, written or sorted.
//
// Why not sort random keys (cub::DeviceRadixSort): that costs, every epoch and
// chunk, a pass over 2n keys and values through device memory plus 16 bytes a row
// of scratch, for an order a kernel then reads once. A keyed bijection costs a
// few integer operations in the one thread that picks each block's coordinate.
//
// Construction: a balanced Feistel network of four rounds on 2 * half_bits bits
// (Luby & Rackoff 1988: four rounds of a pseudo-random round function give a
// strong pseudo-random permutation), the round function a splitmix64 finaliser
// keyed per round. The domain 4^half_bits is the smallest power of four >= n, so
// it is < 4n; indices that land at or past n are encrypted again ("cycle
// walking", Black & Rogaway 2002), which stays a bijection of [0, n) and takes
// fewer than four rounds of walking on average. Deterministic for a seed on host
// and device alike (SNAPML_HOST_DEVICE), so the host tests check it.
#pragma once

#include <cstdint>

#include "snapml/host_device.h"

namespace snapml::cuda {

class FeistelPermutation {
 public:
  static constexpr int kRounds = 4;

  FeistelPermutation() = default;
  // A permutation of [0, n) chosen by `key`.
  SNAPML_HOST_DEVICE FeistelPermutation(std::uint64_t n, std::uint64_t key) : n_(n) {
    half_bits_ = 1;
    while ((std::uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
    half_mask_ = (std::uint64_t{1} << half_bits_) - 1;
    for (int r = 0; r < kRounds; ++r) keys_[r] = mix(key + (static_cast<std::uint64_t>(r) + 1) * kGolden);
  }

  SNAPML_HOST_DEVICE std::uint64_t size() const { return n_; }

  // The position-th index of the order; `position` < size().
  SNAPML_HOST_DEVICE std::uint64_t operator()(std::uint64_t position) const {
    std::uint64_t x = encrypt(position);
    while (x >= n_) x = encrypt(x);  // ends: position's cycle holds position < n
    return x;
  }

  // splitmix64's finaliser (Steele, Lea & Flood 2014): a cheap 64-bit mixer.
  SNAPML_HOST_DEVICE static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  static constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

  SNAPML_HOST_DEVICE std::uint64_t encrypt(std::uint64_t x) const {
    std::uint64_t left = x >> half_bits_;
    std::uint64_t right = x & half_mask_;
    for (int r = 0; r < kRounds; ++r) {
      const std::uint64_t next = left ^ (mix(right ^ keys_[r]) & half_mask_);
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  std::uint64_t n_ = 0;
  int half_bits_ = 1;
  std::uint64_t half_mask_ = 1;
  std::uint64_t keys_[kRounds] = {};
};

// The key of one epoch's order over one chunk of one worker: every input changes
// the order, and equal inputs give equal orders (a fixed seed reproduces a run's
// sequence of orders, though not its asynchronous interleaving).
SNAPML_HOST_DEVICE SNAPML_INLINE std::uint64_t permutation_key(std::uint64_t seed, std::uint64_t worker,
                                                               std::uint64_t epoch, std::uint64_t chunk) {
  std::uint64_t key = FeistelPermutation::mix(seed + 0x9E3779B97F4A7C15ULL);
  key = FeistelPermutation::mix(key ^ (worker + 1) * 0xD1B54A32D192ED03ULL);
  key = FeistelPermutation::mix(key ^ (epoch + 1) * 0xABC98388FB8FAC03ULL);
  return FeistelPermutation::mix(key ^ (chunk + 1) * 0x8CB92BA72F3D8DD7ULL);
}

}  // namespace snapml::cuda
