// The per-feature state of a fit, checked against the memory before any of it is
// allocated.
//
// The solvers keep dense vectors indexed by feature (the weights, the hot-column
// counts, CoCoA+'s local copy; L1's column offsets and curvatures), and the model
// one weight row per problem, so the largest feature index, not the size of the
// data, sets their size: one line with index 2^31 - 2 asks for tens of GiB and,
// unchecked, ends with the kernel killing the process. train() compares this
// estimate with the budget (TrainParameters::max_memory when given, else the
// memory the machine has available) and throws FeatureMemoryError first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "snapml/error.h"
#include "snapml/penalty.h"

namespace snapml {

// Bytes the machine can give a process now: MemAvailable of /proc/meminfo, or
// the free physical pages where /proc does not say; 0 when neither is known.
std::uint64_t available_memory_bytes();

// Bytes per feature a fit holds at its peak: every problem's weight row twice
// (the problems' results and the model assembled from them), and the solver
// state of the `running` problems solved at the same time (L2: weights, CoCoA+'s
// local copy and the hot-column counts; L1: weights, the column-major copy's
// offsets, cursor, scales and curvatures, and the active set), and `replicas`
// more copies of w when the dual solver's threads may each step on their own
// (thread_updates.h; the threads of all running problems together), and one
// more w per running problem when `iterate_copy` (the dual solver's second
// iterate: a non-smooth loss's average, a smooth loss's best certified one;
// cocoa_round.h).
std::uint64_t fit_bytes_per_feature(Penalty penalty, std::size_t problems, std::size_t running,
                                    std::size_t replicas = 0, bool iterate_copy = false);

// The fit would not fit: what() says how many features, the bytes they need,
// the budget and what to do. The CLI adds the training file's name (exit 2).
class FeatureMemoryError : public InvalidArgument {
 public:
  FeatureMemoryError(std::int64_t n_features, std::uint64_t needed, std::uint64_t budget, bool budget_given);
  std::int64_t n_features() const { return n_features_; }
  std::uint64_t needed() const { return needed_; }
  std::uint64_t budget() const { return budget_; }

 private:
  std::int64_t n_features_;
  std::uint64_t needed_;
  std::uint64_t budget_;
};

// Throws FeatureMemoryError when (n_features + 1) * bytes_per_feature exceeds
// `max_memory` (when non-zero) or else available_memory_bytes() (when known).
void check_feature_memory(std::int64_t n_features, std::uint64_t bytes_per_feature, std::uint64_t max_memory);

// Penalty l1 under a memory budget (`max_memory` > 0): its solvers build a
// column-major copy of every row (snapml/src/l1_columns.h: 8 bytes a non-zero,
// about 32 a row with the intercept column, the cost, the target and the
// margin) beside the rows themselves (about 8 bytes a non-zero and 20 a row
// resident), so rows that stream from disk (`resident` false) cannot train, and
// resident rows must fit the budget with their copy. Throws InvalidArgument
// naming the sizes and the fixes. Streamed under 10 MB, -s 5 and -s 6 peaked at
// 65.9 MB (issue 36, case 10).
void check_l1_copy_memory(bool resident, std::int64_t nnz, std::int64_t rows, std::uint64_t max_memory);

// "1.5 GiB", "512 MiB", "800 bytes": a byte count for a message.
std::string byte_size_text(std::uint64_t bytes);

}  // namespace snapml
