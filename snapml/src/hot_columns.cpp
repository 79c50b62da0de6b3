#include "hot_columns.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace snapml::detail {

HotColumns::HotColumns(const std::vector<std::uint32_t>& counts, std::int64_t n_rows, bool with_intercept) {
  if (counts.empty() || n_rows <= 0) return;
  const auto intercept = static_cast<std::int32_t>(counts.size() - 1);
  const auto threshold = std::max<std::uint64_t>(
      static_cast<std::uint64_t>(kMinShare * static_cast<double>(n_rows)), 1);
  std::vector<std::int32_t> hot;
  for (std::int32_t j = 0; j < intercept; ++j)
    if (counts[static_cast<std::size_t>(j)] >= threshold) hot.push_back(j);
  std::sort(hot.begin(), hot.end(), [&](std::int32_t a, std::int32_t b) {
    return counts[static_cast<std::size_t>(a)] > counts[static_cast<std::size_t>(b)] ||
           (counts[static_cast<std::size_t>(a)] == counts[static_cast<std::size_t>(b)] && a < b);
  });
  if (hot.size() > kMaxColumns - 1) hot.resize(kMaxColumns - 1);
  if (with_intercept) hot.push_back(intercept);
  if (hot.empty()) return;
  columns_ = std::move(hot);
  bits_.assign((counts.size() + 63) / 64, 0);
  slots_.assign(counts.size(), 0);
  for (std::size_t s = 0; s < columns_.size(); ++s) {
    const auto u = static_cast<std::uint32_t>(columns_[s]);
    bits_[u >> 6] |= std::uint64_t{1} << (u & 63);
    slots_[u] = static_cast<std::uint16_t>(s);
  }
}

void count_columns(const CsrView& x, std::vector<std::uint32_t>& counts) {
  if (x.n_rows <= 0) return;
  for (std::int64_t k = x.row_offsets[0]; k < x.row_offsets[x.n_rows]; ++k) {
    std::uint32_t& count = counts[static_cast<std::size_t>(x.col_indices[k])];
    if (count != std::numeric_limits<std::uint32_t>::max()) ++count;
  }
}

}  // namespace snapml::detail
