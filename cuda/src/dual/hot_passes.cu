// The hot step's passes of the GPU dual solver (hot_newton.h, hybrid_backend.h)
// and its row-scalar reductions. The arithmetic of every row is row_work.h's;
// here it is laid out over threads.
//
// The passes over the rows' entries (margins and hot sums, Hessian products, the
// certificate's paired point) are persistent grids of one block per row at a time,
// as the cold pass: the block reduces the row's dot product, thread 0 takes the
// row's scalar work, and the block adds the row's contribution to the hot-slot
// vectors. The densest hot slots (the first `shared`, the intercept's first) are
// summed in the block's shared memory and added to the global vector once per
// block at the end: every row would add to the intercept's entry, and atomics on
// one address serialise. The rest go straight to global memory with atomics.
//
// The row-scalar reductions (the line search, the certificate's sums) are one
// thread per row over kRowBlocks blocks, each writing its partial sums; the host
// adds them in block order, so the sums do not depend on the schedule.
#include <algorithm>
#include <type_traits>

#include "device/block_reduce.cuh"
#include "dual/kernels.h"
#include "snapml/cuda/check.h"

namespace snapml::cuda::dual {
namespace {

using detail::block_sum;
using detail::kBlockSumSlots;
using detail::with_block_size;

// Blocks of the persistent row passes: a few per SM (their shared accumulators
// are flushed once per block, so more blocks are more atomics at the end).
constexpr int kPassBlocks = 1056;
constexpr int kReduceThreads = 256;

// Adds `value` to slot s of a hot vector: in shared memory below `shared`, else
// in global memory.
__device__ __forceinline__ void add_slot(double* local, double* global, std::int32_t shared, std::int32_t s,
                                         double value) {
  if (value == 0.0) return;
  if (s < shared)
    atomicAdd(local + s, value);
  else
    atomicAdd(global + s, value);
}

// Zeroes `count` doubles of shared memory (every thread calls it).
template <int kThreads>
__device__ __forceinline__ void clear_shared(double* local, int count) {
  for (int k = threadIdx.x; k < count; k += kThreads) local[k] = 0.0;
  __syncthreads();
}

// Adds the block's shared sums of `count` slots into the global vector.
template <int kThreads>
__device__ __forceinline__ void flush_shared(const double* local, double* global, int count) {
  __syncthreads();
  for (int k = threadIdx.x; k < count; k += kThreads)
    if (local[k] != 0.0) atomicAdd(global + k, local[k]);
}

template <int kThreads, typename Loss>
__global__ void __launch_bounds__(kThreads)
    margin_kernel(const Loss loss, const CsrView x, const RowArrays rows, const ColumnSplit split, const HotSlots slots,
                  const double* __restrict__ v, double* gradient, double* of_alpha, double* diagonal) {
  extern __shared__ double local[];  // 3 x slots.shared: gradient, of_alpha, diagonal
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ double terms[3];  // C loss' (the envelope's), alpha c, the envelope's curvature
  const int S = slots.shared;
  clear_shared<kThreads>(local, 3 * S);
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    const double dot =
        block_sum<kThreads>(partial_row_margin(x, row, threadIdx.x, kThreads, [v](std::int32_t j) { return v[j]; }),
                            scratch);
    if (threadIdx.x == 0) {
      const double margin = dot + split.bias_value * v[split.bias_index];
      const RowState r = rows.state[row];
      const EnvelopeTerms e = envelope_terms(loss, r, margin);
      rows.margin[row] = margin;
      rows.weight[row] = e.curvature;
      terms[0] = e.derivative;
      terms[1] = r.cost > 0.0 ? r.alpha * Loss::coefficient(r.target) : 0.0;
      terms[2] = e.curvature;
      if (split.bias_slot >= 0) {
        const double b = split.bias_value;
        add_slot(local, gradient, S, split.bias_slot, terms[0] * b);
        add_slot(local + S, of_alpha, S, split.bias_slot, terms[1] * b);
        add_slot(local + 2 * S, diagonal, S, split.bias_slot, terms[2] * b * b);
      }
    }
    __syncthreads();
    const double g = terms[0], a = terms[1], h = terms[2];
    for_hot_entries(x, row, split.slot, threadIdx.x, kThreads, [&](std::int32_t s, double value) {
      add_slot(local, gradient, S, s, g * value);
      add_slot(local + S, of_alpha, S, s, a * value);
      add_slot(local + 2 * S, diagonal, S, s, h * value * value);
    });
    __syncthreads();  // thread 0 rewrites `terms`
  }
  flush_shared<kThreads>(local, gradient, S);
  flush_shared<kThreads>(local + S, of_alpha, S);
  flush_shared<kThreads>(local + 2 * S, diagonal, S);
}

template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    hvp_kernel(const CsrView x, const RowArrays rows, const ColumnSplit split, const HotSlots slots,
               const double* __restrict__ d, double* out) {
  extern __shared__ double local[];  // slots.shared
  __shared__ double scratch[kBlockSumSlots<kThreads>];
  __shared__ double scale;
  const int S = slots.shared;
  clear_shared<kThreads>(local, S);
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    const double dot = block_sum<kThreads>(
        partial_hot_dot(x, row, split.slot, threadIdx.x, kThreads, [d](std::int32_t s) { return d[s]; }), scratch);
    if (threadIdx.x == 0) {
      const double product = dot + (split.bias_slot >= 0 ? split.bias_value * d[split.bias_slot] : 0.0);
      rows.product[row] = product;
      scale = rows.state[row].cost > 0.0 ? rows.weight[row] * product : 0.0;
      if (split.bias_slot >= 0) add_slot(local, out, S, split.bias_slot, scale * split.bias_value);
    }
    __syncthreads();
    const double step = scale;
    if (step != 0.0)
      for_hot_entries(x, row, split.slot, threadIdx.x, kThreads,
                      [&](std::int32_t s, double value) { add_slot(local, out, S, s, step * value); });
    __syncthreads();
  }
  flush_shared<kThreads>(local, out, S);
}

template <int kThreads, typename Certified, typename Stepping>
__global__ void __launch_bounds__(kThreads)
    paired_kernel(const Certified certified, const Stepping stepping, const CsrView x, const RowArrays rows,
                  const ColumnSplit split, const HotSlots slots, const std::int32_t* __restrict__ columns, double* u,
                  double* partials) {
  extern __shared__ double local[];  // slots.shared, by slot
  __shared__ double scale;
  const int S = slots.shared;
  clear_shared<kThreads>(local, S);
  double dual = 0.0, surrogate = 0.0;  // thread 0's sums
  for (std::int64_t row = blockIdx.x; row < x.n_rows; row += gridDim.x) {
    if (threadIdx.x == 0) {
      const RowState r = rows.state[row];
      const double a = paired_alpha(stepping, r, rows.margin[row]);
      rows.paired[row] = a;
      scale = 0.0;
      if (r.cost > 0.0) {
        dual += certified.dual_value(r.target, a, r.cost);
        surrogate += stepping.dual_value(r.target, a, r.cost);
        scale = a * Stepping::coefficient(r.target);
        if (split.bias_slot >= 0) {
          if (split.bias_slot < S)
            atomicAdd(local + split.bias_slot, scale * split.bias_value);
          else
            atomicAdd(u + split.bias_index, scale * split.bias_value);
        }
      }
    }
    __syncthreads();
    const double step = scale;
    if (step != 0.0) {
      const std::int64_t end = x.row_end(row);
      for (std::int64_t k = x.row_begin(row) + threadIdx.x; k < end; k += kThreads) {
        const std::int32_t column = x.col_indices[k];
        const std::int32_t s = split.slot[column];
        const double value = step * static_cast<double>(x.values[k]);
        if (s >= 0 && s < S)
          atomicAdd(local + s, value);
        else
          atomicAdd(u + column, value);
      }
    }
    __syncthreads();
  }
  __syncthreads();
  for (int k = threadIdx.x; k < S; k += kThreads)
    if (local[k] != 0.0) atomicAdd(u + columns[k], local[k]);
  if (threadIdx.x == 0) {
    partials[2 * blockIdx.x] = dual;
    partials[2 * blockIdx.x + 1] = surrogate;
  }
}

// Up to four row sums of each block, over rows blockIdx.x * kReduceThreads + ...
template <typename Values>
__global__ void __launch_bounds__(kReduceThreads)
    row_reduce_kernel(const Values values, const std::int64_t n_rows, double* partials) {
  __shared__ double scratch[kBlockSumSlots<kReduceThreads>];
  double sums[kRowValues] = {0.0, 0.0, 0.0, 0.0};
  for (std::int64_t i = blockIdx.x * std::int64_t{kReduceThreads} + threadIdx.x; i < n_rows;
       i += std::int64_t{gridDim.x} * kReduceThreads)
    values(i, sums);
  for (int k = 0; k < kRowValues; ++k) {
    const double total = block_sum<kReduceThreads>(sums[k], scratch);
    if (threadIdx.x == 0) partials[kRowValues * blockIdx.x + k] = total;
  }
}

// A row's values of one RowReduce (kernels.h), added into sums[0 .. 3].
template <RowReduce kKind, typename Certified, typename Stepping>
struct RowValues {
  Certified certified;
  Stepping stepping;
  RowArrays rows;
  double t;
  __device__ void operator()(std::int64_t i, double* sums) const {
    if constexpr (kKind == RowReduce::Line) {
      const LineTerms terms = line_terms(stepping, rows.state[i], rows.margin[i], rows.direction[i], t);
      sums[0] += terms.value;
      sums[1] += terms.slope;
      sums[2] += terms.curvature;
    } else if constexpr (kKind == RowReduce::Objective) {
      const RowSums r = row_sums(certified, stepping, rows.state[i], rows.margin[i]);
      sums[0] += r.loss;
      sums[1] += r.dual;
      sums[2] += r.surrogate_loss;
      sums[3] += r.surrogate_dual;
    } else {
      add_mixed_dual(certified, stepping, rows.state[i], rows.paired[i], t, sums);
    }
  }
};

__global__ void accumulate_direction_kernel(const std::int64_t n, const RowArrays rows, const double a) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    rows.direction[i] += a * rows.product[i];
}

__global__ void apply_margins_kernel(const std::int64_t n, const RowArrays rows, const double t) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    rows.margin[i] += t * rows.direction[i];
    rows.direction[i] = 0.0;
  }
}

__global__ void keep_alpha_kernel(const std::int64_t n, const RowArrays rows, const double theta) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    rows.best[i] = (1.0 - theta) * rows.state[i].alpha + theta * rows.paired[i];
}

__global__ void set_hot_weights_kernel(double* v, const std::int32_t* columns, const double* weights, const std::int32_t n_hot) {
  for (std::int32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < n_hot; s += gridDim.x * blockDim.x)
    v[columns[s]] = weights[s];
}

unsigned row_grid(std::int64_t n) {
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((n + 255) / 256, 4096)));
}

unsigned pass_grid(std::int64_t n_rows) { return static_cast<unsigned>(std::min<std::int64_t>(n_rows, kPassBlocks)); }

// Dynamic shared memory of a pass with `arrays` accumulators of `slots` doubles;
// raises the kernel's limit past the default 48 KiB when it needs to.
template <typename Kernel>
std::size_t shared_bytes(Kernel kernel, int arrays, std::int32_t slots) {
  const std::size_t bytes = static_cast<std::size_t>(arrays) * static_cast<std::size_t>(slots) * sizeof(double);
  if (bytes > 48 * 1024)
    SNAPML_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  return bytes;
}

}  // namespace

void launch_margin_pass(const LossSetup& setup, const CsrView& x, std::int64_t nnz, const RowArrays& rows,
                        const ColumnSplit& split, const HotSlots& slots, const double* v, double* gradient,
                        double* of_alpha, double* diagonal, cudaStream_t stream) {
  if (x.n_rows == 0) return;
  with_setup(setup, [&](const auto&, const auto& stepping) {
    using Loss = std::decay_t<decltype(stepping)>;
    with_block_size(chunk_threads(x.n_rows, nnz), [&](auto block) {
      constexpr int kThreads = decltype(block)::value;
      auto* kernel = &margin_kernel<kThreads, Loss>;
      const std::size_t bytes = shared_bytes(kernel, 3, slots.shared);
      kernel<<<pass_grid(x.n_rows), kThreads, bytes, stream>>>(stepping, x, rows, split, slots, v, gradient, of_alpha,
                                                               diagonal);
    });
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_hvp(const CsrView& x, std::int64_t nnz, const RowArrays& rows, const ColumnSplit& split,
                const HotSlots& slots, const double* d, double* out, cudaStream_t stream) {
  if (x.n_rows == 0) return;
  with_block_size(chunk_threads(x.n_rows, nnz), [&](auto block) {
    constexpr int kThreads = decltype(block)::value;
    auto* kernel = &hvp_kernel<kThreads>;
    const std::size_t bytes = shared_bytes(kernel, 1, slots.shared);
    kernel<<<pass_grid(x.n_rows), kThreads, bytes, stream>>>(x, rows, split, slots, d, out);
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_paired_pass(const LossSetup& setup, const CsrView& x, std::int64_t nnz, const RowArrays& rows,
                        const ColumnSplit& split, const HotSlots& slots, const std::int32_t* columns, double* u,
                        double* partials, cudaStream_t stream) {
  // Every block writes its partials, so an empty chunk zeroes them all.
  with_setup(setup, [&](const auto& certified, const auto& stepping) {
    using Certified = std::decay_t<decltype(certified)>;
    using Stepping = std::decay_t<decltype(stepping)>;
    with_block_size(chunk_threads(x.n_rows, nnz), [&](auto block) {
      constexpr int kThreads = decltype(block)::value;
      auto* kernel = &paired_kernel<kThreads, Certified, Stepping>;
      const std::size_t bytes = shared_bytes(kernel, 1, slots.shared);
      kernel<<<kRowBlocks, kThreads, bytes, stream>>>(certified, stepping, x, rows, split, slots, columns, u, partials);
    });
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_row_reduce(RowReduce kind, const LossSetup& setup, std::int64_t n_rows, const RowArrays& rows, double t,
                       double* partials, cudaStream_t stream) {
  with_setup(setup, [&](const auto& certified, const auto& stepping) {
    using Certified = std::decay_t<decltype(certified)>;
    using Stepping = std::decay_t<decltype(stepping)>;
    auto launch = [&](auto tag) {
      constexpr RowReduce kKind = decltype(tag)::value;
      row_reduce_kernel<<<kRowBlocks, kReduceThreads, 0, stream>>>(
          RowValues<kKind, Certified, Stepping>{certified, stepping, rows, t}, n_rows, partials);
    };
    switch (kind) {
      case RowReduce::Line: launch(std::integral_constant<RowReduce, RowReduce::Line>{}); break;
      case RowReduce::Objective: launch(std::integral_constant<RowReduce, RowReduce::Objective>{}); break;
      case RowReduce::Mixed: launch(std::integral_constant<RowReduce, RowReduce::Mixed>{}); break;
    }
  });
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_accumulate_direction(std::int64_t n_rows, const RowArrays& rows, double a, cudaStream_t stream) {
  if (n_rows == 0) return;
  accumulate_direction_kernel<<<row_grid(n_rows), 256, 0, stream>>>(n_rows, rows, a);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_apply_margins(std::int64_t n_rows, const RowArrays& rows, double t, cudaStream_t stream) {
  if (n_rows == 0) return;
  apply_margins_kernel<<<row_grid(n_rows), 256, 0, stream>>>(n_rows, rows, t);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_keep_alpha(std::int64_t n_rows, const RowArrays& rows, double theta, cudaStream_t stream) {
  if (n_rows == 0) return;
  keep_alpha_kernel<<<row_grid(n_rows), 256, 0, stream>>>(n_rows, rows, theta);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

void launch_set_hot_weights(double* v, const std::int32_t* columns, const double* weights, std::int32_t n_hot,
                            cudaStream_t stream) {
  if (n_hot == 0) return;
  set_hot_weights_kernel<<<row_grid(n_hot), 256, 0, stream>>>(v, columns, weights, n_hot);
  SNAPML_CUDA_CHECK(cudaGetLastError());
}

}  // namespace snapml::cuda::dual
