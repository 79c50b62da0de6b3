#include "snapml/solver_factory.h"

#include <algorithm>
#include <cmath>
#include <functional>
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
// (the Hessian's cost), then the Newton solver where it wins from the start, else
// SDCA, whose certificates from kAutoProbeEpochs on predict the epochs still to
// go: past kAutoSwitchEpochs the Newton solver takes over from the dual's point.
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
    // The dual fit, watched: at each certificate from kAutoProbeEpochs on, the
    // gap's rate decides whether it goes on or hands over to the Newton solver,
    // which starts where the dual fit is (its weights and intercept: the early
    // epochs are SDCA's cheapest progress, the Newton solver's slowest).
    struct HandOver {
      SolverState state;
    };
    std::function<SolverState()> snapshot;
    chosen.on_progress = [&, user = parameters_.on_progress](int epochs, const std::function<SolverState()>& take) {
      if (user) user(epochs, take);
      snapshot = take;  // valid until the dual fit returns: called by on_epoch below
    };
    chosen.on_epoch = [&, user = parameters_.on_epoch](const EpochRecord& record) {
      if (user) user(record);
      history_.push_back(record);
      // certify_every_epoch's extra records do not move the decision (solver.h).
      if (record.observed) return;
      checked_.push_back(record);
      if (record.epoch < parameters_.first_epoch + kAutoProbeEpochs || !snapshot) return;
      if (auto_switches_to_primal(checked_, parameters_.tol)) throw HandOver{snapshot()};
    };
    history_.clear();
    checked_.clear();
    try {
      return make_sdca_cpu_solver(chosen)->fit(source, communicator, state);
    } catch (HandOver& hand_over) {
      state = std::move(hand_over.state);
      std::vector<double>().swap(state.alpha);  // from the weights (w and the intercept)
      SolverParameters primal = parameters_;
      primal.solver = SolverChoice::Primal;
      // Newton steps along a line: from the dual fit's point the trust region's
      // first full steps overshoot, each rejection costs a CG solve and the radius
      // regrows at most 4x an iteration (news20 binary, 2 threads: 5-7 iterations
      // from SDCA's 16th epoch by the trust region, 4-5 by the line search;
      // docs/benchmarks/cpu.md, section 9.2).
      if (primal.primal_method == PrimalMethod::Auto) primal.primal_method = PrimalMethod::LineSearch;
      FitResult result = make_tron_cpu_solver(primal)->fit(source, communicator, state);
      result.history.insert(result.history.begin(), history_.begin(), history_.end());
      return result;
    }
  }

 private:
  AutoSurvey survey_rows(ChunkSource& source, Communicator& communicator) const {
    double sums[2] = {0.0, 0.0};  // the Hessian's entry pairs and the rows' entries (newton_direct.h)
    CsrView x;
    source.reset();
    while (source.next(x))
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        const auto entries = static_cast<double>(x.row_end(row) - x.row_begin(row) + 1);
        sums[0] += 0.5 * entries * (entries + 1.0);
        sums[1] += entries;
      }
    communicator.allreduce_sum(sums, 2);
    std::int64_t features = source.n_features();
    communicator.allreduce_max(&features, 1);
    AutoSurvey survey;
    survey.hessian_pairs = sums[0];
    survey.entries = sums[1];
    survey.width = static_cast<std::size_t>(features) + 1;
    return survey;
  }

  SolverParameters parameters_;
  std::vector<EpochRecord> history_;  // the watched dual fit's records
  std::vector<EpochRecord> checked_;  // those of them the schedule took (not `observed`)
};

// Builds, per problem, the solver plan_solver names. The GPU session is created
// with the first GPU problem, so the errors come in the order a user meets them
// (an L1 problem is refused before a missing backend is).
class DefaultSession final : public SolverSession {
 public:
  DefaultSession(bool use_gpu, std::vector<int> device_ids, SessionOptions options)
      : use_gpu_(use_gpu), device_ids_(std::move(device_ids)), options_(options) {}

  std::int64_t row_uploads() const override { return gpu_session_ ? gpu_session_->row_uploads() : 0; }
  bool serves(bool use_gpu, const std::vector<int>& device_ids) const override {
    return use_gpu == use_gpu_ && (!use_gpu || device_ids == device_ids_);
  }

  std::unique_ptr<Solver> make(const SolverParameters& parameters) override {
    using Algorithm = SolverPlan::Algorithm;
    const SolverPlan plan = plan_solver(parameters, use_gpu_);
    if (plan.gpu) {
      // The Newton solver, its products on the GPUs (the GPU session's).
      SolverParameters primal = parameters;
      primal.solver = SolverChoice::Primal;
      if (!gpu_session_)
        gpu_session_ = (options_.gpu_factory ? options_.gpu_factory : gpu_factory())(device_ids_, options_.row_sets);
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
  SessionOptions options_;
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
  // Else SDCA first, whatever C max ||x_i||^2: its first epochs are the cheapest
  // progress either solver makes, and the Newton solver started from them takes
  // fewer passes than from 0 (news20 binary, C max ||x||^2 = 3.9e5: 81 passes
  // against 354; at C = 100, 516 against 2,885; docs/benchmarks/cpu.md, "Auto").
  return AutoChoice::DualThenDecide;
}

bool auto_switches_to_primal(const std::vector<EpochRecord>& history, double tol) {
  if (history.size() < 2) return false;
  const auto relative = [](const EpochRecord& record) { return record.gap / std::abs(record.primal); };
  const EpochRecord& last = history.back();
  if (!(last.gap > 0.0) || !(last.primal != 0.0) || relative(last) <= tol) return false;
  // The gap's rate per epoch since the smallest gap before this certificate (SDCA's
  // linear rate): the asynchronous threads and a free intercept's multiplier
  // steps make one certificate's gap rise now and then (text-like 160k rows: 0.67,
  // 3.2, 6.3, then met), which alone says nothing; a gap that has not fallen
  // below its best for kAutoProbeEpochs epochs has stalled.
  const EpochRecord* best = &history.front();
  for (std::size_t k = 1; k + 1 < history.size(); ++k)
    if (relative(history[k]) < relative(*best)) best = &history[k];
  const int epochs = last.epoch - best->epoch;
  if (epochs <= 0) return false;
  if (!(relative(last) < relative(*best))) return epochs >= kAutoProbeEpochs;
  const double rate = std::pow(relative(last) / relative(*best), 1.0 / static_cast<double>(epochs));
  return std::log(tol / relative(last)) / std::log(rate) > kAutoSwitchEpochs;
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
    // coordinate descent on a9a at the same objective); CDN for the rest; the
    // multinomial loss by orthant-wise L-BFGS in the primal solver.
    if (loss_is_per_class(parameters.loss)) {
      plan.algorithm = Algorithm::Newton;
      plan.reason = "penalty l1 (or the elastic net) with the multinomial loss: orthant-wise L-BFGS in the primal "
                    "Newton solver";
    } else if (parameters.solver != SolverChoice::CoordinateDescent && glmnet_supports(parameters.loss)) {
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
    plan.reason = "solver auto: one pass over the data measures the Hessian's size, then the Newton solver or "
                  "SDCA by auto_choice (SDCA handing over to Newton, from its point, where its certificates predict "
                  "many epochs)";
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

std::unique_ptr<SolverSession> make_solver_session(bool use_gpu, const std::vector<int>& device_ids,
                                                   const SessionOptions& options) {
  return std::make_unique<DefaultSession>(use_gpu, device_ids, options);
}

std::unique_ptr<Solver> make_solver(const SolverParameters& parameters, bool use_gpu,
                                    const std::vector<int>& device_ids) {
  return make_solver_session(use_gpu, device_ids)->make(parameters);
}

}  // namespace snapml
