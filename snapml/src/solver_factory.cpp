#include "snapml/solver_factory.h"

#include <atomic>

#include "snapml/error.h"

namespace snapml {
namespace {

// Constant-initialised, so a registration during static initialisation of another
// translation unit always finds it ready.
std::atomic<GpuSolverFactory> gpu_factory{nullptr};

}  // namespace

void register_gpu_solver_factory(GpuSolverFactory factory) { gpu_factory.store(factory); }

bool has_gpu_backend() { return gpu_factory.load() != nullptr; }

std::unique_ptr<Solver> make_solver(const SolverParameters& parameters, bool use_gpu,
                                    const std::vector<int>& device_ids) {
  if (parameters.penalty == Penalty::L1) {
    if (use_gpu)
      throw Unsupported("the L1 solver is CPU-only; train penalty l1 without use_gpu (or use penalty l2 on the GPU)");
    return make_cd_l1_cpu_solver(parameters);
  }
  if (!use_gpu) return make_sdca_cpu_solver(parameters);
  const GpuSolverFactory factory = gpu_factory.load();
  if (factory == nullptr) {
#if defined(SNAPML_WITH_CUDA)
    // A CUDA build, but this program links snapml_core without snapml_all.
    throw Unsupported(
        "this program was built without snapml's CUDA backend although the build has one; "
        "link the snapml_all target (it registers the GPU solver)");
#else
    throw Unsupported(
        "this build of snapml has no CUDA backend; rebuild with -DSNAPML_CUDA=ON (nvcc on the PATH)");
#endif
  }
  return factory(parameters, device_ids);
}

}  // namespace snapml
