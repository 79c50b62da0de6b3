#include "snapml/solver_factory.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "snapml/error.h"
#include "snapml/impl/gpu_backend.h"
#include "snapml/impl/objectives.h"
#include "../primal/newton_direct.h"

namespace snapml {
namespace {

// The GPU backend's session factory, from the plugin loaded on the first call
// (gpu_backend.h). A failed load throws and is tried again on the next call.
GpuSessionFactory gpu_factory() { return gpu_backend().session; }

// Solver auto on the CPU (solver_factory.h, auto_choice): one pass surveys the rows
// (max_i C_i ||x_i||^2, the Hessian's cost), then the Newton solver where it
// wins from the start, else SDCA, whose certificates after kAutoProbeEpochs predict
// the epochs still to go: past kAutoSwitchEpochs the Newton solver takes over.
class AutoCpuSolver final : public Solver {
 public:
  explicit AutoCpuSolver(const SolverParameters& parameters) : parameters_(parameters) { validate(parameters_); }

  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override {
    AutoSurvey survey = survey_rows(source, communicator);
    survey.resident = source.resident();
    survey.ranks = communicator.size();
    SolverParameters chosen = parameters_;
    const AutoChoice choice = auto_choice(parameters_, survey);
    if (choice == AutoChoice::Primal) {
      chosen.solver = SolverChoice::Primal;
      return make_tron_cpu_solver(chosen)->fit(source, communicator, state);
    }
    chosen.solver = SolverChoice::Dual;
    if (choice == AutoChoice::Dual) return make_sdca_cpu_solver(chosen)->fit(source, communicator, state);
    // The dual fit, watched: at its first certificate from kAutoProbeEpochs on, the
    // gap's rate decides once whether it goes on or hands over to the Newton
    // solver (a cold start: the probe's epochs are a few passes).
    struct HandOver {};
    bool decided = false;
    chosen.on_epoch = [&, user = parameters_.on_epoch](const EpochRecord& record) {
      if (user) user(record);
      history_.push_back(record);
      if (decided || record.epoch < parameters_.first_epoch + kAutoProbeEpochs) return;
      decided = true;
      if (auto_switches_to_primal(history_, parameters_.tol)) throw HandOver{};
    };
    history_.clear();
    const SolverState start = state;
    try {
      return make_sdca_cpu_solver(chosen)->fit(source, communicator, state);
    } catch (const HandOver&) {
      state = start;
      SolverParameters primal = parameters_;
      primal.solver = SolverChoice::Primal;
      FitResult result = make_tron_cpu_solver(primal)->fit(source, communicator, state);
      result.history.insert(result.history.begin(), history_.begin(), history_.end());
      return result;
    }
  }

 private:
  AutoSurvey survey_rows(ChunkSource& source, Communicator& communicator) const {
    const RowTargets targets = RowTargets::from(parameters_);
    const double bias_square = parameters_.intercept_scaling * parameters_.intercept_scaling;
    double largest = 0.0;
    double sums[2] = {0.0, 0.0};  // the Hessian's entry pairs and the rows' entries (newton_direct.h)
    CsrView x;
    source.reset();
    while (source.next(x))
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        const double cost = targets.cost(targets.target(x.labels[row]), x.weight(row));
        largest = std::max(largest, cost * (row_squared_norm(x, row) + bias_square));
        const auto entries = static_cast<double>(x.row_end(row) - x.row_begin(row) + 1);
        sums[0] += 0.5 * entries * (entries + 1.0);
        sums[1] += entries;
      }
    // A non-negative double's bits order as the double does: the integer maximum.
    std::int64_t bits = 0;
    std::memcpy(&bits, &largest, sizeof bits);
    communicator.allreduce_max(&bits, 1);
    std::memcpy(&largest, &bits, sizeof bits);
    communicator.allreduce_sum(sums, 2);
    std::int64_t features = source.n_features();
    communicator.allreduce_max(&features, 1);
    AutoSurvey survey;
    survey.largest_cost_norm = largest;
    survey.hessian_pairs = sums[0];
    survey.entries = sums[1];
    survey.width = static_cast<std::size_t>(features) + 1;
    return survey;
  }

  SolverParameters parameters_;
  std::vector<EpochRecord> history_;  // the watched dual fit's certificates
};

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

AutoChoice auto_choice(const SolverParameters& parameters, const AutoSurvey& survey) {
  if (!primal_solver_supports(parameters.loss)) return AutoChoice::Dual;  // the hinge: SDCA only
  const bool free_intercept = !parameters.penalise_intercept && parameters.intercept_scaling != 0.0;
  // What only the Newton solver trains: no penalty, the multinomial loss, and a
  // free intercept whose rows are not in memory on one process (free_intercept.h).
  if (parameters.penalty == Penalty::None || loss_is_per_class(parameters.loss) ||
      (free_intercept && (!survey.resident || survey.ranks > 1)))
    return AutoChoice::Primal;
  // A small Hessian formed in one pass: Newton steps by Cholesky, exact in a few
  // passes (a9a: 0.05 s to machine precision).
  if (detail::direct_newton_pays(survey.hessian_pairs, survey.entries, survey.width)) return AutoChoice::Primal;
  // Dual coordinate ascent slows as C max ||x_i||^2 grows (LIBLINEAR's experience).
  if (survey.largest_cost_norm > kAutoPrimalThreshold) return AutoChoice::Primal;
  return AutoChoice::DualThenDecide;
}

bool auto_switches_to_primal(const std::vector<EpochRecord>& history, double tol) {
  if (history.size() < 2) return false;
  const EpochRecord& last = history.back();
  const EpochRecord& before = history[history.size() - 2];
  if (!(last.gap > 0.0) || !(before.gap > 0.0) || last.epoch <= before.epoch) return false;
  const double target = tol * last.primal;
  if (last.gap <= target) return false;
  // The gap's rate per epoch over the last two certificates (SDCA's linear rate).
  const double rate = std::pow(last.gap / before.gap, 1.0 / static_cast<double>(last.epoch - before.epoch));
  if (!(rate < 1.0)) return true;
  return std::log(target / last.gap) / std::log(rate) > kAutoSwitchEpochs;
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
    plan.reason = "solver auto: one pass over the data measures max_i C_i ||x_i||^2 and the Hessian's size, then "
                  "the Newton solver or SDCA by auto_choice (SDCA handing over to Newton where its certificates "
                  "predict many epochs)";
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
