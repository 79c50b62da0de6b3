// The host model of the GPU SDCA solver: the executable specification of its
// epoch (cuda/include/snapml/cuda/epoch_schedule.h), run on the CPU. It takes the
// same per-row step (the shared loss headers), the same order (a FeistelPermutation
// of the chunks per epoch, and of each chunk's rows, keyed as the solver keys them)
// and the same concurrency: waves of R rows that read v as it was at the wave's
// start, then add their updates (the intercept's as one sum per wave). It models
// one worker whose chunks are the dataset's chunks, as the resident solver has
// them, and certifies each epoch with the core's duality gap (objectives.h).
//
// Tests run it where there is no GPU (tests/cpp/dual/test_gpu_epoch_model.cpp:
// does the schedule converge at a device's R?) and compare the kernel's fits with
// it where there is one (tests/gpu).
#pragma once

#include <cstdint>

#include "snapml/cuda/epoch_schedule.h"
#include "snapml/dataset.h"
#include "snapml/solver.h"

namespace snapml::testing {

// How a wave treats its hot columns (those whose ESO factor at the wave size would
// exceed hot_factor; the intercept is always hot).
enum class HotColumns {
  None,         // every column Jacobi with the chosen curvature
  GaussSeidel,  // hot columns visited row after row against the current hot weights
  Coupled,      // the wave's exact joint step on the hot columns (Newton on Phi)
};

struct GpuModelOptions {
  std::int64_t rows_in_flight = 1;  // the device's R (its resident grid)
  bool bound_by_data = true;        // cap R per chunk by data_rows_in_flight (the schedule)
  cuda::Curvature curvature = cuda::Curvature::Eso;
  HotColumns hot = HotColumns::None;
  double hot_factor = 2.0;          // a column is hot when its ESO factor exceeds this
  int max_hot = 1 << 30;            // at most this many hot columns (the densest)
  double hot_proximal = 0.0;        // Coupled: theta, curvature += theta * ||x_i^hot||^2
  int max_newton = 50;              // Coupled: iterations per wave
};

// Counters of the last fit_gpu_model (for the measurements in docs/gpu.md).
struct GpuModelStats {
  std::int64_t hot_columns = 0;     // of the first chunk
  std::int64_t waves = 0;
  std::int64_t newton_iterations = 0;
  std::int64_t hot_nonzeros = 0;    // visited by the waves
  std::int64_t nonzeros = 0;
};
extern GpuModelStats last_gpu_model_stats;

// A cold-start fit of `data` (penalty L2, one worker, sigma' = 1) as the GPU solver's
// schedule makes it; `state` receives w and alpha. Stops at parameters.tol or
// max_epochs, as the solver does, or when the dual is no longer finite.
FitResult fit_gpu_model(const Dataset& data, const SolverParameters& parameters, const GpuModelOptions& options,
                        SolverState& state);

}  // namespace snapml::testing
