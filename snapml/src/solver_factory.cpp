#include "snapml/solver_factory.h"

#include <atomic>

#include "snapml/error.h"

namespace snapml {
namespace {

// Constant-initialised, so a registration during static initialisation of another
// translation unit always finds it ready.
std::atomic<GpuSessionFactory> gpu_factory{nullptr};

// Picks the solver per problem by the rules in solver_factory.h. The GPU session
// is created with the first GPU problem, so the errors come in the order a user
// meets them (an L1 problem is refused before a missing backend is).
class DefaultSession final : public SolverSession {
 public:
  DefaultSession(bool use_gpu, std::vector<int> device_ids) : use_gpu_(use_gpu), device_ids_(std::move(device_ids)) {}

  std::unique_ptr<Solver> make(const SolverParameters& parameters) override {
    if (parameters.penalty == Penalty::L1) {
      if (use_gpu_)
        throw Unsupported(
            "the L1 solver is CPU-only; train penalty l1 without use_gpu (or use penalty l2 on the GPU)");
      return make_cd_l1_cpu_solver(parameters);
    }
    if (!use_gpu_) return make_sdca_cpu_solver(parameters);
    if (!gpu_session_) gpu_session_ = gpu_session(device_ids_);
    return gpu_session_->make(parameters);
  }

 private:
  static std::unique_ptr<SolverSession> gpu_session(const std::vector<int>& device_ids) {
    const GpuSessionFactory factory = gpu_factory.load();
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
    return factory(device_ids);
  }

  bool use_gpu_;
  std::vector<int> device_ids_;
  std::unique_ptr<SolverSession> gpu_session_;
};

}  // namespace

void register_gpu_session_factory(GpuSessionFactory factory) { gpu_factory.store(factory); }

bool has_gpu_backend() { return gpu_factory.load() != nullptr; }

std::unique_ptr<SolverSession> make_solver_session(bool use_gpu, const std::vector<int>& device_ids) {
  return std::make_unique<DefaultSession>(use_gpu, device_ids);
}

std::unique_ptr<Solver> make_solver(const SolverParameters& parameters, bool use_gpu,
                                    const std::vector<int>& device_ids) {
  return make_solver_session(use_gpu, device_ids)->make(parameters);
}

}  // namespace snapml
