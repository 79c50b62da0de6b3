#include "hot_columns.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "../../common/omp_threads.h"
#include "team_staleness.h"

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
  // The counts are random accesses into an array as wide as w; fetched ahead,
  // the increments stop waiting on them one at a time.
  constexpr std::int64_t kAhead = 64;
  std::uint32_t* const count = counts.data();
  const std::int32_t* const column = x.col_indices;
  const std::int64_t begin = x.row_offsets[0], end = x.row_offsets[x.n_rows];
  for (std::int64_t k = begin; k < end; ++k) {
    if (k + kAhead < end) __builtin_prefetch(count + column[k + kAhead], 1);
    std::uint32_t& c = count[column[k]];
    if (c != std::numeric_limits<std::uint32_t>::max()) ++c;
  }
}

ColumnCounter::ColumnCounter(std::size_t columns, std::int64_t epoch_nnz, int threads) {
  // Arrays beyond the first: (team - 1) * columns counts, within epoch_nnz.
  const auto width = static_cast<std::int64_t>(std::max<std::size_t>(columns, 1));
  const std::int64_t team = std::clamp<std::int64_t>(1 + epoch_nnz / width, 1, std::max(threads, 1));
  counts_.resize(static_cast<std::size_t>(team));
  counts_.front().assign(columns, 0);
}

void ColumnCounter::add(const CsrView& x) {
  const auto team = static_cast<std::int64_t>(counts_.size());
  if (team == 1 || x.n_rows < team * kRowBlock) {
    count_columns(x, counts_.front());
    return;
  }
SNAPML_OMP(parallel for num_threads(static_cast<int>(team)) schedule(static, 1))
  for (std::int64_t t = 0; t < team; ++t) {
    std::vector<std::uint32_t>& own = counts_[static_cast<std::size_t>(t)];
    if (own.size() != counts_.front().size()) own.assign(counts_.front().size(), 0);  // first touch by its thread
    CsrView share = x;
    const std::int64_t begin = x.n_rows * t / team, end = x.n_rows * (t + 1) / team;
    share.row_offsets = x.row_offsets + begin;
    share.n_rows = end - begin;
    count_columns(share, own);
  }
}

std::vector<std::uint32_t> ColumnCounter::take() {
  std::vector<std::uint32_t> total = std::move(counts_.front());
  for (std::size_t t = 1; t < counts_.size(); ++t) {
    const std::vector<std::uint32_t>& own = counts_[t];
    for (std::size_t j = 0; j < own.size(); ++j) {
      const std::uint64_t sum = std::uint64_t{total[j]} + own[j];
      total[j] = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, std::numeric_limits<std::uint32_t>::max()));
    }
  }
  counts_.clear();
  return total;
}

void HotColumns::set_team(int threads) {
  flush_rows_ = rows_between_publications(threads, PendingUpdates::kFlushRows);
}

}  // namespace snapml::detail
