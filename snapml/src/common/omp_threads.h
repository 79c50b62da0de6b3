// Internal: the thread count a parallel loop uses, and OpenMP-or-not helpers.
#pragma once

#include <cstdint>
#include <cstdlib>

#include "snapml/threads.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

// SNAPML_OMP(parallel for ...) is `#pragma omp parallel for ...` with OpenMP and
// nothing without it (no unknown-pragma warnings in a build without OpenMP).
#define SNAPML_OMP_TEXT(...) #__VA_ARGS__
#if defined(_OPENMP)
#define SNAPML_OMP(...) _Pragma(SNAPML_OMP_TEXT(omp __VA_ARGS__))
#else
#define SNAPML_OMP(...)
#endif

namespace snapml::detail {

// `requested` threads, or every thread OpenMP offers when 0 (1 without OpenMP),
// at most thread_limit() (snapml/threads.h).
inline int resolve_threads(int requested) {
#if defined(_OPENMP)
  return clamp_threads(requested > 0 ? requested : omp_get_max_threads());
#else
  (void)requested;
  return 1;
#endif
}

// A fit's threads: `requested` when > 0, every OpenMP thread when 0 and
// OMP_NUM_THREADS says how many, else chosen from the epoch's non-zeros
// (default_threads, snapml/threads.h).
inline int resolve_fit_threads(int requested, std::int64_t epoch_nnz) {
  if (requested > 0 || std::getenv("OMP_NUM_THREADS") != nullptr) return resolve_threads(requested);
  return default_threads(epoch_nnz, resolve_threads(0));
}

// Rows handed to a team in blocks of this many, each to whichever thread asks
// next (`schedule(dynamic, 1)` over the blocks): a thread that loses its core for
// a while (to the streamed reader's thread, or another process) takes fewer
// blocks, so the others wait at the region's end for at most one block instead of
// spinning through the rest of its static share. 256 rows of a sparse set are
// tens to hundreds of microseconds, far above the cost of claiming a block.
inline constexpr std::int64_t kRowBlock = 256;

inline std::int64_t row_blocks(std::int64_t rows) { return (rows + kRowBlock - 1) / kRowBlock; }

// The threads for a loop of `entries` light iterations (an axpy, a sum of
// vectors: a few flops and no pass over the data each): one below
// kParallelEntries, `threads` from there. Such a loop over 65,536 entries takes
// tens of microseconds on one thread, about what waking a sleeping team costs
// (the spin count, snapml/threads.h, lets threads sleep soon after a region): a
// second thread pays only above it. The passes over the data and the loops that
// evaluate the loss row by row keep their teams.
inline constexpr std::int64_t kParallelEntries = std::int64_t{1} << 16;

inline int threads_for(std::int64_t entries, int threads) { return entries < kParallelEntries ? 1 : threads; }

// A double another thread may write at the same time, read or written whole
// (relaxed atomics: plain moves on x86; `omp atomic` without OpenMP is a plain access).
inline double atomic_read(const double& value) {
  double result;
SNAPML_OMP(atomic read)
  result = value;
  return result;
}

inline void atomic_write(double& target, double value) {
SNAPML_OMP(atomic write)
  target = value;
}

inline int thread_index() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// The threads of the enclosing parallel region (1 outside one).
inline int team_size() {
#if defined(_OPENMP)
  return omp_get_num_threads();
#else
  return 1;
#endif
}

}  // namespace snapml::detail
