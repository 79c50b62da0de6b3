#include "snapml/solver_factory.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "snapml/error.h"
#include "snapml/impl/gpu_backend.h"
#include "snapml/impl/objectives.h"

namespace snapml {
namespace {

// The GPU backend's session factory, from the plugin loaded on the first call
// (gpu_backend.h). A failed load throws and is tried again on the next call.
GpuSessionFactory gpu_factory() {
#if defined(SNAPML_WITH_CUDA)
  static const GpuBackend backend = load_gpu_backend(gpu_backend_candidates());
  return backend.session;
#else
  throw Unsupported("this build of snapml has no CUDA backend; rebuild with -DSNAPML_CUDA=ON (nvcc on the PATH)");
#endif
}

// Solver auto on the CPU: one pass for max_i C_i ||x_i||^2 over every rank's
// rows, then the solver auto_picks_primal names.
class AutoCpuSolver final : public Solver {
 public:
  explicit AutoCpuSolver(const SolverParameters& parameters) : parameters_(parameters) { validate(parameters_); }

  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override {
    SolverParameters chosen = parameters_;
    chosen.solver = auto_picks_primal(parameters_, largest_cost_norm(source, communicator)) ? SolverChoice::Primal
                                                                                            : SolverChoice::Dual;
    auto solver = chosen.solver == SolverChoice::Primal ? make_tron_cpu_solver(chosen) : make_sdca_cpu_solver(chosen);
    return solver->fit(source, communicator, state);
  }

 private:
  double largest_cost_norm(ChunkSource& source, Communicator& communicator) const {
    const RowTargets targets = RowTargets::from(parameters_);
    const double bias_square = parameters_.intercept_scaling * parameters_.intercept_scaling;
    double largest = 0.0;
    CsrView x;
    source.reset();
    while (source.next(x))
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        const double cost = targets.cost(targets.target(x.labels[row]), x.weight(row));
        largest = std::max(largest, cost * (row_squared_norm(x, row) + bias_square));
      }
    // A non-negative double's bits order as the double does: the integer maximum.
    std::int64_t bits = 0;
    std::memcpy(&bits, &largest, sizeof bits);
    communicator.allreduce_max(&bits, 1);
    std::memcpy(&largest, &bits, sizeof bits);
    return largest;
  }

  SolverParameters parameters_;
};

bool needs_primal(const SolverParameters& parameters) {
  return parameters.penalty == Penalty::None || !parameters.penalise_intercept;
}

// Builds, per problem, the solver plan_solver names. The GPU session is created
// with the first GPU problem, so the errors come in the order a user meets them
// (an L1 problem is refused before a missing backend is).
class DefaultSession final : public SolverSession {
 public:
  DefaultSession(bool use_gpu, std::vector<int> device_ids) : use_gpu_(use_gpu), device_ids_(std::move(device_ids)) {}

  std::unique_ptr<Solver> make(const SolverParameters& parameters) override {
    using Algorithm = SolverPlan::Algorithm;
    const SolverPlan plan = plan_solver(parameters, use_gpu_);
    if (plan.gpu) {
      // The Newton solver, its products on the GPUs (the GPU session's).
      SolverParameters primal = parameters;
      primal.solver = SolverChoice::Primal;
      if (!gpu_session_) gpu_session_ = gpu_factory()(device_ids_);
      return gpu_session_->make(primal);
    }
    switch (plan.algorithm) {
      case Algorithm::Glmnet:
        return make_glmnet_cpu_solver(parameters);
      case Algorithm::CoordinateDescentL1:
        return make_cd_l1_cpu_solver(parameters);
      case Algorithm::Newton:
        return make_tron_cpu_solver(parameters);
      case Algorithm::AutoSdcaOrNewton:
        return std::make_unique<AutoCpuSolver>(parameters);
      case Algorithm::Sdca:
        break;
    }
    return make_sdca_cpu_solver(parameters);
  }

 private:
  bool use_gpu_;
  std::vector<int> device_ids_;
  std::unique_ptr<SolverSession> gpu_session_;
};

}  // namespace

bool auto_picks_primal(const SolverParameters& parameters, double largest_cost_norm) {
  if (!primal_solver_supports(parameters.loss)) return false;
  return needs_primal(parameters) || largest_cost_norm > kAutoPrimalThreshold;
}

SolverPlan plan_solver(const SolverParameters& parameters, bool use_gpu) {
  using Algorithm = SolverPlan::Algorithm;
  // On the GPU the solver choice is not the user's to make (below): the problem
  // is checked as the Newton solver will train it.
  SolverParameters checked = parameters;
  if (use_gpu && parameters.penalty != Penalty::L1 && primal_solver_supports(parameters.loss))
    checked.solver = SolverChoice::Primal;
  validate(checked);
  SolverPlan plan;
  plan.gpu = use_gpu;
  if (parameters.penalty == Penalty::L1) {
    if (use_gpu)
      throw Unsupported(
          "the L1 solvers are CPU-only; train penalty l1 without use_gpu / --gpu (or penalty l2 on the GPU)");
    // newGLMNET where it applies (docs/benchmarks/primal.md: faster than plain
    // coordinate descent on a9a at the same objective); CDN for the rest.
    if (parameters.solver != SolverChoice::CoordinateDescent && glmnet_supports(parameters.loss)) {
      plan.algorithm = Algorithm::Glmnet;
      plan.reason = "penalty l1 (or the elastic net) with the logistic or squared loss: newGLMNET";
    } else {
      plan.algorithm = Algorithm::CoordinateDescentL1;
      plan.reason = parameters.solver == SolverChoice::CoordinateDescent
                        ? "solver cd asks for primal coordinate descent"
                        : "penalty l1 with this loss: primal coordinate descent (newGLMNET takes the logistic and "
                          "squared losses)";
    }
    return plan;
  }
  if (use_gpu) {
    if (!primal_solver_supports(parameters.loss))
      throw Unsupported(std::string("the ") + loss_name(parameters.loss) +
                        " loss trains by dual coordinate ascent only, and the GPU dual solver has not passed a "
                        "device run (docs/gpu.md); train it on the CPU (without use_gpu / --gpu), or train the "
                        "squared hinge loss on the GPU");
    plan.algorithm = Algorithm::Newton;
    plan.reason = "on the GPU every smooth loss trains by the primal Newton solver (the GPU dual solver has not "
                  "passed a device run; docs/gpu.md)";
    return plan;
  }
  if (parameters.solver == SolverChoice::Primal) {
    plan.algorithm = Algorithm::Newton;
    plan.reason = "solver primal asks for the Newton solver";
  } else if (parameters.solver == SolverChoice::Auto) {
    plan.algorithm = Algorithm::AutoSdcaOrNewton;
    plan.reason = "solver auto: one pass over the data measures max_i C_i ||x_i||^2, then the Newton solver or "
                  "SDCA by auto_picks_primal";
  } else {
    plan.algorithm = Algorithm::Sdca;
    plan.reason = "solver dual asks for dual coordinate ascent";
  }
  return plan;
}

const char* algorithm_name(SolverPlan::Algorithm algorithm) {
  switch (algorithm) {
    case SolverPlan::Algorithm::Sdca:
      return "sdca";
    case SolverPlan::Algorithm::Newton:
      return "newton";
    case SolverPlan::Algorithm::AutoSdcaOrNewton:
      return "auto";
    case SolverPlan::Algorithm::Glmnet:
      return "glmnet";
    case SolverPlan::Algorithm::CoordinateDescentL1:
      return "cd";
  }
  return "sdca";
}

bool has_gpu_backend() {
  try {
    return gpu_factory() != nullptr;
  } catch (const Unsupported&) {
    return false;
  }
}

std::unique_ptr<SolverSession> make_solver_session(bool use_gpu, const std::vector<int>& device_ids) {
  return std::make_unique<DefaultSession>(use_gpu, device_ids);
}

std::unique_ptr<Solver> make_solver(const SolverParameters& parameters, bool use_gpu,
                                    const std::vector<int>& device_ids) {
  return make_solver_session(use_gpu, device_ids)->make(parameters);
}

}  // namespace snapml
