// The GPU's SolverSession (snapml/solver_factory.h): the devices, their resources
// and the rows uploaded to them, kept across the problems a session builds
// solvers for, as faiss's GpuResources object is kept across searches. The
// plugin's one entry point hands the core this factory (gpu_backend_entry.cpp).
#pragma once

#include <memory>
#include <vector>

#include "snapml/solver_factory.h"

namespace snapml::cuda {

// The session whose solvers share `device_ids`' resources (one CoCoA+ worker per
// entry; empty: {0}) and the rows a problem uploads: solver primal gets the
// primal Newton solver (snapml/cuda/primal_gpu.h), whose rows the session keeps
// apart (tiles with a transposed copy); any other choice the GPU dual solver
// (sdca_gpu.h). A later problem over the same chunk source, the same global
// feature count, workers and max_gpu_memory reads only its labels from the
// source. The primal solver keeps the rows of up to `row_sets` sources
// (SessionOptions::row_sets). Checks the devices with require_gpu.
std::unique_ptr<SolverSession> make_gpu_session(const std::vector<int>& device_ids, int row_sets = 1);

}  // namespace snapml::cuda
