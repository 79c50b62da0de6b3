// The primal trust-region Newton solver (snapml/src/primal/tron.cpp) with its products on
// GPUs: the same solver code over a GPU backend of the matrix-operations seam
// (snapml/impl/matrix_operations.h). docs/gpu.md, "Primal Newton on the GPU".
//
// The backend keeps this rank's rows on the devices for the whole fit, each
// device id a contiguous row range (operations_plan.h): the CSR matrix with the
// constant feature as column n_features, and its transpose, built once on the
// device (cusparseCsr2cscEx2), both with double values. Each product is one or
// two cusparseSpMV calls per device with CUSPARSE_SPMV_CSR_ALG2, which cuSPARSE
// documents as bitwise repeatable, so a fit is repeatable as on the CPU:
//   margins          X w             (w up, n_rows margins down)
//   transpose_times  X^T d           (d up, n_weights down; devices summed in order)
//   hessian_product  X^T (c .* X v)  (c and v up, n_weights down)
//   hessian_diagonal sum_i c_i x_ij^2, a kernel over the transposed rows
// Why a transposed copy, not cusparseSpMV with CUSPARSE_OPERATION_TRANSPOSE: the
// transposed product scatters into w with atomics (cuSPARSE promises no
// repeatable bits for it, and rows sharing a column, the intercept's above all,
// contend on one address), while a product with the transposed CSR reads each
// output's entries in order; it costs the matrix's memory twice.
// Vectors cross the host link in every product (TRON's vector work, CG and the
// trust region, is on the host in double): n_weights + n_rows doubles each way at
// most, small beside the 12 bytes per entry each product reads on the device.
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

// The primal Newton solver whose fits run their products on `device_ids` (empty:
// {0}), under parameters.max_gpu_memory. The GPU session (sdca_gpu.h) builds it for
// solver primal with use_gpu, and keeps the uploaded rows for the next problem.
std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, const std::vector<int>& device_ids);

}  // namespace snapml::cuda
