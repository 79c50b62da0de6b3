// The parameters of a train() call, each declared once: its name, type, default,
// range and help (XGBoost's src/linear/param.h does the same with its own macros).
// Everything else is generated from this list:
//
// - the fields of TrainParameters (train.h), named as here;
// - the fields every problem's SolverParameters copies unchanged (`copied`
//   below; train.cpp, problem_parameters);
// - snap-train's options for the parameters with a `cli` flag, with this help,
//   default and range (snapml/cli/train_options.cpp; the rest have LIBLINEAR's
//   own spellings there, e.g. -B for fit_intercept and intercept_scaling);
// - the keywords of Python's `_core.train` and `_core.plan`, named as here, and
//   `_core.parameters()`, this list for the estimators (python/src/training.cpp).
//
// Three groups, kept apart: the problem (what is minimised: it decides the
// model), the solver families' options (how: they change the path, not the
// optimum), and the device and run options (where, and how a run is kept).
//
// To add a parameter: a line in its group below (`cli` "" keeps it off the
// command line; `copied` true when SolverParameters has a field of the same
// name and type that takes it unchanged), then read it where it acts (a solver
// reads its SolverParameters field; validate() in snapml/src/train/solver.cpp
// checks what the range cannot say). snap-train and Python's `_core.train`
// take it from there; tests/cpp/train/test_parameters.cpp and
// tests/python/test_parameters.py check that they do.
//
// Each list entry is X(type, name, default, range, copied, cli, help).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "snapml/losses/dispatch.h"
#include "snapml/penalty.h"
#include "snapml/solver.h"
#include "snapml/thread_updates.h"

namespace snapml {

// A numeric parameter's interval (ignored for the others): [minimum, maximum],
// or (minimum, maximum] with minimum_open.
struct ParameterRange {
  double minimum = -std::numeric_limits<double>::infinity();
  double maximum = std::numeric_limits<double>::infinity();
  bool minimum_open = false;
};
constexpr ParameterRange any_value() { return {}; }
constexpr ParameterRange closed(double minimum, double maximum) { return {minimum, maximum, false}; }
constexpr ParameterRange above(double minimum, double maximum = std::numeric_limits<double>::infinity()) {
  return {minimum, maximum, true};
}
constexpr ParameterRange at_least(double minimum) { return {minimum, std::numeric_limits<double>::infinity(), false}; }
// Label -> weight (a macro argument cannot hold the comma of std::map<double, double>).
using ClassWeights = std::map<double, double>;
inline constexpr double kIntMax = static_cast<double>(std::numeric_limits<int>::max());

// The problem: P(w) = sum_i C_i loss(y_i, w.x_i + b) + penalty(w), C_i = C *
// class_weight[y_i] * sample_weight_i (docs/algorithms.md). Sample weights come
// with the rows (CsrView::weights).
#define SNAPML_PROBLEM_PARAMETERS(X)                                                                                  \
  X(LossKind, loss, LossKind::Logistic, any_value(), true, "",                                                        \
    "the loss, by its name in losses/dispatch.h (the CLI's -s or --loss)")                                            \
  X(Penalty, penalty, Penalty::L2, any_value(), true, "",                                                             \
    "l2: 0.5 ||w||^2; l1: ||w||_1 (with l1_ratio < 1 the elastic net; CPU, one process); none: no regulariser "       \
    "(the primal Newton solver)")                                                                                     \
  X(double, l1_ratio, 1.0, closed(0.0, 1.0), true, "--l1-ratio",                                                      \
    "with L1 (-s 6, --penalty l1; logistic, squared or multinomial loss): the elastic net l1_ratio ||w||_1 + (1 - l1_ratio)/2 "    \
    "||w||^2, scikit-learn's (default 1: pure L1)")                                                                   \
  X(double, C, 1.0, above(0.0, kMaxCost), true, "-c",                                                                 \
    "cost C, the inverse of the regularisation strength (default 1; at most 1e100, past which the fit's arithmetic "  \
    "overflows: kMaxCost in snapml/solver.h)")                                                                        \
  X(ClassWeights, class_weight, {}, any_value(), false, "",                                               \
    "per-label weights multiplying C (absent labels weigh 1); in one-vs-rest a class's weight applies to its own "    \
    "positive problem and the rest weigh 1, as LIBLINEAR's -wi does")                                                 \
  X(bool, balanced_class_weight, false, any_value(), false, "",                                                       \
    "scikit-learn's class_weight='balanced': n_samples / (n_classes * count of the class)")                           \
  X(bool, fit_intercept, true, any_value(), false, "", "fit an intercept (the CLI's -B > 0)")                        \
  X(double, intercept_scaling, 1.0, above(0.0, kMaxInterceptScaling), false, "",                                      \
    "LIBLINEAR's -B: the value of the constant feature whose weight is the intercept")                                \
  X(bool, penalise_intercept, true, any_value(), false, "",                                                           \
    "whether the intercept is in the penalty (LIBLINEAR's convention, the dual solvers') or free (scikit-learn's)")    \
  X(double, epsilon, 0.0, at_least(0.0), true, "", "squared loss: the insensitive zone (LIBLINEAR's -p)")            \
  X(double, tol, 1e-3, above(0.0), true, "-e,--tol",                                                                  \
    "stop when the duality gap P(w) - D(alpha) <= tol * P(w) (default 0.001); not LIBLINEAR's per-solver "            \
    "criterion. L1 (-s 5, 6): when the summed minimum-norm sub-gradient is <= tol times the first epoch's times "    \
    "max(min(#pos, #neg), 1) / l (1 for regression), LIBLINEAR's rule")                                               \
  X(int, max_iter, 1000, closed(1.0, kIntMax), false, "--max-iter",                                                   \
    "most epochs per problem (default 1000; a resumed fit counts the epochs before its checkpoint)")

// The solver families' options: which algorithm, and how SDCA and CoCoA+ run.
#define SNAPML_SOLVER_PARAMETERS(X)                                                                                   \
  X(SolverChoice, solver, SolverChoice::Dual, any_value(), true, "",                                                  \
    "L2 and none: dual (SDCA), primal (the Newton solver) or auto (solver_factory.h, auto_choice); L1: cd asks for "  \
    "plain coordinate descent")                                                                                       \
  X(int, local_epochs, 1, closed(1.0, kIntMax), true, "--local-epochs",                                               \
    "under mpirun: local SDCA epochs per CoCoA+ round, between two allreduces of the weights (default 1; "            \
    "docs/distributed.md)")                                                                                           \
  X(bool, adaptive_sigma, true, any_value(), true, "",                                                                \
    "CoCoA+'s sigma' adapted to the measured overlap of the ranks' changes, or the paper's fixed K "                 \
    "(snapml/impl/cocoa.h)")                                                                                          \
  X(bool, shrinking, true, any_value(), true, "",                                                                     \
    "hinge and squared hinge: leave out of the passes the rows likely to stay at a bound (LIBLINEAR's shrinking)")   \
  X(ThreadUpdates, thread_updates, ThreadUpdates::Auto, any_value(), true, "",                                        \
    "SDCA with several threads: one shared w (atomic: nothing pending) or a replica per thread (thread_updates.h)")   \
  X(std::uint64_t, seed, 0, any_value(), true, "--seed",                                                              \
    "seed of the row order in SDCA and of the cross-validation folds (default 0)")                                   \
  X(bool, certify_every_epoch, false, any_value(), true, "",                                                          \
    "SDCA: a duality-gap certificate after every epoch for the history (snap-train's --history, snap_ml.ibm's "    \
    "generate_training_history='full'); tol is checked on the gap's schedule alone (certificate_schedule.h), so "   \
    "the CPU fit is the same; costs a pass over the rows an epoch")

// Where the fit runs and how a run is kept. use_gpu: a build without CUDA or a
// machine without a visible GPU throws Unsupported instead of running on the
// CPU. Checkpoint and resume (snapml/checkpoint.h): with `checkpoint` set,
// train() resumes from that file if it exists (same data and fit-defining
// options, or InvalidArgument naming what differs; a damaged file is an
// InputError) and saves the state to it atomically whenever
// checkpoint_interval seconds have passed since the last save (0: after every
// round), and at most a tenth of the fit's time (checkpoint_save_due). Refused
// under several ranks and with penalty l1 (its solvers save no state).
// train() leaves the file; the caller removes it once the model is safe
// (remove_checkpoint).
#define SNAPML_RUN_PARAMETERS(X)                                                                                      \
  X(int, threads, 0, closed(0.0, kIntMax), true, "-n,--threads",                                                      \
    "CPU threads (default 0: one per 180k non-zeros an epoch visits, at most all; under mpirun: per rank, at most "   \
    "this rank's share of the machine)")                                                                              \
  X(bool, use_gpu, false, any_value(), false, "",                                                                     \
    "train on the GPUs of device_ids (solver_factory.h, plan_solver); never a silent CPU run")                        \
  X(std::vector<int>, device_ids, {}, any_value(), false, "", "CUDA devices, one worker each (empty: device 0)")      \
  X(std::uint64_t, max_memory, 0, any_value(), false, "",                                                             \
    "host memory budget in bytes (0: the memory available); the per-feature state must fit it "                      \
    "(snapml/feature_memory.h)")                                                                                      \
  X(std::uint64_t, max_gpu_memory, 0, any_value(), true, "",                                                          \
    "GPU memory budget per device in bytes (0: none); data beyond it streams (docs/out-of-core.md)")                 \
  X(std::string, checkpoint, "", any_value(), false, "--checkpoint",                                                  \
    "resume from FILE if it exists (same data and options, else exit 1 naming what differs), and save the solver "   \
    "state to it atomically during training (--checkpoint-interval); removed once the model is written")             \
  X(double, checkpoint_interval, 60.0, at_least(0.0), false, "--checkpoint-interval",                                 \
    "seconds between checkpoint saves (default 60; 0: after every epoch); saving takes at most a tenth of the "       \
    "fit's time")

#define SNAPML_TRAIN_PARAMETERS(X) SNAPML_PROBLEM_PARAMETERS(X) SNAPML_SOLVER_PARAMETERS(X) SNAPML_RUN_PARAMETERS(X)

enum class ParameterGroup { Problem, Solver, Run };
inline const char* parameter_group_name(ParameterGroup group) {
  return group == ParameterGroup::Problem ? "problem" : group == ParameterGroup::Solver ? "solver" : "run";
}

// One declared parameter, without its type and default (which the visitor
// below gives with the field).
struct ParameterInfo {
  const char* name;
  ParameterGroup group;
  ParameterRange range;
  bool copied;      // SolverParameters has a field of this name that takes it unchanged
  const char* cli;  // snap-train's flags ("-e,--tol"), "" when the CLI maps it by hand or not at all
  const char* help;
};

// Calls visit(info, field) for every declared parameter of `parameters` (a
// TrainParameters, const or not), in declaration order.
template <typename Parameters, typename Visit>
void for_each_parameter(Parameters& parameters, Visit&& visit) {
#define SNAPML_VISIT_PARAMETER(group_, type, name, default_, range_, copied_, cli_, help_) \
  visit(ParameterInfo{#name, group_, range_, copied_, cli_, help_}, parameters.name);
#define SNAPML_VISIT_PROBLEM(...) SNAPML_VISIT_PARAMETER(ParameterGroup::Problem, __VA_ARGS__)
#define SNAPML_VISIT_SOLVER(...) SNAPML_VISIT_PARAMETER(ParameterGroup::Solver, __VA_ARGS__)
#define SNAPML_VISIT_RUN(...) SNAPML_VISIT_PARAMETER(ParameterGroup::Run, __VA_ARGS__)
  SNAPML_PROBLEM_PARAMETERS(SNAPML_VISIT_PROBLEM)
  SNAPML_SOLVER_PARAMETERS(SNAPML_VISIT_SOLVER)
  SNAPML_RUN_PARAMETERS(SNAPML_VISIT_RUN)
#undef SNAPML_VISIT_PROBLEM
#undef SNAPML_VISIT_SOLVER
#undef SNAPML_VISIT_RUN
#undef SNAPML_VISIT_PARAMETER
}

// The fields every problem's SolverParameters takes unchanged (`copied`).
template <typename Train>
void copy_shared_parameters(const Train& from, SolverParameters& to) {
  // A generic lambda: `to.name` is formed only where `copied` is true.
  const auto copy = [&from](auto& solver) {
#define SNAPML_COPY_PARAMETER(type, name, default_, range_, copied_, cli_, help_) \
  if constexpr (copied_) solver.name = from.name;
    SNAPML_TRAIN_PARAMETERS(SNAPML_COPY_PARAMETER)
#undef SNAPML_COPY_PARAMETER
  };
  copy(to);
}

// The names of a parameter's enumerated values (loss, penalty, solver,
// thread_updates), for the CLI's and Python's errors and help.
inline const char* value_name(LossKind value) { return loss_name(value); }
inline const char* value_name(Penalty value) { return penalty_name(value); }
inline const char* value_name(SolverChoice value) { return solver_choice_name(value); }
inline const char* value_name(ThreadUpdates value) { return thread_updates_name(value); }
// Their inverses: InvalidArgument naming the accepted names.
inline void value_from_name(const std::string& name, LossKind& value) { value = loss_from_name(name); }
inline void value_from_name(const std::string& name, Penalty& value) { value = penalty_from_name(name); }
inline void value_from_name(const std::string& name, SolverChoice& value) { value = solver_choice_from_name(name); }
inline void value_from_name(const std::string& name, ThreadUpdates& value) {
  value = thread_updates_from_name(name);
}

}  // namespace snapml
