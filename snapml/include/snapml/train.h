// Training entry point: labels to binary problems, class weights, one-vs-rest.
//
// Any two distinct labels make a binary problem whose positive class is the
// larger label (scikit-learn's classes_[1]); more than two make one binary
// problem per class against the rest; regression (the squared loss) uses the
// labels as they are. Each problem is solved by the CPU SDCA solver (solver.h), or
// the GPU one with use_gpu (solver_factory.h), or with penalty L1 by newGLMNET
// (logistic, squared) or the CPU coordinate descent solver (squared hinge), or with solver primal (or auto's choice) by the CPU
// trust-region Newton solver.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/dataset.h"
#include "snapml/model.h"
#include "snapml/solver.h"

namespace snapml {

struct TrainParameters {
  LossKind loss = LossKind::Logistic;
  // L2 (SDCA) or L1 (primal coordinate descent, CPU and one process only; not
  // with the hinge loss). With L1, tol is LIBLINEAR's relative sub-gradient rule
  // and the history's gap that of the dual-scaling point (docs/algorithms.md).
  // None: no regulariser (the primal Newton solver; docs/algorithms.md).
  Penalty penalty = Penalty::L2;
  // Penalty L1: the elastic net's mix (SolverParameters::l1_ratio); 1: pure L1.
  double l1_ratio = 1.0;
  // L2 and none: dual coordinate ascent, the primal Newton solver, or auto
  // (solver_factory.h, auto_choice). Dual keeps the behaviour of callers
  // that do not choose.
  SolverChoice solver = SolverChoice::Dual;
  double C = 1.0;
  double tol = 1e-3;   // relative duality gap: stop when P - D <= tol * P
  int max_iter = 1000;  // epochs
  bool fit_intercept = true;
  double intercept_scaling = 1.0;  // LIBLINEAR's -B: the constant feature's value
  // Whether the intercept is in the penalty (LIBLINEAR's convention, the dual
  // solvers') or free (scikit-learn's; trains by the primal solver).
  bool penalise_intercept = true;
  // Per-label weights multiplying C (absent labels weigh 1), or scikit-learn's
  // "balanced": n_samples / (n_classes * count of the class). In one-vs-rest the
  // weight applies to the class's own positive problem and the rest weigh 1, as
  // LIBLINEAR's -wi does.
  std::map<double, double> class_weight;
  bool balanced_class_weight = false;
  double epsilon = 0.0;  // squared loss: insensitive zone (LIBLINEAR's -p)
  int threads = 0;       // 0: every OpenMP thread
  std::uint64_t seed = 0;
  int local_epochs = 1;  // CoCoA+ local epochs per round with several ranks
  bool adaptive_sigma = true;  // CoCoA+ sigma' adapted (snapml/impl/cocoa.h) or fixed at K
  bool shrinking = true;       // hinge and squared hinge: SolverParameters::shrinking
  ThreadUpdates thread_updates = ThreadUpdates::Auto;  // SolverParameters::thread_updates
  // Start from this model's weights (same loss, classes and at most as many
  // features); nullptr for a cold start. Must outlive the train() call.
  const Model* warm_start = nullptr;
  // GPU SDCA (TPA-SCD) instead of the CPU solver; device_ids lists the CUDA
  // devices, one CoCoA+ partition each (empty: device 0). A build without CUDA
  // or a machine without a visible GPU throws snapml::Unsupported / the
  // require_gpu message instead of running on the CPU.
  bool use_gpu = false;
  std::vector<int> device_ids;
  // Host memory budget in bytes (0: the memory the machine has available). The
  // fit's per-feature state must fit it, or train() throws FeatureMemoryError
  // before allocating any (snapml/feature_memory.h).
  std::uint64_t max_memory = 0;
  // GPU memory budget per device in bytes for the data (0: no budget). Data that
  // does not fit streams from host memory chunk by chunk (docs/out-of-core.md).
  std::uint64_t max_gpu_memory = 0;
  // Called with every record of every problem (SolverParameters::on_epoch) with the
  // problem's index (its row in the model) and the record, e.g. for a progress display. One-vs-rest
  // problems run in parallel, so calls may come from several threads at once.
  std::function<void(int problem, const EpochRecord& record)> on_epoch;
  // Called between rounds of every problem (after every epoch of the dual solvers,
  // every accepted Newton step; SolverParameters::on_progress) with the problem's
  // index. It may throw to stop the fit: Python's Ctrl-C check is here, since
  // certificates (on_epoch) come only after the epochs certificate_schedule.h names.
  // From several threads at once, like on_epoch.
  std::function<void(int problem)> on_round;
  // Checkpoint and resume (snapml/checkpoint.h): when set, train() resumes from
  // this file if it exists (same data and fit-defining options, or
  // InvalidArgument naming what differs; a damaged file is an InputError) and
  // saves the state to it atomically whenever checkpoint_interval seconds have
  // passed since the last save (0: after every round), and at most a tenth of
  // the fit's time (checkpoint_save_due). Refused under several
  // ranks (not yet built). train() leaves the file; the caller
  // removes it once the model is safe (remove_checkpoint). Penalty l1 (its
  // solvers save no state) is refused.
  std::string checkpoint;
  double checkpoint_interval = 60.0;
};

struct TrainResult {
  Model model;
  std::vector<FitResult> fits;  // one per weight row of the model, in row order
  // Per fit: the local epochs it had done before this call (from the
  // checkpoint); fits[k].epochs counts them too.
  std::vector<int> resumed_epochs;
};

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
