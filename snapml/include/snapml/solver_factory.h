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

#include <memory>
#include <vector>

#include "snapml/solver.h"

namespace snapml {

// Builds the solvers of the problems of one train() call (one-vs-rest classes, a
// regularisation path) over the same rows. A backend keeps here what outlives one
// problem: the GPU session keeps its devices' resources and the rows uploaded to
// them, so a K-class GPU fit uploads the data once. A solver may share the
// session's state and stays valid after the session is gone. make() may be called
// from several threads at once only by a CPU session.
class SolverSession {
 public:
  virtual ~SolverSession() = default;
  virtual std::unique_ptr<Solver> make(const SolverParameters& parameters) = 0;
};

// The GPU session for `device_ids` (one CoCoA+ worker per entry; empty: device
// 0). Throws Unsupported when a device is not visible.
using GpuSessionFactory = std::unique_ptr<SolverSession> (*)(const std::vector<int>& device_ids);

// Whether this program can build the GPU solver: a CUDA build whose plugin loads
// (it may still find no device). Loads the plugin.
bool has_gpu_backend();

// The session's make(parameters): penalty L2 with solver dual, the CPU SDCA
// solver, or with `use_gpu` the GPU solver on `device_ids` (ignored without
// use_gpu, as Snap ML does). Solver primal: the Newton solver, its products on
// the CPU, or with use_gpu on the GPUs of `device_ids` (the GPU session's
// make_tron_gpu_solver, cuda/include/snapml/cuda/tron_gpu.h). Solver auto: on the
// CPU, a solver that looks at the data in fit() and hands the problem to the
// Newton solver when auto_picks_primal says so, else to SDCA; with use_gpu, the
// GPU SDCA solver, or the GPU Newton solver for a problem only the primal solver
// trains (penalty none, a free intercept). Penalty L1 (and the elastic net):
// newGLMNET for the losses glmnet_supports, else (and with solver cd) the CPU
// primal coordinate descent solver; with use_gpu
// throws Unsupported ("the L1 solver is CPU-only": the GPU solver is SDCA, L2
// only). With use_gpu and no GPU backend throws Unsupported: in a CPU-only build
// "this build of snapml has no CUDA backend; rebuild with -DSNAPML_CUDA=ON (nvcc
// on the PATH)", in a CUDA build the plugin loader's reason.
std::unique_ptr<SolverSession> make_solver_session(bool use_gpu, const std::vector<int>& device_ids);

// Solver auto's rule (provisional, from LIBLINEAR's experience that dual
// coordinate ascent slows down as C grows while Newton's iterations hardly
// change; to be measured, docs/benchmarks/primal.md): the primal solver when the
// problem has no dual solver (penalty none, a free intercept) or when
// `largest_cost_norm` = max_i C_i ||x_i||^2 (the intercept's value in the norm)
// exceeds kAutoPrimalThreshold, and the loss has primal derivatives.
inline constexpr double kAutoPrimalThreshold = 100.0;
bool auto_picks_primal(const SolverParameters& parameters, double largest_cost_norm);

// One problem's solver, from a session of its own.
std::unique_ptr<Solver> make_solver(const SolverParameters& parameters, bool use_gpu,
                                    const std::vector<int>& device_ids);

}  // namespace snapml
