// Columns that most rows touch, and a PASSCoDe thread's pending changes to their
// weights (snapml/src/dual/sdca_cpu.cpp).
//
// With T threads updating the shared w by atomic adds (PASSCoDe-Atomic, Hsieh, Yu
// & Dhillon, ICML 2015), a column present in most rows (the intercept; dense
// numeric fields; the most frequent categorical values) is written by every
// thread on nearly every step, and its cache line moves between the cores each
// time: on the generated click log, two threads were slower than one. Each thread
// instead keeps its change to the hot columns' weights pending, adds it to what it
// reads at once, and publishes it with one atomic add per column every flush_rows()
// rows whose step changed w, and at the end of its share of the epoch. w = w(alpha) therefore holds
// again when the epoch ends (the invariant the duality-gap certificate needs),
// and another thread reads a hot weight at most flush_rows() of this thread's
// changing steps late: a bounded staleness of the kind PASSCoDe's lock-free reads already have.
#pragma once

#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"

namespace snapml::detail {

class HotColumns {
 public:
  // A column is hot when at least this share of the rows has it.
  static constexpr double kMinShare = 0.05;
  // At most this many hot columns (the most frequent): a thread's flush costs one
  // atomic add per hot column with a pending change.
  static constexpr std::size_t kMaxColumns = 1024;  // fits the 16-bit slots

  HotColumns() = default;
  // From per-column row counts over n_rows rows; the intercept (column
  // `n_features`, in every row) is always hot when `with_intercept`.
  HotColumns(const std::vector<std::uint32_t>& counts, std::int64_t n_rows, bool with_intercept);

  bool empty() const { return columns_.empty(); }
  std::size_t size() const { return columns_.size(); }
  std::int32_t column(std::size_t slot) const { return columns_[slot]; }
  // Rows whose step changed w between two flushes of a thread's pending changes:
  // team_staleness.h's rows_between_publications, at most PendingUpdates::kFlushRows
  // (another thread reads a hot weight up to the other threads' pending rows late).
  void set_team(int threads);
  int flush_rows() const { return flush_rows_; }

  // The slot of column j, or -1: one bit test for the cold majority.
  std::int32_t slot(std::int32_t j) const {
    const auto u = static_cast<std::uint32_t>(j);
    if (((bits_[u >> 6] >> (u & 63)) & 1u) == 0) return -1;
    return static_cast<std::int32_t>(slots_[u]);
  }

 private:
  std::vector<std::int32_t> columns_;  // slot -> column
  // Per column (and the intercept): one bit, and 2 bytes for the slot, read for
  // hot columns only; next to w's 8 bytes a column.
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint16_t> slots_;
  int flush_rows_ = 64;
};

// Adds every column's count of rows in x to counts (size n_features + 1),
// saturating at 2^32 - 1 (4 bytes a column while the solver prepares).
void count_columns(const CsrView& x, std::vector<std::uint32_t>& counts);

// count_columns over a team: each thread counts its share of a chunk's rows into
// its own array, summed when asked (integer sums: the same counts for any thread
// count). A serial count is a random increment per non-zero into an array of the
// width of w, which on the click log took as long as half an epoch's pass; a
// thread's own array costs 4 bytes a column, so threads share the work only
// while their arrays together stay within the data's own column indices.
class ColumnCounter {
 public:
  ColumnCounter(std::size_t columns, std::int64_t epoch_nnz, int threads);
  void add(const CsrView& x);
  // The counts (size `columns`); the counter is spent.
  std::vector<std::uint32_t> take();

 private:
  std::vector<std::vector<std::uint32_t>> counts_;  // one array per thread
};

// One thread's changes to the hot columns' weights not yet in the shared vector.
struct PendingUpdates {
  static constexpr int kFlushRows = 64;
  explicit PendingUpdates(const HotColumns* hot) : hot(hot), values(hot ? hot->size() : 0, 0.0) {}
  const HotColumns* hot;
  std::vector<double> values;  // by slot
  int rows = 0;
};

}  // namespace snapml::detail
