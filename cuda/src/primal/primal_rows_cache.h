// The GPU session's share of the primal solver: the rows the last primal problem
// uploaded (primal/primal_rows.h), which the next one over the same source reuses
// (one-vs-rest classes, a regularisation path), as GpuDevices keeps the SDCA
// solver's (device/gpu_devices.h), and the pinned memory uploads stage through.
#pragma once

#include <memory>
#include <vector>

#include "snapml/solver.h"

namespace snapml::cuda {
namespace primal {
class PrimalRows;
class StagingRings;
}

namespace detail {

struct PrimalRowsCache {
  std::shared_ptr<primal::PrimalRows> rows;  // null until a fit uploads
  // The pinned rings uploads stage through (staging_ring.h): allocated by the
  // first upload, kept for the session's later uploads and targets.
  std::shared_ptr<primal::StagingRings> staging;
};

// The primal solver on `device_ids` whose fits look in `cache` first and leave
// their rows there: the device-resident Newton solver (primal/newton_gpu.h) for a
// scalar loss stepping by the trust region, the CPU solver's L-BFGS or Cholesky
// steps (and the multinomial loss) over the GPU matrix operations otherwise.
std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                             std::shared_ptr<PrimalRowsCache> cache);

}  // namespace detail
}  // namespace snapml::cuda
