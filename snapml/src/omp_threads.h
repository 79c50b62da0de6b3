// Internal: the thread count a parallel loop uses, and OpenMP-or-not helpers.
#pragma once

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

// `requested` threads, or every thread OpenMP offers when 0 (1 without OpenMP).
inline int resolve_threads(int requested) {
#if defined(_OPENMP)
  return requested > 0 ? requested : omp_get_max_threads();
#else
  (void)requested;
  return 1;
#endif
}

inline int thread_index() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace snapml::detail
