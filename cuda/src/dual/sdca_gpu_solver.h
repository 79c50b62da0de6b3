// The GPU dual solver over a session's devices (gpu_session.cpp builds it): its
// rows are the ones GpuDevices holds (device/gpu_devices.h) when an earlier
// problem of the session uploaded the same source, else its own upload.
#pragma once

#include <memory>

#include "device/gpu_devices.h"
#include "snapml/solver.h"

namespace snapml::cuda::detail {

std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters& parameters, std::shared_ptr<GpuDevices> devices);

}  // namespace snapml::cuda::detail
