// Random Fourier features of the RBF kernel k(x, y) = exp(-gamma ||x - y||^2)
// (Rahimi & Recht, "Random Features for Large-Scale Kernel Machines", NIPS 2007):
//
//   z(x)_j = sqrt(2 / D) cos(w_j . x + b_j),   j = 0 .. D-1,
//
// with w_j drawn from N(0, 2 gamma I), the kernel's Fourier transform, and b_j
// from U[0, 2 pi), so that E[z(x) . z(y)] = k(x, y) (Bochner's theorem). A linear
// model trained on z(x) approximates the RBF kernel machine at the cost of a
// linear one on D features. The random matrix is an input: Python draws it as
// scikit-learn's RBFSampler does (its random_weights_, n_features x D, and
// random_offset_), so the same random_state gives the same features.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"
#include "snapml/host_device.h"

namespace snapml {

// One feature from its projection w_j . x + b_j: the maths the CPU and a GPU
// kernel share.
SNAPML_HOST_DEVICE SNAPML_INLINE float fourier_feature(double projection, double scale) {
  return static_cast<float>(scale * cos(projection));
}

struct RandomFourierMap {
  std::int32_t n_features = 0;    // the input's columns: rows of `weights`
  std::int32_t n_components = 0;  // D
  std::vector<double> weights;    // n_features x n_components, row-major
  std::vector<double> offsets;    // n_components

  // Throws InvalidArgument unless the shapes agree and every number is finite.
  void check() const;
  // sqrt(2 / D), every feature's factor.
  double scale() const { return std::sqrt(2.0 / static_cast<double>(n_components)); }
};

// z(x) of every row of `rows`, row-major into `out` (rows.n_rows x n_components).
// `rows` may have fewer columns than the map (the missing ones are zero); more is
// an InvalidArgument. Each row's projections are summed in the order of its
// entries, so the result does not depend on `threads` (0: every OpenMP thread).
void random_fourier_features(const CsrView& rows, const RandomFourierMap& map, float* out, int threads);

// The same features computed on CUDA device `device_id` by the GPU backend's
// kernel (the same sums in the same order, in double; the cosine is CUDA's, within
// an ulp of the host's). Throws Unsupported without the backend or the device.
void random_fourier_features_gpu(const CsrView& rows, const RandomFourierMap& map, float* out, int device_id);

// The backend's entry point for it (impl/gpu_backend.h).
using RandomFeaturesGpu = void (*)(const CsrView& rows, const RandomFourierMap& map, float* out, int device_id);

}  // namespace snapml
