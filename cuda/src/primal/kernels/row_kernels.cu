// The row side of the GPU Newton solver's products: x_i . v for every row of a
// tile, kLanes threads a row (each a fixed stride of the row's entries, then a
// shuffle tree), and what each product does with the dot in the row's first lane:
// the loss terms of the margin pass (fused, with their sums), the curvature-scaled
// row of a Hessian product, or the plain dot. kernels.h states the contracts.
#include <type_traits>

#include "kernels.h"
#include "reduce.cuh"
#include "snapml/cuda/check.h"
#include "snapml/error.h"
#include "snapml/losses/primal_terms.h"

namespace snapml::cuda::primal {
namespace {

// Calls op(row, dot) for each row of the tile in its first lane, and adds what op
// returns (Sums<N>) into the reduction (N = 0: nothing to add).
template <int kLanes, typename Op>
__global__ void __launch_bounds__(kThreads)
    row_pass(RowTile tile, const double* __restrict__ v, Intercept intercept, Op op, Reduction reduction,
             bool accumulate) {
  using Result = decltype(op(std::int64_t{0}, 0.0));
  const LaneGroups<kLanes> groups;
  const int member = groups.member;
  Result mine{};
  for (std::int64_t base = groups.first; base < tile.n_rows; base += groups.stride) {
    const std::int64_t row = base + groups.group;
    double dot = 0.0;
    if (row < tile.n_rows && v != nullptr) {
      const std::int32_t end = __ldcs(tile.offsets + row + 1);
#pragma unroll 4
      for (std::int32_t k = __ldcs(tile.offsets + row) + member; k < end; k += kLanes) {
        const Entry entry = load_entry(tile.entries + k);
        dot += static_cast<double>(entry.value) * __ldg(v + entry.index);
      }
    }
    dot = group_sum<kLanes>(dot);
    if (row < tile.n_rows && member == 0) {
      if (v != nullptr && intercept.value != 0.0) dot += intercept.value * __ldg(v + intercept.index);
      mine += op(row, dot);
    }
  }
  if constexpr (Result::kCount > 0) finish_sums(mine, reduction, accumulate);
}

template <typename Loss>
struct MarginTerms {
  Loss loss;
  const double* __restrict__ targets;
  const double* __restrict__ costs;
  double* __restrict__ derivatives;
  double* __restrict__ curvatures;
  __device__ Sums<2> operator()(std::int64_t row, double margin) const {
    Sums<2> sums;
    const double cost = costs[row];
    if (!(cost > 0.0)) {  // a row absent from the problem (as the CPU solver skips it)
      derivatives[row] = curvatures[row] = 0.0;
      return sums;
    }
    const double y = targets[row];
    const losses::PrimalTerms terms = losses::primal_terms(loss, y, margin);
    derivatives[row] = cost * terms.derivative;
    curvatures[row] = cost * terms.curvature;
    sums.value[0] = cost * terms.value;
    sums.value[1] = losses::paired_dual_value(loss, y, margin, cost, terms);
    return sums;
  }
};

struct CurvatureRow {
  const double* __restrict__ curvatures;
  double* __restrict__ out;
  __device__ Sums<0> operator()(std::int64_t row, double dot) const {
    const double c = curvatures[row];
    out[row] = c == 0.0 ? 0.0 : c * dot;
    return {};
  }
};

struct StoreDot {
  double* __restrict__ out;
  __device__ Sums<0> operator()(std::int64_t row, double dot) const {
    out[row] = dot;
    return {};
  }
};

template <typename Op>
void launch_rows(const RowTile& tile, const double* v, Intercept intercept, const Op& op, Reduction reduction,
                 bool accumulate, cudaStream_t stream) {
  if (tile.n_rows <= 0) return;
  with_lanes(tile.lanes, [&](auto lanes) {
    constexpr int kLanes = decltype(lanes)::value;
    row_pass<kLanes><<<blocks_for((tile.n_rows + kWarp / kLanes - 1) / (kWarp / kLanes), kWarp), kThreads, 0,
                       stream>>>(tile, v, intercept, op, reduction, accumulate);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

template <typename Loss>
__global__ void alpha_derivatives(Loss loss, std::int64_t n, const double* __restrict__ targets,
                                  const double* __restrict__ costs, double* __restrict__ values) {
  for (std::int64_t i = blockIdx.x * std::int64_t{kThreads} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * kThreads)
    values[i] = costs[i] > 0.0 ? values[i] * loss.coefficient(targets[i]) : 0.0;
}

template <typename Loss>
__global__ void paired_alpha(Loss loss, std::int64_t n, const double* __restrict__ targets,
                             const double* __restrict__ derivatives, double* __restrict__ alpha) {
  for (std::int64_t i = blockIdx.x * std::int64_t{kThreads} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * kThreads)
    alpha[i] = -derivatives[i] * loss.coefficient(targets[i]);
}

}  // namespace

void launch_margin_terms(const PrimalLoss& loss_setup, const RowTile& tile, const double* v, Intercept intercept,
                         const double* targets, const double* costs, double* derivatives, double* curvatures,
                         Reduction reduction, bool accumulate, cudaStream_t stream) {
  with_primal_loss(loss_setup, [&](const auto& loss) {
    using Loss = std::decay_t<decltype(loss)>;
    const MarginTerms<Loss> op{loss, targets, costs, derivatives, curvatures};
    if (tile.n_rows > 0) {
      launch_rows(tile, v, intercept, op, reduction, accumulate, stream);
    } else if (!accumulate) {  // no rows: the sums are 0
      SNAPML_CUDA_CHECK(cudaMemsetAsync(reduction.result, 0, 2 * sizeof(double), stream));
    }
  });
}

void launch_curvature_rows(const RowTile& tile, const double* v, Intercept intercept, const double* curvatures,
                           double* out, cudaStream_t stream) {
  launch_rows(tile, v, intercept, CurvatureRow{curvatures, out}, Reduction{}, false, stream);
}

void launch_row_dots(const RowTile& tile, const double* v, Intercept intercept, double* out, cudaStream_t stream) {
  launch_rows(tile, v, intercept, StoreDot{out}, Reduction{}, false, stream);
}

void launch_alpha_derivatives(const PrimalLoss& loss_setup, std::int64_t n, const double* targets,
                              const double* costs, double* values, cudaStream_t stream) {
  if (n <= 0) return;
  with_primal_loss(loss_setup, [&](const auto& loss) {
    alpha_derivatives<<<blocks_for(n), kThreads, 0, stream>>>(loss, n, targets, costs, values);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_paired_alpha(const PrimalLoss& loss_setup, std::int64_t n, const double* targets,
                         const double* derivatives, double* alpha, cudaStream_t stream) {
  if (n <= 0) return;
  with_primal_loss(loss_setup, [&](const auto& loss) {
    paired_alpha<<<blocks_for(n), kThreads, 0, stream>>>(loss, n, targets, derivatives, alpha);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snapml::cuda::primal
