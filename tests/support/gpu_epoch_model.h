// The host executor of the GPU dual solver's schedule (epoch_schedule.h, "hot and
// cold"): the solver's own RoundBackend (cuda/src/dual/hybrid_backend.h) over passes
// made on the CPU by the per-row functions the kernels call (cuda/src/dual/
// row_work.h), with the cold pass's rows retired in a bounded-delay order: R rows
// in flight, each reading v when it starts and adding its update when it retires,
// the oldest first (every read misses the R - 1 updates in flight: the worst case a
// resident grid of R blocks allows) or a random one (a row stays in flight at most
// max_delay_factor R starts). Certified by the driver the solver runs
// (run_cocoa_rounds), every epoch on the CPU solver's schedule.
//
// It also runs the schedule the kernel shipped with (Schedule::Shipped: every
// column in the asynchronous pass, the exact step, the intercept by atomics), the
// negative control of tests/cpp/solvers/test_gpu_epoch_model.cpp.
#pragma once

#include <cstdint>

#include "dual/hybrid_backend.h"
#include "snapml/dataset.h"
#include "snapml/solver.h"

namespace snapml::testing {

enum class Retirement { Oldest, Random };
enum class Schedule {
  HotCold,  // the schedule (epoch_schedule.h)
  Shipped,  // one block per row over every column at the exact step: the negative control
};

struct GpuModelOptions {
  std::int64_t rows_in_flight = 1;  // R: the device's resident grid
  Retirement retirement = Retirement::Oldest;
  double max_delay_factor = 2.0;
  Schedule schedule = Schedule::HotCold;
  // The divergence guard's remedy (RoundBackend::reduce_concurrency): halve R, as
  // the GPU does; false: none, so a diverging fit throws FitDiverged.
  bool reduce_concurrency = true;
  cuda::dual::ScheduleSettings settings;
};

// What the last fit_gpu_model saw and did (docs/gpu.md's measurements).
struct GpuModelStats {
  std::int64_t hot_columns = 0;    // hot slots, the intercept included
  double hot_share = 0.0;          // of sum_i ||x_i||^2 (+ b^2) in hot columns
  cuda::dual::ScheduleCounts counts;
  int halvings = 0;                // reduce_concurrency calls
};
extern GpuModelStats last_gpu_model_stats;

// A fit of `data` (one worker, penalty L2) as the GPU solver's schedule makes it;
// `state` is the warm start (solver.h) and receives w and alpha.
FitResult fit_gpu_model(const Dataset& data, const SolverParameters& parameters, const GpuModelOptions& options,
                        SolverState& state);

}  // namespace snapml::testing
