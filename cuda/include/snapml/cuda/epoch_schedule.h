// The schedule of the GPU SDCA epoch, written once for the kernel (sdca_gpu.cu) and
// for its host model (tests/support/gpu_epoch_model.h), with no CUDA dependency.
//
// Why a schedule at all. One thread block per row lets every resident block (about
// 4,000 on an H100) read the same v before any of their updates land, so an epoch
// over a chunk of a few hundred rows is a Jacobi step: every row takes its exact
// step against one stale v. With the intercept (a column in every row) the R steps
// all move the same weight and their sum overshoots about R-fold; the dual
// diverges or stalls (docs/gpu.md, "Schedule").
//
// The schedule. An epoch visits a chunk's rows in the order of a FeistelPermutation
// (permutation.h), in waves of R = rows_in_flight consecutive positions:
//   1. every row of the wave reads v as it was at the wave's start and takes its
//      step (row_step below), a Jacobi step within the wave;
//   2. then the wave's updates are added to v: each row's sparse part by its own
//      block, the intercept's as one sum over the wave (no per-row atomic on one
//      address, and nothing at all without intercept).
// Hot columns (in a large share of the chunk's rows, the intercept) are taken out of
// step 1's Jacobi and visited row after row instead: see "hot columns" below, the
// schedule the host model and its CI test run. The kernel is to keep to it exactly:
// a persistent grid of R blocks (block b takes position wave * R + b) with a
// grid-wide barrier between the phases. R is the grid the device keeps resident
// (rows_in_flight below), so the grid can barrier.
//
// The safe step. Jacobi over a wave is safe when each row's curvature ||x_i||^2 is
// replaced by an expected separable over-approximation (ESO, Richtarik & Takac 2016,
// "Parallel coordinate descent methods for big data optimization", Math. Prog.
// 156, Theorem 14, for tau-nice sampling; its use for the SDCA dual: Takac, Bijral,
// Richtarik & Srebro 2013, "Mini-batch primal and dual methods for SVMs", ICML):
//   v_i = sum_j (1 + (tau - 1)(n_j - 1) / max(1, n - 1)) x_ij^2,
// n_j the chunk's rows with a non-zero in column j, n the chunk's rows, tau the wave
// size min(R, n). The intercept is a column in every row (n_j = n): its factor is
// tau. With tau = n (a whole-chunk wave) the factor is n_j and the bound holds for
// every wave, not only in expectation (Cauchy-Schwarz per column). The certificate
// stays exact whatever the step: v = w(alpha) is kept by the updates.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"
#include "snapml/host_device.h"

namespace snapml::cuda {

// ---- rows in flight -----------------------------------------------------------

// Per-SM limits of compute capability 9.0 (H100, H200; CUDA C Programming Guide,
// "Compute capabilities", table 21): resident blocks, threads, 32-bit registers
// (allocated per warp in units of 256) and shared memory (a block's allocation
// includes 1 KiB the system reserves).
struct SmLimits {
  int blocks = 32;
  int threads = 2048;
  int registers = 65536;
  int register_unit = 256;
  int shared_bytes = 228 * 1024;
  int reserved_shared_per_block = 1024;
};

// Resident blocks per SM of a kernel using `registers` per thread and `shared_bytes`
// of static shared memory per block, blocks of `threads` threads: what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers on the device.
constexpr int resident_blocks_per_sm(int threads, int registers, int shared_bytes, SmLimits sm = {}) {
  const int warps = (threads + 31) / 32;
  const int by_threads = sm.threads / (warps * 32);
  const int per_warp = (registers * 32 + sm.register_unit - 1) / sm.register_unit * sm.register_unit;
  const int by_registers = registers > 0 ? sm.registers / (per_warp * warps) : sm.blocks;
  const int by_shared = sm.shared_bytes / (shared_bytes + sm.reserved_shared_per_block);
  return std::min(std::min(sm.blocks, by_threads), std::min(by_registers, by_shared));
}

// The threads per block of the row kernels (row_dots.cu, sdca_gpu.cu) for a mean row
// length: the smallest of 32, 64, 128, 256 that covers it, so short rows do not
// leave most threads idle.
constexpr int row_block_size(double mean_row_nnz) {
  for (int threads : {32, 64, 128})
    if (mean_row_nnz <= threads) return threads;
  return 256;
}

// H100 SXM and H200 both have 132 SMs.
constexpr int kHopperSms = 132;

// The epoch kernel's usage per block size, from the compiled code for sm_90
// (CUDA 13.0; cuobjdump is not installed here, so ptxas's report):
//   (cd build/cuda; nvcc --options-file CMakeFiles/snapml_cuda.dir/includes_CUDA.rsp -O3
//    --generate-code=arch=compute_90,code=sm_90 -std=c++17 -Xptxas -v -c ../../cuda/src/dual/sdca_gpu.cu)
// Registers per thread, the largest over the four losses (the logistic's Newton
// loop; 64 for every loss with 32-thread blocks), and static shared memory per
// block. The device itself asks cudaOccupancyMaxActiveBlocksPerMultiprocessor;
// these numbers let the host model and CI use the device's R without one.
// Re-read them when the kernel changes.
struct KernelUsage {
  int threads;
  int registers;
  int shared_bytes;
};
constexpr KernelUsage kEpochKernelUsage[] = {{32, 64, 8}, {64, 48, 24}, {128, 48, 40}, {256, 48, 72}};

// R for a block size on a Hopper device shared by `workers` CoCoA+ workers (each
// gets its share, so every worker's grid is resident at once and may barrier).
constexpr std::int64_t hopper_rows_in_flight(int threads, int workers = 1) {
  int blocks = 0;
  for (const KernelUsage& usage : kEpochKernelUsage)
    if (usage.threads == threads) blocks = resident_blocks_per_sm(threads, usage.registers, usage.shared_bytes);
  return std::max<std::int64_t>(1, std::int64_t{kHopperSms} * blocks / std::max(1, workers));
}

// R of a chunk of n_rows rows and nnz non-zeros on a Hopper device (its block size).
constexpr std::int64_t hopper_chunk_rows_in_flight(std::int64_t n_rows, std::int64_t nnz, int workers = 1) {
  return hopper_rows_in_flight(row_block_size(n_rows > 0 ? static_cast<double>(nnz) / static_cast<double>(n_rows) : 0.0),
                               workers);
}

// ---- the step -------------------------------------------------------------------

// How a row's curvature counts the other rows of its wave.
enum class Curvature {
  Exact,  // ||x_i||^2 + b^2: safe for one row in flight only
  Eso,    // the ESO above, every column and the intercept
};

// The ESO factor of a column with `column_rows` of the chunk's n rows, waves of tau.
SNAPML_HOST_DEVICE SNAPML_INLINE double eso_factor(std::int64_t column_rows, std::int64_t tau, std::int64_t n) {
  const double spread = n > 1 ? static_cast<double>(column_rows - 1) / static_cast<double>(n - 1) : 0.0;
  return 1.0 + static_cast<double>(tau - 1) * (spread > 0.0 ? spread : 0.0);
}

// The wave size of a chunk of n rows.
SNAPML_HOST_DEVICE SNAPML_INLINE std::int64_t wave_size(std::int64_t rows_in_flight, std::int64_t n) {
  return rows_in_flight < n ? rows_in_flight : n;
}

// The rows in flight the data allows: the largest tau whose ESO factor is at most 2
// on the chunk's densest column (the intercept, when there is one, is in all n
// rows), so no row's step is more than twice as short as its serial step:
//   1 + (tau - 1)(n_max - 1)/(n - 1) <= 2  <=>  tau <= 1 + (n - 1)/(n_max - 1).
// Measured on the host model (docs/gpu.md, "Schedule"): at the device's R (660 to
// 4,224) the exact step diverges on a9a, w8a, the Criteo sample and, with the
// intercept, on every data set, and the ESO step is safe but makes no progress in
// hundreds of epochs wherever a column is in a large share of the rows; the data's
// bound keeps the ESO step within a factor 2 of the serial one.
SNAPML_HOST_DEVICE SNAPML_INLINE std::int64_t data_rows_in_flight(std::int64_t densest_column_rows, std::int64_t n) {
  if (densest_column_rows <= 1 || n <= 1) return n > 1 ? n : 1;
  return 1 + (n - 1) / (densest_column_rows - 1);
}

// ---- hot columns: Gauss-Seidel within the wave --------------------------------
//
// The schedule that converges at the device's R (docs/gpu.md, "Schedule"): a
// column is hot when its ESO factor at the wave size tau exceeds kHotFactor, i.e.
// when it is in more than about n / tau of the chunk's rows (the intercept always
// is). A wave then runs in three phases:
//   1. in parallel, every row's margin over its cold columns against the wave's v;
//   2. in the wave's order, one row after the other: the hot part of its margin
//      against the current hot weights (on the device: in shared memory), its step at
//      the curvature row_cold_curvature + ||x_i^hot||^2, and its update of the hot
//      weights at once (Gauss-Seidel on the hot columns);
//   3. in parallel, every row's update of its cold columns.
// The cold columns are a Jacobi step within the wave whose ESO factors are at most
// kHotFactor, the hot ones are visited as serial SDCA visits them: on a9a, w8a,
// news20 and the Criteo sample it takes serial SDCA's epochs at any R. Phase 2 is
// sequential: its cost per row is the row's hot non-zeros plus one step.
constexpr double kHotFactor = 2.0;

SNAPML_HOST_DEVICE SNAPML_INLINE bool is_hot_column(std::int64_t column_rows, std::int64_t tau, std::int64_t n,
                                                    double max_factor = kHotFactor) {
  return eso_factor(column_rows, tau, n) > max_factor;
}

// The schedule's R for a chunk: the device's (resident grid) bounded by the data's.
inline std::int64_t chunk_rows_in_flight(std::int64_t device_rows, const std::vector<std::int64_t>& counts,
                                         std::int64_t n, bool intercept) {
  std::int64_t densest = intercept ? n : 0;
  for (const std::int64_t count : counts) densest = std::max(densest, count);
  return std::max<std::int64_t>(1, std::min(device_rows, data_rows_in_flight(densest, n)));
}

// One row's step of phase 1: the loss's exact step at the given curvature, from
// `margin` = v.x_i + b v_b read at the wave's start. Writes the new alpha and
// returns the scale of the row's update sigma' (alpha_new - alpha) coefficient(y).
template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE double row_step(const Loss& loss, double y, double cost, double margin,
                                                 double curvature, double sigma, double* alpha) {
  const double old_alpha = *alpha;
  const double new_alpha = loss.step(y, old_alpha, margin, curvature, cost, sigma);
  *alpha = new_alpha;
  return new_alpha == old_alpha ? 0.0 : sigma * (new_alpha - old_alpha) * Loss::coefficient(y);
}

// Rows of the chunk with a non-zero in each column (n_features entries); the
// device counts the same with atomics.
inline std::vector<std::int64_t> column_rows(const CsrView& x) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(x.n_features), 0);
  for (std::int64_t k = 0; k < x.nnz(); ++k) ++counts[static_cast<std::size_t>(x.col_indices[k])];
  return counts;
}

// A row's curvature: sum_j factor_j x_ij^2 + factor_b b^2, the factors from
// `counts` (column_rows) and the wave size tau (Exact: all 1).
SNAPML_HOST_DEVICE SNAPML_INLINE double row_curvature(const CsrView& x, std::int64_t row, const std::int64_t* counts,
                                                      double bias_value, std::int64_t tau, Curvature curvature) {
  if (curvature == Curvature::Exact) return row_squared_norm(x, row) + bias_value * bias_value;
  double sum = 0.0;
  for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
    const double value = static_cast<double>(x.values[k]);
    sum += eso_factor(counts[x.col_indices[k]], tau, x.n_rows) * value * value;
  }
  return sum + static_cast<double>(tau) * bias_value * bias_value;
}

// A row's curvature over its cold columns (`hot[j]` 0) with their ESO factors,
// and its hot part ||x_i^hot||^2 + b^2 (the intercept is hot) in *hot_norm.
SNAPML_HOST_DEVICE SNAPML_INLINE double row_cold_curvature(const CsrView& x, std::int64_t row,
                                                           const std::int64_t* counts, const unsigned char* hot,
                                                           double bias_value, std::int64_t tau, double* hot_norm) {
  double cold = 0.0;
  double hot_sum = bias_value * bias_value;
  for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
    const double value = static_cast<double>(x.values[k]);
    if (hot[x.col_indices[k]])
      hot_sum += value * value;
    else
      cold += eso_factor(counts[x.col_indices[k]], tau, x.n_rows) * value * value;
  }
  *hot_norm = hot_sum;
  return cold;
}

}  // namespace snapml::cuda
