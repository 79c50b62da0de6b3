#include "compact_columns.h"

#include <algorithm>
#include <utility>

namespace snapml::detail {
namespace {

// Whether per-column arrays (a byte, then 4 bytes a column) take no more memory
// than the rows' column indices: else the columns are found by sorting a copy of
// the indices, and renumbered by a binary search, so that no allocation grows
// with n_features past the data's size.
bool columns_fit_rows(ChunkSource& source) {
  return static_cast<std::int64_t>(source.n_features()) <= source.nnz();
}

}  // namespace

std::vector<std::int32_t> columns_worth_compacting(ChunkSource& source, std::uint64_t max_memory) {
  const std::int32_t width = source.n_features();
  if (!source.resident() || width <= 0) return {};
  // The rows as the L1 solvers count them (feature_memory.cpp), and the copy.
  const auto non_zeros = static_cast<std::uint64_t>(source.nnz());
  if (max_memory != 0 && 12 * non_zeros + 20 * static_cast<std::uint64_t>(source.n_rows()) > max_memory) return {};
  std::vector<std::int32_t> used;
  if (columns_fit_rows(source)) {
    std::vector<unsigned char> holds(static_cast<std::size_t>(width), 0);
    for (std::size_t c = 0; c < source.n_chunks(); ++c) {
      const CsrView x = source.chunk(c);
      for (std::int64_t e = 0; e < x.nnz(); ++e) holds[static_cast<std::size_t>(x.col_indices[e])] = 1;
    }
    for (std::int32_t j = 0; j < width; ++j)
      if (holds[static_cast<std::size_t>(j)]) used.push_back(j);
  } else {
    used.reserve(static_cast<std::size_t>(non_zeros));
    for (std::size_t c = 0; c < source.n_chunks(); ++c) {
      const CsrView x = source.chunk(c);
      used.insert(used.end(), x.col_indices, x.col_indices + x.nnz());
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
  }
  if (static_cast<double>(used.size()) > kMostUsedShare * width) return {};
  return used;
}

CompactColumns::CompactColumns(ChunkSource& inner, std::vector<std::int32_t> used)
    : inner_(inner), used_(std::move(used)) {
  std::vector<std::int32_t> renumbered;
  if (columns_fit_rows(inner_)) {
    renumbered.assign(static_cast<std::size_t>(inner_.n_features()), -1);
    for (std::size_t j = 0; j < used_.size(); ++j)
      renumbered[static_cast<std::size_t>(used_[j])] = static_cast<std::int32_t>(j);
  }
  const auto column = [&](std::int32_t j) {
    if (!renumbered.empty()) return renumbered[static_cast<std::size_t>(j)];
    return static_cast<std::int32_t>(std::lower_bound(used_.begin(), used_.end(), j) - used_.begin());
  };
  indices_.resize(inner_.n_chunks());
  for (std::size_t c = 0; c < indices_.size(); ++c) {
    const CsrView x = inner_.chunk(c);
    std::vector<std::int32_t>& into = indices_[c];
    into.resize(static_cast<std::size_t>(x.nnz()));
    for (std::int64_t e = 0; e < x.nnz(); ++e) into[static_cast<std::size_t>(e)] = column(x.col_indices[e]);
  }
}

CsrView CompactColumns::chunk(std::size_t index) const {
  CsrView view = inner_.chunk(index);
  view.col_indices = indices_[index].data();  // row_offsets[0] is 0 (csr_view.h)
  view.n_features = n_features();
  return view;
}

bool CompactColumns::next(CsrView& chunk) {
  if (position_ >= indices_.size()) return false;
  chunk = this->chunk(position_++);
  return true;
}

}  // namespace snapml::detail
