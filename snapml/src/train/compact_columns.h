// A resident source's rows over the columns they use, in the order a fit reads
// them best: the fit's weights, products and per-thread copies sized by the
// columns that hold a value, not by n_features, and wide weights ordered so that
// the columns most rows share sit together in cache.
//
// Hashed features leave many columns empty (ctr-21k: 50,477 of 131,111), and a
// weight's column without a value has no loss term: its optimum under either
// penalty is 0 (without one, 0 is the least-norm optimum), so the fit over the
// used columns, scattered back with zeros, is the fit over all of them. The
// primal Newton solver's width-sized work (the conjugate gradients' vectors, each
// thread's product vector, its zeroing and sum) shrinks with it, and the
// product's scatter stays in cache longer: docs/benchmarks/cpu.md 9.9.
//
// Hashing also spreads a click log's few frequent columns over the whole width:
// each shares its cache line with seven rarely used ones, so every row's gather
// from w and scatter into a product's vector misses a cache that the frequent
// columns alone would fit (2M rows over 2^20 columns: the 2^16 most used hold
// 96 % of the entries). Renumbered by descending count, they share lines with
// each other. A row's entries keep their order (renumbered, no longer
// ascending), so the fit is the fit of the same rows stored with their columns
// so renumbered, bit for bit: docs/benchmarks/cpu.md 9.10.
#pragma once

#include <cstdint>
#include <vector>

#include "snapml/chunk_source.h"

namespace snapml::detail {

// The columns a fit over a resident source runs over, in its order (column j of
// the fit is the source's column fit_columns()[j]): every used column by
// descending count (ties ascending) where more than kCachedColumns are used and
// the kCachedColumns most used hold at least kCachedGain of the entries more
// than the first kCachedColumns used ones do (a text set whose words are
// numbered by frequency keeps its order); else the used columns ascending where
// at most kMostUsedShare of n_features are. Else empty, and the fit runs on the
// source as it is; empty too where the renumbered copy of the column indices
// (4 bytes a non-zero), or the counting before it, would not fit beside the rows
// in `max_memory` (0: no budget). `threads` count and renumber the chunks.
inline constexpr double kMostUsedShare = 0.75;
// 1 MiB of weights, a core's L2 on the development machine: past it, w and a
// product's vector no longer stay in a core's cache.
inline constexpr std::int32_t kCachedColumns = 1 << 17;
inline constexpr double kCachedGain = 0.25;
std::vector<std::int32_t> fit_columns(ChunkSource& source, std::uint64_t max_memory, int threads);
// The most memory the rows and fit_columns take together (its counting, its
// order, then the copy): what `max_memory` must hold.
std::uint64_t fit_columns_bytes(ChunkSource& source, int threads);

class CompactColumns final : public ChunkSource {
 public:
  // `used`: distinct columns of `inner` (resident), in any order, every entry
  // among them (fit_columns).
  CompactColumns(ChunkSource& inner, std::vector<std::int32_t> used, int threads = 1);
  bool next(CsrView& chunk) override;
  void reset() override { position_ = 0; }
  std::int32_t n_features() const override { return static_cast<std::int32_t>(used_.size()); }
  std::int64_t n_rows() const override { return inner_.n_rows(); }
  std::int64_t nnz() const override { return inner_.nnz(); }
  std::size_t n_chunks() const override { return indices_.size(); }
  bool resident() const override { return true; }
  CsrView chunk(std::size_t index) const override;
  // Its own identity (other column indices than the inner rows'): the default.

  // Column j of this source is column used()[j] of the inner one.
  const std::vector<std::int32_t>& used() const { return used_; }

 private:
  ChunkSource& inner_;
  std::vector<std::int32_t> used_;
  std::vector<std::vector<std::int32_t>> indices_;  // per chunk, renumbered
  std::size_t position_ = 0;
};

}  // namespace snapml::detail
