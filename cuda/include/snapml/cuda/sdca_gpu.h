// Stochastic dual coordinate ascent on one or several GPUs: TPA-SCD (Parnell et al.
// 2017) on each device, CoCoA+ (Ma, Smith, Jaggi et al. 2015) between devices and
// ranks. The same Solver seam, losses, certificate and warm start as the CPU solver
// (snapml/solver.h); docs/gpu.md describes the design.
#pragma once

#include <memory>
#include <vector>

#include "snapml/solver.h"

namespace snapml::cuda {

// A solver whose rows (this rank's source) are cut into contiguous, equal row
// ranges, one per entry of `device_ids` (empty: {0}); each range is one CoCoA+
// worker with its own copy of w on that device. An id may repeat: two workers on
// one GPU behave as two GPUs would (the tests use this). Every device's chunks
// stay resident for the whole fit, unless parameters.max_gpu_memory is set, there
// is one device id, and the data exceeds the budget: then the chunks stream
// through a ring of device slots each pass (stream_plan.h decides how; fit()
// throws InvalidArgument when even two slots and the per-row state exceed the
// budget). Several device ids under a budget their rows exceed: fit() throws
// Unsupported. Validates the parameters (InvalidArgument) and the devices with
// require_gpu (Unsupported when one is not visible).
std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters& parameters,
                                             const std::vector<int>& device_ids);

}  // namespace snapml::cuda
