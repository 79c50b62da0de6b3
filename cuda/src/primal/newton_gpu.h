// The device-resident trust-region Newton solver for the primal losses
// (logistic, squared hinge, squared, and the multinomial loss's K weight vectors;
// penalty L2 with the intercept penalised or free, or none): newton_gpu_solver.cpp,
// docs/gpu.md "Primal Newton on the GPU".
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "primal_rows_cache.h"
#include "upload_timings.h"
#include "snapml/cuda/operations_plan.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"

namespace snapml::cuda::primal {

// What a fit's passes were over (the benchmark counts their bytes: pass_bytes).
struct PassCounts {
  std::int64_t margin_rows = 0;       // X v with the loss terms: targets, costs read, derivatives written
  std::int64_t curvature_rows = 0;    // u = c .* X v
  std::int64_t gradient_columns = 0;  // X^T d and (X.^2)^T c: two gathers, two outputs
  std::int64_t plain_columns = 0;     // X^T u: one gather, one output
  std::int64_t sweep_vectors = 0;     // weight-sized vectors the sweeps read or wrote
  std::int64_t passes() const { return margin_rows + curvature_rows + gradient_columns + plain_columns; }
};

// Where one fit's time went (the benchmark's split, bench/gpu_tron_bench.cpp), and
// what its passes were over: enough to count the bytes it moved.
struct FitTimings {
  double upload = 0.0;      // the rows to the devices (0 when the session held them)
  UploadTimings upload_split;  // its parts (all 0 when the session held the rows)
  double targets = 0.0;     // the problem's targets and costs
  double start = 0.0;       // the first iterate's value, gradient and record
  double iterations = 0.0;  // the Newton iterations after it
  double finish = 0.0;      // the weights and alpha downloaded
  int cg_iterations = 0;
  std::vector<int> cg_at_record;  // cg_iterations when each record was made (the history's order)
  int trial_steps = 0;  // accepted and rejected
  PassCounts at_start;  // the passes up to the first record
  PassCounts total;
  // The layout's sizes.
  std::int64_t n_rows = 0;
  std::int64_t stored_entries = 0;
  std::int64_t transposed_entries = 0;
  std::int64_t tiles = 0;
  std::int64_t n_weights = 0;
};

// The bytes `counts` move at least, by the layout in `sizes` (a lower bound: the
// entries, offsets and per-row vectors once, each gathered vector once per pass,
// the weight-sized outputs written once per tile and read back by the next):
//   margin rows     8 nnz + 4 (rows + tiles) + 32 rows + 8 W
//   curvature rows  8 nnz + 4 (rows + tiles) + 16 rows + 8 W
//   gradient cols   8 items + 4 tiles (W + 1) + 16 rows + 16 W (2 tiles - 1)
//   plain cols      8 items + 4 tiles (W + 1) + 8 rows + 8 W (2 tiles - 1)
//   sweeps          8 W a vector
double pass_bytes(const FitTimings& sizes, const PassCounts& counts);

struct NewtonGpuOptions {
  TileLimits tiles;                    // smaller in tests: many tiles from few rows
  std::shared_ptr<FitTimings> timings;  // when given, overwritten by each fit
};

// Throws InvalidArgument for another loss, penalty L1, or L-BFGS or Cholesky asked for.
std::unique_ptr<Solver> make_newton_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                               std::shared_ptr<detail::PrimalRowsCache> cache,
                                               NewtonGpuOptions options = {});

// make_gpu_matrix_operations (snapml/cuda/primal_gpu.h) with tiles cut at `tiles`.
std::unique_ptr<MatrixOperations> make_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                         double bias_value, const std::vector<int>& device_ids,
                                                         std::uint64_t max_gpu_memory, TileLimits tiles);

// Whether make_newton_gpu_solver takes the problem (else the GPU session gives the
// CPU solver's L-BFGS and Cholesky steps the GPU matrix operations).
bool newton_gpu_takes(const SolverParameters& parameters);

}  // namespace snapml::cuda::primal
