// Which solver trains a problem: the CPU SDCA solver, the CPU L1 solver, or the
// GPU one when asked; and the session that builds them for the problems of one
// train() call.
//
// The core does not link CUDA (snapml_cuda links the core, not the other way), so
// the GPU solver reaches train() through a plugin the core loads on the first GPU
// problem (gpu_backend.h; docs/gpu.md, "Selection"). A program that cannot find or
// load it, and every program of a CPU-only build, gets snapml::Unsupported when
// asked for a GPU, saying which: never a silent run on the CPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snapml/solver.h"

namespace snapml {

// Builds the solvers of the problems of one train() call (one-vs-rest classes), or
// of several calls when the caller keeps it (TrainParameters::session: a
// regularisation path, the C values of a -C search, Python's warm_start and
// LogisticRegressionCV), over the same rows. A backend keeps here what outlives
// one problem, as faiss's GpuResources and cuML's handle do: the GPU session keeps
// its devices' resources and the rows uploaded to them, keyed by the source's
// identity() (chunk_source.h), so a K-class GPU fit, or a path of fits over one
// source, uploads the data once. A solver may share the session's state and stays
// valid after the session is gone. make() may be called from several threads at
// once only by a CPU session.
class SolverSession {
 public:
  virtual ~SolverSession() = default;
  virtual std::unique_ptr<Solver> make(const SolverParameters& parameters) = 0;
  // How many times a solver of this session uploaded rows to a device (0 on the
  // CPU): the tests count them.
  virtual std::int64_t row_uploads() const { return 0; }
  // Whether the session builds the solvers of a train() call with `use_gpu` on
  // `device_ids` (make_solver_session's; train() refuses a session made for other
  // devices).
  virtual bool serves(bool use_gpu, const std::vector<int>& device_ids) const {
    (void)use_gpu;
    (void)device_ids;
    return true;
  }
};

// The GPU session for `device_ids` (one CoCoA+ worker per entry; empty: device
// 0), keeping the rows of up to `row_sets` sources on the devices (at least 1).
// Throws Unsupported when a device is not visible.
using GpuSessionFactory = std::unique_ptr<SolverSession> (*)(const std::vector<int>& device_ids, int row_sets);

// What a caller's session keeps.
struct SessionOptions {
  // GPU: how many sources' rows stay on the devices, the least recently used
  // freed first (1: one copy of the data; a -C search over k folds keeps k, one
  // per fold's training rows). A set the device cannot hold beside the others
  // frees them and uploads again.
  int row_sets = 1;
  // The GPU session's factory; null: the plugin's (gpu_backend.h). A test gives
  // the one it links (the emulated runtime's).
  GpuSessionFactory gpu_factory = nullptr;
};

// Whether this program can build the GPU solver: a CUDA build whose plugin loads
// (it may still find no device). Loads the plugin.
bool has_gpu_backend();

// Which solver trains a problem, on which device, and why: the one place that
// decides (the session's make() builds what it says; Python shows it instead of
// deciding again).
//
// On the CPU: penalty L2 with solver dual, SDCA; solver primal, the Newton
// solver; solver auto, a solver that looks at the data in fit() and trains by
// the Newton solver or by SDCA, which may hand over to it (auto_choice below).
// Penalty L1 (and the elastic net): newGLMNET for the losses glmnet_supports,
// else (and with solver cd) primal coordinate descent.
//
// With `use_gpu` (device_ids are ignored without it, as Snap ML does): every
// smooth loss (primal_solver_supports: logistic, squared hinge, squared,
// multinomial), whatever the solver choice, trains by the Newton solver with its
// products on the GPUs (the GPU session's make_tron_gpu_solver,
// cuda/include/snapml/cuda/primal_gpu.h), on the problem asked for (the intercept
// penalised or free, penalty L2 or none). The GPU dual (SDCA) solver diverged on
// an H100 at the device's concurrency (docs/gpu.md) and stays out of the factory
// until a device run proves it: the hinge loss, which only the dual solver
// trains, is refused on the GPU (Unsupported naming the CPU solver), as is
// penalty L1 (the L1 solvers are CPU-only). Throws InvalidArgument for a
// parameter validate() refuses.
struct SolverPlan {
  enum class Algorithm { Sdca, Newton, AutoSdcaOrNewton, Glmnet, CoordinateDescentL1 };
  Algorithm algorithm = Algorithm::Sdca;
  bool gpu = false;
  std::string reason;  // why, in a sentence
};
SolverPlan plan_solver(const SolverParameters& parameters, bool use_gpu);
// "sdca", "newton", "auto" (SDCA or Newton, chosen from the data in fit()), "glmnet", "cd".
const char* algorithm_name(SolverPlan::Algorithm algorithm);

// A session whose make(parameters) builds the solver plan_solver names. With
// use_gpu and no GPU backend make() throws Unsupported: in a CPU-only build "this
// build of snapml has no CUDA backend; rebuild with -DSNAPML_CUDA=ON (nvcc on the
// PATH)", in a CUDA build the plugin loader's reason.
std::unique_ptr<SolverSession> make_solver_session(bool use_gpu, const std::vector<int>& device_ids,
                                                   const SessionOptions& options = {});

// Solver auto's rule (docs/benchmarks/cpu.md, "Auto"; measured on 2 cores). What
// the survey pass over the rows measured:
struct AutoSurvey {
  double hessian_pairs = 0.0;  // entry pairs of X^T D X (newton_direct.h)
  double entries = 0.0;        // the rows' entries, the intercept's included
  std::size_t width = 0;       // n_features + 1
  bool resident = true;        // the rows in memory (a free intercept's dual needs them)
  int ranks = 1;
};
// Primal: the Newton solver from the start, where only it trains the problem
// (penalty none, the multinomial loss, a free intercept streamed or over ranks)
// or where its Cholesky step pays (a small Hessian: exact in a few passes). Dual:
// SDCA only (the hinge). DualThenDecide: SDCA, which at each certificate from
// kAutoProbeEpochs epochs on hands the problem over to the Newton solver where
// auto_switches_to_primal says so; the Newton solver starts from the dual fit's
// weights and intercept.
enum class AutoChoice { Primal, Dual, DualThenDecide };
inline constexpr int kAutoProbeEpochs = 8;
inline constexpr double kAutoSwitchEpochs = 40.0;
AutoChoice auto_choice(const SolverParameters& parameters, const AutoSurvey& survey);
// After the probe: whether the relative gap's rate since its smallest earlier
// value predicts more than kAutoSwitchEpochs epochs to tol, or the gap has not
// fallen below that value for kAutoProbeEpochs epochs (a single rise says
// nothing: the asynchronous threads and a free intercept's multiplier steps
// make one now and then). The Newton solver is cheaper there (news20 binary:
// the dual 876 epochs to 1e-4, Newton from its 16th epoch 6 iterations).
bool auto_switches_to_primal(const std::vector<EpochRecord>& history, double tol);

// One problem's solver, from a session of its own.
std::unique_ptr<Solver> make_solver(const SolverParameters& parameters, bool use_gpu,
                                    const std::vector<int>& device_ids);

}  // namespace snapml
