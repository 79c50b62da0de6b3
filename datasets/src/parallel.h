// OpenMP for the dataset readers and generators, written so that a build with
// SNAPML_OPENMP=OFF compiles the same loops serially and warning-free (-Wall
// warns about an unknown `#pragma omp`, so the pragmas go through a macro).
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

#include "snapml/threads.h"

#define SNAPML_PRAGMA(text) _Pragma(#text)
#ifdef _OPENMP
#define SNAPML_OMP(directive) SNAPML_PRAGMA(omp directive)
#else
#define SNAPML_OMP(directive)
#endif

namespace snapml::datasets::detail {

// The thread count to use: `requested` when positive, else all that OpenMP
// offers; at most thread_limit() (snapml/threads.h).
inline int resolve_threads(int requested) {
  if (requested > 0) return clamp_threads(requested);
#ifdef _OPENMP
  return clamp_threads(omp_get_max_threads());
#else
  return 1;
#endif
}

}  // namespace snapml::datasets::detail
