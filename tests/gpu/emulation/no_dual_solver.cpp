// The emulated runtime runs the primal solver's host code only (README.md): the
// GPU session (cuda/src/gpu_session.cpp) links here without the dual solver's
// kernels, and a dual problem says so instead of training.
#include "dual/sdca_gpu_solver.h"
#include "snapml/error.h"

namespace snapml::cuda::detail {

std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters&, std::shared_ptr<GpuDevices>) {
  throw Unsupported("the GPU dual solver's kernels are not emulated (tests/gpu/emulation); run it on a device");
}

}  // namespace snapml::cuda::detail
