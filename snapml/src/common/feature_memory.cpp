#include "snapml/feature_memory.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace snapml {

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemAvailable:", 0) == 0) return std::stoull(line.substr(13)) * 1024;  // "MemAvailable: 123 kB"
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

std::uint64_t fit_bytes_per_feature(Penalty penalty, std::size_t problems, std::size_t running,
                                    std::size_t replicas, bool iterate_copy) {
  // L2 (sdca_cpu.cpp): w 8, CoCoA+'s local copy 8, column counts 4 and the
  // hot-column slot 2 (rounded up to 24). L1 (cd_l1_cpu.cpp): w, counts, offsets,
  // cursor, scale, curvature sum and order, 8 each; newGLMNET (glmnet_cpu.cpp)
  // holds no more: w, offsets, scale, order, gradient, Hessian diagonal and
  // direction, without the curvature sums (the counts and cursor are gone by then).
  const std::uint64_t solver = penalty == Penalty::L1 ? 56 : 24;
  // The dual fits also keep a second iterate's w (cocoa_round.h: the hinge's
  // average, a smooth loss's best certified iterate): 8 more each.
  const std::uint64_t second_iterate = iterate_copy ? 8 : 0;
  return 16 * static_cast<std::uint64_t>(problems) + (solver + second_iterate) * static_cast<std::uint64_t>(running) +
         8 * static_cast<std::uint64_t>(replicas);
}

std::string byte_size_text(std::uint64_t bytes) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof units / sizeof *units) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

FeatureMemoryError::FeatureMemoryError(std::int64_t n_features, std::uint64_t needed, std::uint64_t budget,
                                       bool budget_given)
    : InvalidArgument(std::to_string(n_features) + " features (set by the largest feature index) need " +
                      byte_size_text(needed) + " of per-feature state for this fit, more than the " +
                      byte_size_text(budget) +
                      (budget_given ? " of the memory budget (--max-memory, max_memory)"
                                    : " of memory available (MemAvailable)") +
                      "; remap the feature indices to a dense range (0 or 1 up to the number of distinct features), "
                      "or, if the machine has the memory, pass a larger budget (snap-train --max-memory " +
                      std::to_string((needed >> 30) + 1) + "G)"),
      n_features_(n_features),
      needed_(needed),
      budget_(budget) {}

void check_feature_memory(std::int64_t n_features, std::uint64_t bytes_per_feature, std::uint64_t max_memory) {
  const std::uint64_t budget = max_memory > 0 ? max_memory : available_memory_bytes();
  if (budget == 0) return;  // nothing to compare with
  const std::uint64_t needed = (static_cast<std::uint64_t>(n_features) + 1) * bytes_per_feature;
  if (needed > budget) throw FeatureMemoryError(n_features, needed, budget, max_memory > 0);
}

void check_l1_copy_memory(bool resident, std::int64_t nnz, std::int64_t rows, std::uint64_t max_memory) {
  if (max_memory == 0) return;
  const auto non_zeros = static_cast<std::uint64_t>(nnz);
  const auto row_count = static_cast<std::uint64_t>(rows);
  const std::uint64_t copy = 8 * non_zeros + 32 * row_count;
  const std::uint64_t held = 8 * non_zeros + 20 * row_count;
  const std::string fix = "raise --max-memory (max_memory) to at least " + byte_size_text(held + copy) +
                          ", or train with penalty l2, whose solvers stream";
  require(resident, "penalty l1 keeps a column-major copy of every row in memory (" + byte_size_text(copy) +
                        "), and these rows stream from disk because they do not fit the memory budget of " +
                        byte_size_text(max_memory) + ": " + fix);
  require(held + copy <= max_memory, "penalty l1 keeps a column-major copy of every row (" + byte_size_text(copy) +
                                         ") beside the rows (" + byte_size_text(held) +
                                         "): together above the memory budget of " + byte_size_text(max_memory) +
                                         ": " + fix);
}

}  // namespace snapml
