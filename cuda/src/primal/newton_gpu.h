// The device-resident trust-region Newton solver for the scalar primal losses
// (logistic, squared hinge, squared; penalty L2 with the intercept penalised or
// free, or none): newton_gpu_solver.cpp, docs/gpu.md "Primal Newton on the GPU".
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tron_gpu.h"
#include "snapml/cuda/operations_plan.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"

namespace snapml::cuda::primal {

// Where one fit's time went (the benchmark's split, bench/gpu_tron_bench.cpp), and
// what its passes were over: enough to count the bytes it moved.
struct FitTimings {
  double upload = 0.0;      // the rows to the devices (0 when the session held them)
  double targets = 0.0;     // the problem's targets and costs
  double start = 0.0;       // the first iterate's value, gradient and record
  double iterations = 0.0;  // the Newton iterations after it
  double finish = 0.0;      // the weights and alpha downloaded
  int cg_iterations = 0;
  int trial_steps = 0;  // accepted and rejected
  std::int64_t row_passes = 0;     // X v (margins, Hessian products)
  std::int64_t column_passes = 0;  // X^T z (gradients, Hessian products)
  std::int64_t weight_sweeps = 0;
  // The layout's sizes.
  std::int64_t n_rows = 0;
  std::int64_t stored_entries = 0;
  std::int64_t transposed_entries = 0;
  std::int64_t tiles = 0;
  std::int64_t n_weights = 0;
};

struct NewtonGpuOptions {
  TileLimits tiles;                    // smaller in tests: many tiles from few rows
  std::shared_ptr<FitTimings> timings;  // when given, overwritten by each fit
};

// Throws InvalidArgument for another loss, penalty L1 or a multinomial loss.
std::unique_ptr<Solver> make_newton_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                               std::shared_ptr<detail::PrimalRowsCache> cache,
                                               NewtonGpuOptions options = {});

// make_gpu_matrix_operations (snapml/cuda/tron_gpu.h) with tiles cut at `tiles`.
std::unique_ptr<MatrixOperations> make_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                         double bias_value, const std::vector<int>& device_ids,
                                                         std::uint64_t max_gpu_memory, TileLimits tiles);

// Whether make_newton_gpu_solver takes the problem (else the GPU session gives the
// CPU solver's L-BFGS and Cholesky steps the GPU matrix operations).
bool newton_gpu_takes(const SolverParameters& parameters);

}  // namespace snapml::cuda::primal
