// The schedule of the GPU dual solver's epoch, the parts with no CUDA dependency
// that the kernels (cuda/src/dual/), the solver's host side and the host executor
// (tests/support/gpu_epoch_model.h) share: how many rows are in flight (R), which
// columns are hot, and each row's step curvature. docs/gpu.md ("Schedule") and
// docs/algorithms.md ("GPU dual: hot and cold columns") argue the design.
//
// Why a schedule. The kernel shipped with one thread block per row over every
// column: every resident block (R, 660 to 4,224 on an H100) reads the same v
// before the others' updates land. Columns in a large share of the rows (a9a's
// one-hot groups, a click log's integer buckets, the intercept) then take R stale
// exact steps at once and the dual diverges: on an H100, a9a ended at a relative
// gap of 1.1 with 16 or more rows in flight (docs/gpu.md; the negative control of
// tests/cpp/solvers/test_gpu_epoch_model.cpp reproduces it on the host).
//
// Hot and cold. A column is hot when its ESO factor at R rows in flight would
// exceed kHotFactor = 2 in some chunk, i.e. it is in more than about n / R of that
// chunk's n rows; the intercept is always hot. Hot weights are primal variables,
// moved by a Newton step on the primal with the cold margins held (a dense block:
// cuda/src/dual/hot_newton.h). The asynchronous pass (TPA-SCD, one block per row,
// R in flight) steps each row's dual variable against the cold columns only, at the
// curvature sum over cold j of factor_j x_ij^2 (every factor at most 2), and adds
// its update to the cold columns only: nothing in the asynchronous pass writes a
// column more than about n / R rows share, so R stale steps overlap on a column no
// more than the ESO allows (Richtarik & Takac 2016, "Parallel coordinate descent
// methods for big data optimization", Math. Prog. 156, Theorem 14; for the SDCA
// dual Takac, Bijral, Richtarik & Srebro 2013, ICML).
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

// The threads per block of the row kernels (row_dots.cu, cuda/src/dual/) for a mean row
// length: the smallest of 32, 64, 128, 256 that covers it with at most two entries a
// thread, so short rows do not leave most threads idle. Two, not one: a click log's
// rows of 35 to 50 entries (the Criteo-like data, issue 33) took 64-thread blocks
// under "one entry a thread", half of whose second warp idled, and whose reduction
// crossed warps through shared memory with two block barriers a row; one warp
// reduces by shuffles alone, each lane loading one or two 8-byte entries, and the
// device keeps 4,224 such blocks resident (R, the host executor's tested value)
// against 2,376 of 64 threads. Not yet measured on a device (gpu_sdca_bench's epoch
// against its floor on the 2M-row click log says whether it pays).
constexpr int row_block_size(double mean_row_nnz) {
  for (int threads : {32, 64, 128})
    if (mean_row_nnz <= 2 * threads) return threads;
  return 256;
}

// H100 SXM and H200 both have 132 SMs.
constexpr int kHopperSms = 132;

// The cold pass kernel's usage per block size, from the compiled code for sm_90
// (CUDA 13.0; cuobjdump is not installed here, so ptxas's report):
//   (cd build/cuda; nvcc --options-file CMakeFiles/snapml_cuda.dir/includes_CUDA.rsp -O3
//    --generate-code=arch=compute_90,code=sm_90 -std=c++17 -Xptxas -v -c ../../cuda/src/dual/cold_pass.cu)
// Registers per thread, the largest over the losses (the logistic's Newton loop;
// 64 for every loss with 32-thread blocks), and static shared memory per block.
// The device itself asks cudaOccupancyMaxActiveBlocksPerMultiprocessor
// (cold_pass_rows_in_flight); these numbers let CI know the device's R without
// one. Re-read them when the kernel changes.
struct KernelUsage {
  int threads;
  int registers;
  int shared_bytes;
};
constexpr KernelUsage kEpochKernelUsage[] = {{32, 64, 16}, {64, 56, 24}, {128, 56, 40}, {256, 58, 72}};

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

// ---- the step curvature ------------------------------------------------------

// The ESO factor of a column with `column_rows` of the chunk's n rows, tau rows in
// flight: 1 + (tau - 1)(n_j - 1)/(n - 1) (Richtarik & Takac 2016, Theorem 14,
// tau-nice sampling). With every row of a chunk in flight (tau = n) it is n_j.
SNAPML_HOST_DEVICE SNAPML_INLINE double eso_factor(std::int64_t column_rows, std::int64_t tau, std::int64_t n) {
  const double spread = n > 1 ? static_cast<double>(column_rows - 1) / static_cast<double>(n - 1) : 0.0;
  return 1.0 + static_cast<double>(tau - 1) * (spread > 0.0 ? spread : 0.0);
}

// The rows in flight over a chunk of n rows: the grid, or all of them.
SNAPML_HOST_DEVICE SNAPML_INLINE std::int64_t wave_size(std::int64_t rows_in_flight, std::int64_t n) {
  return rows_in_flight < n ? rows_in_flight : n;
}

// A column is hot when its ESO factor at tau exceeds this: when it is in more than
// about n / tau of a chunk's n rows.
constexpr double kHotFactor = 2.0;

SNAPML_HOST_DEVICE SNAPML_INLINE bool is_hot_column(std::int64_t column_rows, std::int64_t tau, std::int64_t n,
                                                    double max_factor = kHotFactor) {
  return eso_factor(column_rows, tau, n) > max_factor;
}

// Rows of the chunk with a non-zero in each column (n_features entries).
inline std::vector<std::int64_t> column_rows(const CsrView& x) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(x.n_features), 0);
  for (std::int64_t k = 0; k < x.nnz(); ++k) ++counts[static_cast<std::size_t>(x.col_indices[k])];
  return counts;
}

// A row's step curvature over its cold columns (slot[j] < 0), each entry weighed by
// its column's ESO factor in the row's chunk (`counts`: column_rows of the chunk,
// tau its rows in flight). The hot columns and the intercept are held during the
// asynchronous pass, so they add nothing.
SNAPML_HOST_DEVICE SNAPML_INLINE double cold_curvature(const CsrView& x, std::int64_t row, const std::int64_t* counts,
                                                       const std::int32_t* slot, std::int64_t tau) {
  double sum = 0.0;
  for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
    const std::int32_t column = x.col_indices[k];
    if (slot[column] >= 0) continue;
    const double value = static_cast<double>(x.values[k]);
    sum += eso_factor(counts[column], tau, x.n_rows) * value * value;
  }
  return sum;
}

// ---- the hot columns --------------------------------------------------------------

// Where the hot columns carry at least this share of sum_i ||x_i||^2 (with b^2 each
// row), a smooth loss is better served by the primal Newton solver: on a9a and w8a
// (shares 0.999 to 1.000 at R = 4,224) it took 5 to 26 passes over the rows to the
// tolerance where this schedule took 79 to 172; at shares of 0.95 to 0.96 (the
// Criteo sample, news20, a click log) neither wins throughout (docs/gpu.md, "Which
// problems the Newton solver serves better"). The hinge has no Newton solver.
constexpr double kNewtonHotShare = 0.99;

inline bool newton_serves_better(double hot_share, bool smooth_loss) {
  return smooth_loss && hot_share >= kNewtonHotShare;
}

// The hot columns of a problem, built chunk by chunk (add), then numbered (slots):
// the intercept, when there is one, takes slot 0 (its column index is n_features),
// then the hot columns by decreasing count, so that the densest are the first
// slots (the kernels sum those in shared memory: hot_passes.cu).
class HotColumnSet {
 public:
  explicit HotColumnSet(std::int32_t n_features)
      : hot_(static_cast<std::size_t>(n_features), 0),
        total_(static_cast<std::size_t>(n_features), 0),
        square_(static_cast<std::size_t>(n_features), 0.0) {}

  // Marks the columns hot in this chunk of `rows_in_flight` R; `counts` is its
  // column_rows.
  void add(const CsrView& x, const std::vector<std::int64_t>& counts, std::int64_t rows_in_flight) {
    const std::int64_t tau = wave_size(rows_in_flight, x.n_rows);
    for (std::size_t j = 0; j < counts.size() && j < hot_.size(); ++j) {
      total_[j] += counts[j];
      if (counts[j] > 0 && is_hot_column(counts[j], tau, x.n_rows)) hot_[j] = 1;
    }
    for (std::int64_t k = 0; k < x.nnz(); ++k) {
      const double value = static_cast<double>(x.values[k]);
      square_[static_cast<std::size_t>(x.col_indices[k])] += value * value;
    }
    rows_ += x.n_rows;
  }

  // Per column its slot or -1; `columns` receives slot -> column.
  std::vector<std::int32_t> slots(bool intercept, std::vector<std::int32_t>& columns) const {
    std::vector<std::int32_t> hot;
    for (std::size_t j = 0; j < hot_.size(); ++j)
      if (hot_[j]) hot.push_back(static_cast<std::int32_t>(j));
    std::stable_sort(hot.begin(), hot.end(), [&](std::int32_t a, std::int32_t b) {
      return total_[static_cast<std::size_t>(a)] > total_[static_cast<std::size_t>(b)];
    });
    columns.clear();
    if (intercept) columns.push_back(static_cast<std::int32_t>(hot_.size()));
    columns.insert(columns.end(), hot.begin(), hot.end());
    std::vector<std::int32_t> slot(hot_.size(), -1);
    for (std::size_t s = intercept ? 1 : 0; s < columns.size(); ++s)
      slot[static_cast<std::size_t>(columns[s])] = static_cast<std::int32_t>(s);
    return slot;
  }

  // The share of sum_i ||x_i||^2 (+ b^2 each row) in hot columns (the intercept's
  // counts as hot): the routing rule's measure (prefers_newton).
  double hot_share(double bias_value) const {
    double hot = bias_value * bias_value * static_cast<double>(rows_), total = hot;
    for (std::size_t j = 0; j < hot_.size(); ++j) {
      total += square_[j];
      if (hot_[j]) hot += square_[j];
    }
    return total > 0.0 ? hot / total : 0.0;
  }

  const std::vector<std::int64_t>& counts() const { return total_; }
  // The marks as 0/1 and the counts, to be reduced over ranks (maximum and sum),
  // and set back: every rank then numbers the same slots.
  std::vector<std::int64_t> marks() const { return std::vector<std::int64_t>(hot_.begin(), hot_.end()); }
  void assign(const std::vector<std::int64_t>& marks, const std::vector<std::int64_t>& counts) {
    for (std::size_t j = 0; j < hot_.size(); ++j) hot_[j] = marks[j] != 0 ? 1 : 0;
    total_ = counts;
  }

 private:
  std::vector<unsigned char> hot_;
  std::vector<std::int64_t> total_;  // rows with each column, over the chunks added
  std::vector<double> square_;       // sum of x_ij^2 per column
  std::int64_t rows_ = 0;
};

}  // namespace snapml::cuda
