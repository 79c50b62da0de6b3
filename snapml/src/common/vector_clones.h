// Internal: SNAPML_VECTOR_CLONES, a function compiled twice, for AVX2 and for the
// baseline the build targets (x86-64's SSE2), the loader picking the machine's
// (GCC's target_clones, an ifunc).
//
// Why: the wheels and the default build target the baseline, whose vectors hold
// two doubles; a loop over K adjacent doubles a non-zero (the multinomial loss's
// block products) is then bound by its instruction count, and AVX2 halves it.
// AVX2 without FMA changes no rounding: each lane's multiplications and
// additions are the baseline's, in the same order, so both clones give the same
// bits (an FMA clone would contract a * b + c and would not).
//
// OpenMP outlines a parallel region's body into a function of its own, which a
// clone attribute on the enclosing function does not reach: mark the function
// the region calls.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
#define SNAPML_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SNAPML_VECTOR_CLONES
#endif
