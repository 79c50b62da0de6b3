// The GPU session's share of the primal solver: the rows the last primal problem
// uploaded, which the next one over the same source reuses (one-vs-rest classes,
// a regularisation path), as GpuDevices keeps the SDCA solver's (gpu_session.h).
#pragma once

#include <memory>
#include <vector>

#include "snapml/solver.h"

namespace snapml::cuda::detail {

struct PrimalRows;  // matrix_operations_gpu.cu

struct PrimalRowsCache {
  std::shared_ptr<PrimalRows> rows;  // null until a fit uploads
};

// make_tron_gpu_solver whose fits look in `cache` first and leave their rows there.
std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                             std::shared_ptr<PrimalRowsCache> cache);

}  // namespace snapml::cuda::detail
