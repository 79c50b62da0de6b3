// Training entry point: labels to binary problems, class weights, one-vs-rest.
//
// Any two distinct labels make a binary problem whose positive class is the
// larger label (scikit-learn's classes_[1]); more than two make one binary
// problem per class against the rest (the multinomial loss one joint problem);
// regression (the squared loss) uses the labels as they are. Which solver trains
// each problem, on which device, is plan_solver's answer (solver_factory.h): the
// CPU SDCA solver, the primal Newton solver (CPU threads, or its products on the
// GPUs with use_gpu), newGLMNET or coordinate descent for penalty L1.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/dataset.h"
#include "snapml/model.h"
#include "snapml/parameters.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"

namespace snapml {

struct TrainParameters {
  // The declared parameters (snapml/parameters.h: each with its default, range
  // and help), as fields of the same names.
#define SNAPML_TRAIN_FIELD(type, name, default_, range_, copied_, cli_, help_) type name = default_;
  SNAPML_TRAIN_PARAMETERS(SNAPML_TRAIN_FIELD)
#undef SNAPML_TRAIN_FIELD
  // Start from this model's weights (same loss, classes and at most as many
  // features); nullptr for a cold start. Must outlive the train() call.
  const Model* warm_start = nullptr;
  // The session that builds this call's solvers (solver_factory.h), kept by the
  // caller across calls so that a GPU keeps the rows it uploaded: a path of C
  // values, a -C search, warm starts over the same source (the same ChunkSource
  // object: its identity() keys the rows). Made by make_solver_session with this
  // use_gpu and device_ids (else InvalidArgument). Null: a session for this call.
  std::shared_ptr<SolverSession> session;
  // Called with every record of every problem (SolverParameters::on_epoch) with the
  // problem's index (its row in the model) and the record, e.g. for a progress display. One-vs-rest
  // problems run in parallel, so calls may come from several threads at once.
  std::function<void(int problem, const EpochRecord& record)> on_epoch;
  // Called between rounds of every problem (after every epoch of the dual solvers
  // and of L1 coordinate descent, every accepted Newton step;
  // SolverParameters::on_progress; newGLMNET certifies every iteration) with the problem's
  // index. It may throw to stop the fit: Python's Ctrl-C check is here, since
  // certificates (on_epoch) come only after the epochs certificate_schedule.h names.
  // From several threads at once, like on_epoch.
  std::function<void(int problem)> on_round;
  // A class_weight label the training labels lack: refused (InvalidArgument), or,
  // true, left out and listed in TrainResult::ignored_class_weights (LIBLINEAR's
  // -wi: a warning, and the fit goes on; snap-train, whose -v folds may each lack
  // a rare class).
  bool ignore_absent_class_weights = false;
};

struct TrainResult {
  Model model;
  std::vector<FitResult> fits;  // one per weight row of the model, in row order
  // Per fit: the local epochs it had done before this call (from the
  // checkpoint); fits[k].epochs counts them too.
  std::vector<int> resumed_epochs;
  // Which solver trained the problems, on which device, and why (plan_solver;
  // every problem of one call has the same).
  SolverPlan plan;
  // The class_weight labels left out (TrainParameters::ignore_absent_class_weights).
  std::vector<double> ignored_class_weights;
};

// The solver parameters every problem of train() starts from: the fields
// snapml/parameters.h marks `copied`, the intercept (a penalised intercept of
// value 0 without one) and max_iter; the multinomial loss asks for the primal
// solver. train() sets each problem's labels and class weights on top.
SolverParameters problem_parameters(const TrainParameters& parameters);

// Which solver trains these parameters' problems, on which device, and why
// (plan_solver on problem_parameters; Python's `_core.plan`), asked before any
// data is seen: the multinomial loss as for more than two classes (two train
// the logistic loss by the solver asked for; TrainResult::plan says what
// trained). Throws as plan_solver does for a problem no solver takes.
SolverPlan plan(const TrainParameters& parameters);

// Removes this process's checkpoint file of `parameters.checkpoint` (none: a
// no-op), after a fit whose model is safe.
void remove_checkpoint(const TrainParameters& parameters, const Communicator& communicator);

// From any chunk source, on one process (LocalCommunicator) or as one CoCoA+
// rank of `communicator` (the source holds this rank's rows). Classes, counts and
// the feature count are agreed over all ranks; every rank returns the same model.
//
// One-vs-rest problems run side by side in one process with a resident source on
// the CPU: with T threads and P problems, min(P, T) problems at a time, each with
// max(1, T / min(P, T)) threads. With at least as many problems as threads every
// problem runs on one thread, so its result does not depend on T (and is
// bit-for-bit reproducible for a seed). Otherwise (several ranks, a streamed
// source, the GPU) they run one after another, each with every thread. on_epoch
// may then be called from several threads at once; the calling thread is always
// one of them. When one problem fails, the others stop within an epoch and the
// failure is rethrown.
TrainResult train(ChunkSource& source, Communicator& communicator, const TrainParameters& parameters);

// In memory: train(InMemorySource(data), LocalCommunicator, parameters).
TrainResult train(const Dataset& data, const TrainParameters& parameters);

}  // namespace snapml
