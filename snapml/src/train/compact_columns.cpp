#include "compact_columns.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "../common/omp_threads.h"

namespace snapml::detail {
namespace {

// Whether per-column arrays (4 bytes a column) take no more memory than the
// rows' column indices: else the columns are counted by sorting a copy of the
// indices, and renumbered by a binary search, so that no allocation grows with
// n_features past the data's size.
bool columns_fit_rows(ChunkSource& source) {
  return static_cast<std::int64_t>(source.n_features()) <= source.nnz();
}

// The threads that count with a count array each: as many as fit in the memory
// of the copy the counting precedes (4 bytes a non-zero).
int counting_threads(ChunkSource& source, int threads) {
  const std::int64_t width = std::max<std::int64_t>(source.n_features(), 1);
  return static_cast<int>(std::clamp<std::int64_t>(source.nnz() / width, 1, std::max(threads, 1)));
}

// The used columns ascending and their entries (a count past 2^32 - 1 held
// there: no column of 2^32 entries is outside the kCachedColumns most used).
struct ColumnCounts {
  std::vector<std::int32_t> column;
  std::vector<std::uint32_t> count;  // by column, where columns fit the rows; else by place in `column`
  bool by_column = false;
  std::uint32_t of(std::size_t place) const {
    return count[by_column ? static_cast<std::size_t>(column[place]) : place];
  }
};

constexpr std::uint32_t kMostCount = std::numeric_limits<std::uint32_t>::max();

std::uint32_t saturated(std::uint64_t n) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(n, kMostCount)); }

ColumnCounts column_counts(ChunkSource& source, int threads) {
  ColumnCounts counts;
  counts.by_column = columns_fit_rows(source);
  if (counts.by_column) {
    // Each thread counts its chunks into its own array; the arrays are summed.
    const auto width = static_cast<std::size_t>(source.n_features());
    const int team = counting_threads(source, threads);
    std::vector<std::uint32_t> each(static_cast<std::size_t>(team) * width, 0);
    const auto chunks = static_cast<std::int64_t>(source.n_chunks());
SNAPML_OMP(parallel for num_threads(team) schedule(dynamic, 1))
    for (std::int64_t c = 0; c < chunks; ++c) {
      std::uint32_t* count = each.data() + static_cast<std::size_t>(thread_index()) * width;
      const CsrView x = source.chunk(static_cast<std::size_t>(c));
      for (std::int64_t e = 0; e < x.nnz(); ++e) {
        std::uint32_t& n = count[static_cast<std::size_t>(x.col_indices[e])];
        n += n < kMostCount ? 1 : 0;
      }
    }
    counts.count.resize(width);
    for (std::size_t j = 0; j < width; ++j) {
      std::uint64_t n = 0;
      for (int t = 0; t < team; ++t) n += each[static_cast<std::size_t>(t) * width + j];
      counts.count[j] = saturated(n);
      if (n > 0) counts.column.push_back(static_cast<std::int32_t>(j));
    }
    return counts;
  }
  std::vector<std::int32_t>& all = counts.column;
  all.reserve(static_cast<std::size_t>(source.nnz()));
  for (std::size_t c = 0; c < source.n_chunks(); ++c) {
    const CsrView x = source.chunk(c);
    all.insert(all.end(), x.col_indices, x.col_indices + x.nnz());
  }
  std::sort(all.begin(), all.end());
  std::size_t distinct = 0;
  for (std::size_t e = 0; e < all.size();) {
    std::size_t end = e;
    while (end < all.size() && all[end] == all[e]) ++end;
    all[distinct++] = all[e];
    counts.count.push_back(saturated(end - e));
    e = end;
  }
  all.resize(distinct);
  return counts;
}

// The places 0 .. used - 1 by descending count, ties ascending: a least
// significant digit first radix sort of (~count, place), stable, so ties keep
// their ascending places. A comparison sort reading each count through the
// column took 65 ms, alone on one thread, of a 0.6 s fit over text-160k's
// 400,000 used columns (docs/benchmarks/cpu.md 9.12); this is three passes at
// most over 8 bytes a column, fewer where the counts leave a digit unchanged.
std::vector<std::int32_t> by_descending_count(const ColumnCounts& counts) {
  constexpr int kDigitBits = 11;
  constexpr std::uint64_t kDigits = std::uint64_t{1} << kDigitBits;
  const std::size_t n = counts.column.size();
  std::vector<std::uint64_t> keyed(n), other(n);
  std::uint64_t all_and = ~std::uint64_t{0}, all_or = 0;
  for (std::size_t p = 0; p < n; ++p) {
    keyed[p] = (static_cast<std::uint64_t>(kMostCount - counts.of(p)) << 32) | p;
    all_and &= keyed[p];
    all_or |= keyed[p];
  }
  std::vector<std::size_t> start(kDigits);
  for (int shift = 32; shift < 64; shift += kDigitBits) {
    if ((((all_and ^ all_or) >> shift) & (kDigits - 1)) == 0) continue;  // one digit everywhere
    std::fill(start.begin(), start.end(), 0);
    for (std::uint64_t key : keyed) ++start[(key >> shift) & (kDigits - 1)];
    std::size_t sum = 0;
    for (std::size_t& s : start) sum += std::exchange(s, sum);
    for (std::uint64_t key : keyed) other[start[(key >> shift) & (kDigits - 1)]++] = key;
    keyed.swap(other);
  }
  std::vector<std::int32_t> place(n);
  for (std::size_t p = 0; p < n; ++p) place[p] = static_cast<std::int32_t>(keyed[p] & 0xffffffffu);
  return place;
}

}  // namespace

std::uint64_t fit_columns_bytes(ChunkSource& source, int threads) {
  const auto non_zeros = static_cast<std::uint64_t>(source.nnz());
  const auto width = static_cast<std::uint64_t>(std::max(source.n_features(), 0));
  // Counting: a count array a thread, their sum and the used columns (each at
  // most the non-zeros), or a sorted copy of the indices and a count a used column.
  const bool by_column = columns_fit_rows(source);
  const std::uint64_t used = std::min(width, non_zeros);
  const std::uint64_t counting =
      by_column ? 4 * width * static_cast<std::uint64_t>(counting_threads(source, threads) + 1) + 4 * used
                : 8 * non_zeros;
  // Ordering them by count (by_descending_count): the counts and the used columns
  // (the sorted copy's capacity where they were counted by sorting), the radix
  // sort's two arrays of 8 bytes a used column and the places.
  const std::uint64_t ordering = (by_column ? 4 * width + 4 * used : 4 * non_zeros + 4 * used) + 20 * used;
  // The rows as the L1 solvers count them (feature_memory.cpp), then the copy.
  return 8 * non_zeros + 20 * static_cast<std::uint64_t>(source.n_rows()) +
         std::max({4 * non_zeros, counting, ordering});
}

std::vector<std::int32_t> fit_columns(ChunkSource& source, std::uint64_t max_memory, int threads) {
  const std::int32_t width = source.n_features();
  if (!source.resident() || width <= 0) return {};
  if (max_memory != 0 && fit_columns_bytes(source, threads) > max_memory) return {};
  ColumnCounts counts = column_counts(source, threads);
  std::vector<std::int32_t>& used = counts.column;
  if (used.size() > static_cast<std::size_t>(kCachedColumns)) {
    // Descending counts, ties ascending: the same order for the same rows.
    const auto entries = [&](std::int32_t p) { return counts.of(static_cast<std::size_t>(p)); };
    double first = 0.0;  // the entries of the first kCachedColumns used columns as they are
    for (std::int32_t k = 0; k < kCachedColumns; ++k) first += entries(k);
    std::vector<std::int32_t> place = by_descending_count(counts);
    double most = 0.0;  // ... and of the kCachedColumns most used
    for (std::int32_t k = 0; k < kCachedColumns; ++k) most += entries(place[static_cast<std::size_t>(k)]);
    if (most - first >= kCachedGain * static_cast<double>(source.nnz())) {
      for (std::int32_t& p : place) p = used[static_cast<std::size_t>(p)];
      return place;
    }
  }
  if (static_cast<double>(used.size()) > kMostUsedShare * width) return {};
  return std::move(used);
}

CompactColumns::CompactColumns(ChunkSource& inner, std::vector<std::int32_t> used, int threads)
    : inner_(inner), used_(std::move(used)) {
  std::vector<std::int32_t> renumbered;                     // by column, where columns fit the rows
  std::vector<std::pair<std::int32_t, std::int32_t>> place;  // (column, fit column) ascending, else
  if (columns_fit_rows(inner_)) {
    renumbered.assign(static_cast<std::size_t>(inner_.n_features()), -1);
    for (std::size_t j = 0; j < used_.size(); ++j)
      renumbered[static_cast<std::size_t>(used_[j])] = static_cast<std::int32_t>(j);
  } else {
    place.reserve(used_.size());
    for (std::size_t j = 0; j < used_.size(); ++j) place.emplace_back(used_[j], static_cast<std::int32_t>(j));
    std::sort(place.begin(), place.end());
  }
  const auto column = [&](std::int32_t j) {
    if (!renumbered.empty()) return renumbered[static_cast<std::size_t>(j)];
    return std::lower_bound(place.begin(), place.end(), std::make_pair(j, std::int32_t{0}))->second;
  };
  indices_.resize(inner_.n_chunks());
  const auto chunks = static_cast<std::int64_t>(indices_.size());
SNAPML_OMP(parallel for num_threads(resolve_threads(threads)) schedule(dynamic, 1))
  for (std::int64_t c = 0; c < chunks; ++c) {
    const CsrView x = inner_.chunk(static_cast<std::size_t>(c));
    std::vector<std::int32_t>& into = indices_[static_cast<std::size_t>(c)];
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
