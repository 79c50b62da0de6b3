// A resident source's rows over the columns they use: the fit's weights,
// products and per-thread copies sized by the columns that hold a value, not by
// n_features. Hashed features leave many columns empty (ctr-21k: 50,477 of
// 131,111), and a weight's column without a value has no loss term: its optimum
// under either penalty is 0 (without one, 0 is the least-norm optimum), so the
// fit over the used columns, scattered back with zeros, is the fit over all of
// them. The primal Newton solver's width-sized work (the conjugate gradients'
// vectors, each thread's product vector, its zeroing and sum) shrinks with it,
// and the product's scatter stays in cache longer: docs/benchmarks/cpu.md 9.9.
#pragma once

#include <cstdint>
#include <vector>

#include "snapml/chunk_source.h"

namespace snapml::detail {

// The columns of a resident source that hold an entry, ascending, when there
// are few enough to pay for the renumbered copy of the column indices (4 bytes
// a non-zero; kMostUsedShare of n_features at most) and that copy fits beside
// the rows in `max_memory` (0: no budget); else empty, and the fit runs on the
// source as it is.
inline constexpr double kMostUsedShare = 0.75;
std::vector<std::int32_t> columns_worth_compacting(ChunkSource& source, std::uint64_t max_memory);

class CompactColumns final : public ChunkSource {
 public:
  // `used`: ascending columns of `inner` (resident), every entry among them.
  CompactColumns(ChunkSource& inner, std::vector<std::int32_t> used);
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
