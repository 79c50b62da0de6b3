// The primal Newton solver on GPUs (docs/gpu.md, "Primal Newton on the GPU").
//
// For the scalar losses stepping by the trust region (the default), the solver
// runs on the devices: cuda/src/primal/newton_gpu_solver.cpp, the rules of the CPU
// solver (snapml/src/primal/trust_region.h) over rows and vectors that stay on
// the devices, only scalars crossing to the host per iteration. The rows of each
// device id (a contiguous row range, operations_plan.h) are uploaded once into
// tiles of CSR rows and their transposed copy built on the device, float values,
// every product a kernel of its own with its loss terms and sums fused in.
//
// make_gpu_matrix_operations is the GPU backend of the matrix-operations seam
// (snapml/impl/matrix_operations.h) over the same rows and kernels: what the CPU
// solver's L-BFGS and Cholesky steps and its multinomial loss run on when asked
// for on a GPU, each product copying its vectors across the host link.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"

namespace snapml::cuda {

// The GPU backend over `source`'s rows on `device_ids` (empty: {0}); uploads them
// now. Throws Unsupported when a device is not visible, or when a device's part
// exceeds `max_gpu_memory` (0: no budget) or its free memory
// (require_part_fits names the sizes).
std::unique_ptr<MatrixOperations> make_gpu_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                             double bias_value, const std::vector<int>& device_ids,
                                                             std::uint64_t max_gpu_memory = 0);

// The primal Newton solver on `device_ids` (empty: {0}), under
// parameters.max_gpu_memory. The GPU session (gpu_session.h) builds it for solver
// primal with use_gpu, and keeps the uploaded rows for the next problem.
std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, const std::vector<int>& device_ids);

}  // namespace snapml::cuda
