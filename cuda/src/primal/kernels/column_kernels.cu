// The transposed side of the GPU Newton solver's products: for each column j of
// a tile (a row of its X^T copy), the sum over its entries x_ij of what the gather
// reads at row i: x_ij z_i, x_ij^2 z_i, or both of the gradient's (x_ij d_i and
// x_ij^2 c_i). Short columns: kLanes threads each, as the row side. Long ones
// (the plan's, operations_plan.h): each piece of kPieceEntries entries by a whole
// block into a partial, then one thread per long column adds its pieces' partials
// in order. Every column's result is written once per tile, so the tiles of a part
// add up with `accumulate` in a fixed order. The multinomial loss's K classes
// (kernels.h, "K classes at once") gather up to kClassChunk of them per pass over
// the entries: the row's K values are adjacent, so a gather reads one or two
// sectors where K passes would read the entries K times.
#include <algorithm>

#include "kernels.h"
#include "reduce.cuh"
#include "snapml/cuda/check.h"

namespace snapml::cuda::primal {
namespace {

// Sum k of column j goes to column[k][j * stride], for the sums whose bit is set
// in `stored` (a class chunk's last classes may not exist).
template <int K>
struct Outputs {
  double* column[K];
  std::int32_t stride = 1;
  unsigned stored = ~0u;
};

struct GatherPlain {
  static constexpr int K = 1;
  const double* __restrict__ z;
  __device__ Sums<1> operator()(const Entry& entry) const {
    Sums<1> out;
    out.value[0] = static_cast<double>(entry.value) * __ldg(z + entry.index);
    return out;
  }
};

struct GatherSquares {
  static constexpr int K = 1;
  const double* __restrict__ z;
  __device__ Sums<1> operator()(const Entry& entry) const {
    const double x = entry.value;
    Sums<1> out;
    out.value[0] = x * x * __ldg(z + entry.index);
    return out;
  }
};

struct GatherGradient {
  static constexpr int K = 2;
  const double* __restrict__ d;
  const double* __restrict__ c;
  __device__ Sums<2> operator()(const Entry& entry) const {
    const double x = entry.value;
    Sums<2> out;
    out.value[0] = x * __ldg(d + entry.index);
    out.value[1] = x * x * __ldg(c + entry.index);
    return out;
  }
};

// The multinomial loss's gathers, for classes [first, first + count) of z's K
// entries a row (kClassChunk at most): x_ij z_ik, and for the gradient also
// x_ij^2 C_i p_ik (1 - p_ik), the Hessian's diagonal.
struct GatherClasses {
  static constexpr int K = kClassChunk;
  const double* __restrict__ z;
  int classes, first, count;
  __device__ Sums<K> operator()(const Entry& entry) const {
    const double* row = z + std::int64_t{entry.index} * classes + first;
    Sums<K> out;
    for (int k = 0; k < K; ++k)
      if (k < count) out.value[k] = static_cast<double>(entry.value) * __ldg(row + k);
    return out;
  }
};

struct GatherSoftmaxGradient {
  static constexpr int K = 2 * kClassChunk;
  const double* __restrict__ d;
  const double* __restrict__ costs;
  const double* __restrict__ p;
  int classes, first, count;
  __device__ Sums<K> operator()(const Entry& entry) const {
    const double x = entry.value;
    const std::int64_t at = std::int64_t{entry.index} * classes + first;
    const double scale = x * x * __ldg(costs + entry.index);
    Sums<K> out;
    for (int k = 0; k < kClassChunk; ++k)
      if (k < count) {
        const double pk = __ldg(p + at + k);
        out.value[k] = x * __ldg(d + at + k);
        out.value[kClassChunk + k] = scale * pk * (1.0 - pk);
      }
    return out;
  }
};

template <int K>
__device__ __forceinline__ void store(const Outputs<K>& out, std::int32_t column, const Sums<K>& sum, bool accumulate) {
  for (int k = 0; k < K; ++k) {
    if (!(out.stored >> k & 1u)) continue;
    double* at = out.column[k] + std::int64_t{column} * out.stride;
    *at = accumulate ? *at + sum.value[k] : sum.value[k];
  }
}

template <int kLanes, typename Gather>
__global__ void __launch_bounds__(kThreads)
    short_columns(ColumnTile tile, Gather gather, Outputs<Gather::K> out, bool accumulate) {
  const LaneGroups<kLanes> groups;
  const int member = groups.member;
  for (std::int64_t base = groups.first; base < tile.n_columns; base += groups.stride) {
    const std::int64_t j = base + groups.group;
    std::int32_t begin = 0, end = 0;
    if (j < tile.n_columns) {
      begin = __ldcs(tile.offsets + j);
      end = __ldcs(tile.offsets + j + 1);
    }
    const bool walked = j < tile.n_columns && end - begin <= tile.long_threshold;  // long ones: the pieces'
    Sums<Gather::K> sum;
    if (walked) {
#pragma unroll 4
      for (std::int32_t k = begin + member; k < end; k += kLanes) sum += gather(load_entry(tile.entries + k));
    }
    for (int k = 0; k < Gather::K; ++k) sum.value[k] = group_sum<kLanes>(sum.value[k]);
    if (walked && member == 0) store(out, static_cast<std::int32_t>(j), sum, accumulate);
  }
}

// partials[kPiecePartials p + k]: piece p's sum k.
template <typename Gather>
__global__ void __launch_bounds__(kThreads) column_pieces(ColumnTile tile, Gather gather, double* partials) {
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  for (std::int32_t piece = blockIdx.x; piece < tile.n_pieces; piece += gridDim.x) {  // the same for the block
    const std::int32_t end = tile.piece_end[piece];
    Sums<Gather::K> sum;
#pragma unroll 4
    for (std::int32_t k = tile.piece_begin[piece] + threadIdx.x; k < end; k += kThreads)
      sum += gather(load_entry(tile.entries + k));
    for (int k = 0; k < Gather::K; ++k) {
      const double total = block_sum<kThreads>(sum.value[k], scratch);
      if (threadIdx.x == 0) partials[kPiecePartials * piece + k] = total;
    }
  }
}

template <int K>
__global__ void column_finish(ColumnTile tile, const double* __restrict__ partials, Outputs<K> out, bool accumulate) {
  for (std::int32_t c = blockIdx.x * kThreads + threadIdx.x; c < tile.n_long; c += gridDim.x * kThreads) {
    Sums<K> sum;
    for (std::int32_t piece = tile.first_piece[c]; piece < tile.first_piece[c + 1]; ++piece)
      for (int k = 0; k < K; ++k) sum.value[k] += partials[kPiecePartials * piece + k];
    store(out, tile.long_columns[c], sum, accumulate);
  }
}

static_assert(GatherSoftmaxGradient::K <= kPiecePartials, "a piece's partials hold every sum of a gather");

template <typename Gather>
void launch_columns(const ColumnTile& tile, const Gather& gather, const Outputs<Gather::K>& out,
                    double* piece_partials, bool accumulate, cudaStream_t stream) {
  if (tile.n_columns <= 0) return;
  with_lanes(tile.lanes, [&](auto lanes) {
    constexpr int kLanes = decltype(lanes)::value;
    short_columns<kLanes><<<blocks_for((tile.n_columns + kWarp / kLanes - 1) / (kWarp / kLanes), kWarp), kThreads,
                            0, stream>>>(tile, gather, out, accumulate);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
  if (tile.n_long == 0) return;
  column_pieces<<<tile.n_pieces < 8192 ? tile.n_pieces : 8192, kThreads, 0, stream>>>(tile, gather, piece_partials);
  SNAPML_CUDA_CHECK(cudaGetLastError());
  column_finish<Gather::K><<<blocks_for(tile.n_long), kThreads, 0, stream>>>(tile, piece_partials, out, accumulate);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void launch_column_sums(const ColumnTile& tile, ColumnSum kind, const double* z, double* out, double* piece_partials,
                        bool accumulate, cudaStream_t stream) {
  if (kind == ColumnSum::Plain)
    launch_columns(tile, GatherPlain{z}, Outputs<1>{{out}}, piece_partials, accumulate, stream);
  else
    launch_columns(tile, GatherSquares{z}, Outputs<1>{{out}}, piece_partials, accumulate, stream);
}

void launch_column_gradient(const ColumnTile& tile, const double* d, const double* c, double* out_g, double* out_h,
                            double* piece_partials, bool accumulate, cudaStream_t stream) {
  launch_columns(tile, GatherGradient{d, c}, Outputs<2>{{out_g, out_h}}, piece_partials, accumulate, stream);
}

void launch_block_column_sums(const ColumnTile& tile, int classes, const double* z, double* out,
                              double* piece_partials, bool accumulate, cudaStream_t stream) {
  for (int first = 0; first < classes; first += kClassChunk) {
    const int count = std::min(kClassChunk, classes - first);
    Outputs<kClassChunk> outputs;
    for (int k = 0; k < kClassChunk; ++k) outputs.column[k] = out + first + k;
    outputs.stride = classes;
    outputs.stored = (1u << count) - 1u;
    launch_columns(tile, GatherClasses{z, classes, first, count}, outputs, piece_partials, accumulate, stream);
  }
}

void launch_softmax_column_gradient(const ColumnTile& tile, int classes, const double* d, const double* costs,
                                    const double* probabilities, double* out_g, double* out_h,
                                    double* piece_partials, bool accumulate, cudaStream_t stream) {
  for (int first = 0; first < classes; first += kClassChunk) {
    const int count = std::min(kClassChunk, classes - first);
    Outputs<2 * kClassChunk> outputs;
    for (int k = 0; k < kClassChunk; ++k) {
      outputs.column[k] = out_g + first + k;
      outputs.column[kClassChunk + k] = out_h + first + k;
    }
    outputs.stride = classes;
    outputs.stored = ((1u << count) - 1u) * (1u + (1u << kClassChunk));  // the chunk's classes, g and h
    launch_columns(tile, GatherSoftmaxGradient{d, costs, probabilities, classes, first, count}, outputs,
                   piece_partials, accumulate, stream);
  }
}

}  // namespace snapml::cuda::primal
