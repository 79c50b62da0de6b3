// The weight-sized sweeps of the GPU Newton solver, each fused with the sums the
// trust region reads next (primal/trust_region.h names the steps): the gradient
// with the preconditioner and the certificate's sums, the Hessian product's
// penalty term with d.Hd, CG's start, advance and step to the boundary, and the
// trial point with the model's reduction. Each is one pass over its vectors; the
// arithmetic of each entry is the CPU solver's (trust_region_cpu.cpp, TrustRegionSteps).
#include "kernels.h"
#include "primal/trust_region.h"
#include "reduce.cuh"
#include "snapml/cuda/check.h"

namespace snapml::cuda::primal {
namespace {

// Grid-stride over j < n; every thread of the grid calls finish_sums at the end.
#define SNAPML_FOR_WEIGHTS(j, n)                                                     \
  for (std::int64_t j = blockIdx.x * std::int64_t{kThreads} + threadIdx.x; j < (n); \
       j += std::int64_t{gridDim.x} * kThreads)

__global__ void __launch_bounds__(kThreads)
    gradient_epilogue(WeightSetup setup, PartSums raw_g, PartSums raw_h, const double* __restrict__ w,
                      double* __restrict__ g, double* __restrict__ m, Reduction reduction) {
  Sums<3> sums;
  SNAPML_FOR_WEIGHTS(j, setup.n) {
    const double r = regulariser(setup, j);
    const double gj = raw_at(raw_g, setup, j, 1) + r * w[j];
    const double mj = snapml::detail::trust_region::preconditioner_entry(r, raw_at(raw_h, setup, j, 2));
    g[j] = gj;
    m[j] = mj;
    sums.value[0] += gj * gj;
    sums.value[1] += (w[j] - gj) * (w[j] - gj);
    sums.value[2] += gj * gj / mj;
  }
  finish_sums(sums, reduction, false);
}

__global__ void __launch_bounds__(kThreads)
    hessian_epilogue(WeightSetup setup, PartSums raw, const double* __restrict__ d, double* __restrict__ hd,
                     Reduction reduction) {
  Sums<1> sums;
  SNAPML_FOR_WEIGHTS(j, setup.n) {
    const double value = raw_at(raw, setup, j, 1) + regulariser(setup, j) * d[j];
    hd[j] = value;
    sums.value[0] += d[j] * value;
  }
  finish_sums(sums, reduction, false);
}

__global__ void assign_sum(WeightSetup setup, PartSums raw, int power, double* __restrict__ out) {
  SNAPML_FOR_WEIGHTS(j, setup.n) out[j] = raw_at(raw, setup, j, power);
}

__global__ void __launch_bounds__(kThreads)
    cg_start(std::int64_t n, const double* __restrict__ g, const double* __restrict__ m, double* __restrict__ r,
             double* __restrict__ d, Reduction reduction) {
  Sums<2> sums;
  SNAPML_FOR_WEIGHTS(j, n) {
    const double rj = -g[j];
    const double dj = rj / m[j];
    r[j] = rj;
    d[j] = dj;
    sums.value[0] += dj * rj;
    sums.value[1] += dj * m[j] * dj;
  }
  finish_sums(sums, reduction, false);
}

__global__ void __launch_bounds__(kThreads)
    cg_iterate(std::int64_t n, double step, double* __restrict__ s, double* __restrict__ r,
               const double* __restrict__ d, const double* __restrict__ hd, const double* __restrict__ m,
               Reduction reduction) {
  Sums<2> sums;
  SNAPML_FOR_WEIGHTS(j, n) {
    s[j] += step * d[j];
    const double rj = r[j] - step * hd[j];
    r[j] = rj;
    sums.value[0] += rj * rj / m[j];
    sums.value[1] += rj * rj;
  }
  finish_sums(sums, reduction, false);
}

// beta = zr' / zr from the device copy of zr' that cg_iterate left: the division the
// host would make, on the same doubles.
__global__ void __launch_bounds__(kThreads)
    cg_direction(std::int64_t n, const double* __restrict__ zr_next, double zr, const double* __restrict__ s,
                 const double* __restrict__ r, double* __restrict__ d, const double* __restrict__ m,
                 Reduction reduction) {
  const double beta = *zr_next / zr;
  Sums<2> sums;
  SNAPML_FOR_WEIGHTS(j, n) {
    const double dj = r[j] / m[j] + beta * d[j];
    d[j] = dj;
    sums.value[0] += s[j] * m[j] * dj;
    sums.value[1] += dj * m[j] * dj;
  }
  finish_sums(sums, reduction, false);
}

__global__ void cg_boundary(std::int64_t n, double tau, double* __restrict__ s, double* __restrict__ r,
                            const double* __restrict__ d, const double* __restrict__ hd) {
  SNAPML_FOR_WEIGHTS(j, n) {
    s[j] += tau * d[j];
    r[j] -= tau * hd[j];
  }
}

__global__ void __launch_bounds__(kThreads)
    trial_point(WeightSetup setup, const double* __restrict__ w, const double* __restrict__ s,
                const double* __restrict__ g, const double* __restrict__ r, const double* __restrict__ m,
                double* __restrict__ trial, Reduction reduction) {
  Sums<4> sums;
  SNAPML_FOR_WEIGHTS(j, setup.n) {
    const double tj = w[j] + s[j];
    trial[j] = tj;
    sums.value[0] += g[j] * s[j];
    sums.value[1] += s[j] * r[j];
    sums.value[2] += s[j] * m[j] * s[j];
    sums.value[3] += regulariser(setup, j) * tj * tj;
  }
  finish_sums(sums, reduction, false);
}

__global__ void __launch_bounds__(kThreads) penalty(WeightSetup setup, const double* __restrict__ w,
                                                    Reduction reduction) {
  Sums<1> sums;
  SNAPML_FOR_WEIGHTS(j, setup.n) sums.value[0] += regulariser(setup, j) * w[j] * w[j];
  finish_sums(sums, reduction, false);
}

#undef SNAPML_FOR_WEIGHTS

void check_launch() { SNAPML_CUDA_CHECK(cudaGetLastError()); }

}  // namespace

void launch_gradient_epilogue(const WeightSetup& setup, const PartSums& raw_g, const PartSums& raw_h,
                              const double* w, double* g, double* m, Reduction reduction, cudaStream_t stream) {
  gradient_epilogue<<<blocks_for(setup.n), kThreads, 0, stream>>>(setup, raw_g, raw_h, w, g, m, reduction);
  check_launch();
}

void launch_hessian_epilogue(const WeightSetup& setup, const PartSums& raw, const double* d, double* hd,
                             Reduction reduction, cudaStream_t stream) {
  hessian_epilogue<<<blocks_for(setup.n), kThreads, 0, stream>>>(setup, raw, d, hd, reduction);
  check_launch();
}

void launch_assign_sum(const WeightSetup& setup, const PartSums& raw, int power, double* out, cudaStream_t stream) {
  assign_sum<<<blocks_for(setup.n), kThreads, 0, stream>>>(setup, raw, power, out);
  check_launch();
}

void launch_cg_start(std::int64_t n, const double* g, const double* m, double* r, double* d, Reduction reduction,
                     cudaStream_t stream) {
  cg_start<<<blocks_for(n), kThreads, 0, stream>>>(n, g, m, r, d, reduction);
  check_launch();
}

void launch_cg_advance(std::int64_t n, double step, double zr, double* s, double* r, double* d, const double* hd,
                       const double* m, Reduction reduction_a, Reduction reduction_b, cudaStream_t stream) {
  cg_iterate<<<blocks_for(n), kThreads, 0, stream>>>(n, step, s, r, d, hd, m, reduction_a);
  check_launch();
  cg_direction<<<blocks_for(n), kThreads, 0, stream>>>(n, reduction_a.result, zr, s, r, d, m, reduction_b);
  check_launch();
}

void launch_cg_boundary(std::int64_t n, double tau, double* s, double* r, const double* d, const double* hd,
                        cudaStream_t stream) {
  cg_boundary<<<blocks_for(n), kThreads, 0, stream>>>(n, tau, s, r, d, hd);
  check_launch();
}

void launch_trial_point(const WeightSetup& setup, const double* w, const double* s, const double* g, const double* r,
                        const double* m, double* trial, Reduction reduction, cudaStream_t stream) {
  trial_point<<<blocks_for(setup.n), kThreads, 0, stream>>>(setup, w, s, g, r, m, trial, reduction);
  check_launch();
}

void launch_penalty(const WeightSetup& setup, const double* w, Reduction reduction, cudaStream_t stream) {
  penalty<<<blocks_for(setup.n), kThreads, 0, stream>>>(setup, w, reduction);
  check_launch();
}

}  // namespace snapml::cuda::primal
