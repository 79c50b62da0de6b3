// The row side of the multinomial loss's products on the GPU (kernels.h, "K
// classes at once"): the K margins x_i . v_k of every row of a tile in one pass
// over the row's entries per kClassChunk classes (the K weights of a feature
// are adjacent, W[j K + k], so an entry's gather reads one or two sectors: the
// SpMM shape), kLanes threads a row as row_kernels.cu; then the row's first
// lane turns the K margins into what the product needs, with the CPU solver's
// arithmetic (losses/multinomial.h, multinomial_objective.cpp): the softmax, its
// loss, its paired dual value and the derivatives (the margin pass), or the
// Hessian product's row C_i p_i .* (u_i - p_i . u_i). The margins are written
// to the row's K outputs first and read back by the same lane (no other thread
// touches them).
#include <type_traits>

#include "kernels.h"
#include "reduce.cuh"
#include "snapml/cuda/check.h"

namespace snapml::cuda::primal {
namespace {

// out[i K + k] = x_i . v_k for the tile's rows, then op(row, out + i K) in the
// row's first lane, whose Sums<N> are added into the reduction (N = 0: none).
template <int kLanes, typename Op>
__global__ void __launch_bounds__(kThreads)
    class_rows(RowTile tile, int classes, const double* __restrict__ v, Intercept intercept, double* out, Op op,
               Reduction reduction, bool accumulate) {
  using Result = decltype(op(std::int64_t{0}, out));
  const LaneGroups<kLanes> groups;
  const int member = groups.member;
  Result mine{};
  for (std::int64_t base = groups.first; base < tile.n_rows; base += groups.stride) {
    const std::int64_t row = base + groups.group;
    double* margins = out + row * classes;
    for (int first = 0; first < classes; first += kClassChunk) {
      double dot[kClassChunk] = {};
      if (row < tile.n_rows && v != nullptr) {
        const std::int32_t end = __ldcs(tile.offsets + row + 1);
        for (std::int32_t e = __ldcs(tile.offsets + row) + member; e < end; e += kLanes) {
          const Entry entry = load_entry(tile.entries + e);
          const double* weights = v + std::int64_t{entry.index} * classes + first;
          for (int k = 0; k < kClassChunk; ++k)
            if (first + k < classes) dot[k] += static_cast<double>(entry.value) * __ldg(weights + k);
        }
      }
      for (int k = 0; k < kClassChunk; ++k) dot[k] = group_sum<kLanes>(dot[k]);
      if (row < tile.n_rows && member == 0)
        for (int k = 0; k < kClassChunk && first + k < classes; ++k) {
          double margin = dot[k];
          if (v != nullptr && intercept.value != 0.0)
            margin += intercept.value * __ldg(v + std::int64_t{intercept.index} * classes + first + k);
          margins[first + k] = margin;
        }
    }
    if (row < tile.n_rows && member == 0) mine += op(row, margins);
  }
  if constexpr (Result::kCount > 0) finish_sums(mine, reduction, accumulate);
}

// margins -> p (in `probabilities`, the kernel's output) and the derivatives.
struct SoftmaxTerms {
  int classes;
  const double* __restrict__ targets;
  const double* __restrict__ costs;
  double* __restrict__ derivatives;
  __device__ Sums<2> operator()(std::int64_t row, double* p) const {
    Sums<2> sums;
    softmax_row(classes, static_cast<int>(targets[row]), costs[row], p, derivatives + row * classes, sums.value);
    return sums;
  }
};

// u (the kernel's output) -> C_i p_i .* (u_i - p_i . u_i), in place.
struct SoftmaxCurvature {
  int classes;
  const double* __restrict__ costs;
  const double* __restrict__ probabilities;
  __device__ Sums<0> operator()(std::int64_t row, double* u) const {
    softmax_curvature_row(classes, costs[row], probabilities + row * classes, u);
    return {};
  }
};

template <typename Op>
void launch(const RowTile& tile, int classes, const double* v, Intercept intercept, double* out, const Op& op,
            Reduction reduction, bool accumulate, cudaStream_t stream) {
  with_lanes(tile.lanes, [&](auto lanes) {
    constexpr int kLanes = decltype(lanes)::value;
    class_rows<kLanes>
        <<<blocks_for((tile.n_rows + kWarp / kLanes - 1) / (kWarp / kLanes), kWarp), kThreads, 0, stream>>>(
            tile, classes, v, intercept, out, op, reduction, accumulate);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void launch_softmax_terms(const RowTile& tile, int classes, const double* v, Intercept intercept, const double* targets,
                          const double* costs, double* derivatives, double* probabilities, Reduction reduction,
                          bool accumulate, cudaStream_t stream) {
  if (tile.n_rows > 0)
    launch(tile, classes, v, intercept, probabilities, SoftmaxTerms{classes, targets, costs, derivatives}, reduction,
           accumulate, stream);
  else if (!accumulate)  // no rows: the sums are 0
    SNAPML_CUDA_CHECK(cudaMemsetAsync(reduction.result, 0, 2 * sizeof(double), stream));
}

void launch_softmax_curvature_rows(const RowTile& tile, int classes, const double* v, Intercept intercept,
                                   const double* costs, const double* probabilities, double* out, cudaStream_t stream) {
  if (tile.n_rows > 0)
    launch(tile, classes, v, intercept, out, SoftmaxCurvature{classes, costs, probabilities}, Reduction{}, false,
           stream);
}

}  // namespace snapml::cuda::primal
