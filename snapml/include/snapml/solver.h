// The solver seam: fit a linear model to the rows of a ChunkSource.
//
// A solver sees one binary (or regression) problem: the caller maps labels to
// +-1 through `positive_label` and sets per-class costs; one-vs-rest and label
// handling live in train.h. The same call trains on one process (a
// LocalCommunicator) or as one of K CoCoA+ workers (each rank's source holds its
// row partition). docs/algorithms.md states the maths.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/losses/dispatch.h"
#include "snapml/penalty.h"
#include "snapml/thread_updates.h"

namespace snapml {

struct EpochRecord;
struct SolverState;

// Which algorithm solves an L2 (or unpenalised) problem: dual coordinate ascent
// (SDCA on CPU threads; the GPU dual solver is built but not chosen by
// plan_solver), the primal Newton method (trust region, L-BFGS or Cholesky steps;
// its products on CPU threads or GPUs: snapml/src/primal/primal_newton_solver.cpp),
// or `Auto`, which picks per problem (solver_factory.h, plan_solver).
// Penalty L1 (and elastic net) trains by newGLMNET for the logistic and squared
// losses and by primal coordinate descent for the squared hinge, whatever the
// choice among those three; `CoordinateDescent` asks for plain coordinate descent
// (penalty L1 only, l1_ratio 1: the older solver, kept for comparisons).
enum class SolverChoice { Dual, Primal, Auto, CoordinateDescent };

// "dual" / "primal" / "auto" / "cd", and the inverse (InvalidArgument naming the choices).
const char* solver_choice_name(SolverChoice choice);
SolverChoice solver_choice_from_name(const std::string& name);

// How the primal solver (snapml/src/primal/primal_newton_solver.cpp) steps: the trust-region Newton
// method, limited-memory BFGS with a line search that costs no pass over the
// data (snapml/src/primal/quasi_newton.h), or Newton steps solved by a Cholesky
// factorisation of the whole Hessian (snapml/src/primal/newton_direct.h; a scalar loss).
// Auto: L-BFGS for the multinomial loss, whose Newton iterations the trust region
// keeps short at raw-count scale (docs/algorithms.md, "Multinomial"); Cholesky
// for a penalised scalar loss whose Hessian is small and cheap to form
// (detail::direct_newton_pays), the trust region otherwise. LineSearch: Newton's
// direction by the same truncated CG with no radius, its length by the line
// search that reads no data (LIBLINEAR >= 2.40's Newton method; Galli & Lin, "A
// study on truncated Newton methods for linear classification", IEEE TNNLS
// 2021); a penalised problem only (H positive definite). Solver auto takes it
// for the Newton solver it hands over to from SDCA's point (solver_factory.cpp).
enum class PrimalMethod { Auto, TrustRegion, Lbfgs, Cholesky, LineSearch };

struct SolverParameters {
  LossKind loss = LossKind::Logistic;
  // L2: 0.5 ||w||^2; None: no regulariser (primal solver only; docs/algorithms.md).
  Penalty penalty = Penalty::L2;
  // Penalty L1 only: the elastic net l1_ratio ||w||_1 + (1 - l1_ratio)/2 ||w||^2
  // (scikit-learn's parameterisation); 1: the pure L1 penalty. Below 1 needs a loss
  // glmnet_supports (newGLMNET).
  double l1_ratio = 1.0;
  SolverChoice solver = SolverChoice::Dual;
  PrimalMethod primal_method = PrimalMethod::Auto;  // the primal solver only
  // Whether the intercept's weight is in the penalty (LIBLINEAR's -B, and the
  // dual solvers' only option) or free (scikit-learn's default; primal solver only).
  bool penalise_intercept = true;
  double C = 1.0;
  // Classification: a row is +1 when its label equals positive_label, else -1, and
  // its cost is C * class_weight_{positive,negative} * sample_weight (LIBLINEAR's
  // Cp, Cn). Regression uses the labels as they are and class_weight_positive.
  double positive_label = 1.0;
  double class_weight_positive = 1.0;
  double class_weight_negative = 1.0;
  // The multinomial loss (one weight vector per class, trained jointly): the
  // sorted classes, and each class's weight multiplying C; a row's cost is C *
  // class_weights[its class] * sample_weight. Empty for the other losses.
  std::vector<double> classes;
  std::vector<double> class_weights;
  double epsilon = 0.0;            // squared loss: the insensitive zone p
  double intercept_scaling = 0.0;  // value of the constant feature; 0: no intercept
  // Stop when P(w) - D(alpha) <= tol * P(w), checked after every round, or after
  // max_epochs local epochs. Penalty L1: when the epoch's summed minimum-norm
  // sub-gradient is <= tol times the first epoch's times max(min(#pos, #neg), 1) / l
  // for classification (LIBLINEAR's rule, its scaling of -e included).
  double tol = 1e-3;
  int max_epochs = 1000;
  // CoCoA+: local epochs per communication round (H). Ignored with one rank.
  int local_epochs = 1;
  // CoCoA+'s sigma': false keeps the paper's safe sigma' = K; true (default)
  // adapts it to the measured overlap of the ranks' changes (snapml/impl/cocoa.h).
  bool adaptive_sigma = true;
  // Hinge and squared hinge: leave out of the passes the rows whose dual variable
  // is likely to stay at its bound (LIBLINEAR's shrinking; docs/algorithms.md). Used
  // with a resident source on one rank; the gap over all rows still decides.
  bool shrinking = true;
  int threads = 1;  // 0: all OpenMP threads
  // Dual solver with several threads: one shared w or a replica per thread
  // (snapml/thread_updates.h).
  ThreadUpdates thread_updates = ThreadUpdates::Auto;
  // GPU solver only: device memory budget per device in bytes for the data (0: no
  // budget); larger data streams host-to-device chunk by chunk.
  std::uint64_t max_gpu_memory = 0;
  std::uint64_t seed = 0;
  // The dual solvers: a FitResult::history record after every epoch (as snapml
  // 1.x's full training history has), not only at the schedule's certificates
  // below. The records between those are `observed`: the stopping rule and the
  // divergence guard read the schedule's alone, so the CPU fit takes the same
  // path and stops where it would have (the GPU backend's certificate also lowers
  // the hinge's smoothing and keeps the best dual point: cuda/src/dual/
  // hybrid_backend.h, so there its path may change, every record still exact).
  // Each epoch costs one more pass over the rows. L1 coordinate descent likewise
  // (without it: after the first and last epochs and once the epochs between have
  // read ten times a certificate's non-zeros, cd_l1_cpu.cpp). The other solvers
  // record every iteration anyway.
  bool certify_every_epoch = false;
  // Called with each record as it is added to FitResult::history (progress
  // displays); empty: no call. The dual solvers certify after the epochs
  // certificate_schedule.h names (every epoch until the gap's rate predicts more
  // than two to go) and, in a shrunk fit, once the epochs since the last one have
  // visited as many rows as the data holds (docs/algorithms.md); after every
  // epoch with certify_every_epoch. on_progress follows every round.
  std::function<void(const EpochRecord&)> on_epoch;
  // Checkpoint and resume (snapml/checkpoint.h). `first_epoch`: the local epochs
  // (Newton iterations) a resumed fit has done already; the fit's count, its
  // max_epochs budget and the logistic step's schedule go on from there.
  // `on_progress`, when set, is called between rounds (after every round of the
  // dual solvers, every accepted step of the Newton solver, every epoch of L1
  // coordinate descent) with the epochs done
  // and a function that gives the state a resumed fit starts from: the dual
  // solvers' alpha (w = w(alpha) is recomputed on resume, so any saved alpha is
  // a valid start), the Newton solver's weights. Calling it costs a copy; the
  // checkpoint calls it only when a save is due.
  int first_epoch = 0;
  std::function<void(int epochs, const std::function<SolverState()>& snapshot)> on_progress;
};

// One duality-gap certificate.
struct EpochRecord {
  int epoch = 0;         // local epochs done so far
  double seconds = 0.0;  // wall time since fit() began
  double primal = 0.0;
  double dual = 0.0;
  double gap = 0.0;  // primal - dual, >= 0 up to rounding
  // The primal Newton solver: ||grad P(w)||; 0 from the other solvers. With a free
  // intercept or no penalty it has no dual point: dual and gap are NaN and the
  // fit stops on gradient_norm <= tol * ||grad P(0)|| (docs/algorithms.md).
  double gradient_norm = 0.0;
  // This certificate said the fit diverged (snapml/src/dual/divergence_guard.h) and the
  // solver lowered its concurrency (the GPU's rows in flight) to go on.
  bool concurrency_reduced = false;
  // certify_every_epoch's record between the schedule's certificates: exact, but
  // the fit did not check tol at it (a gap below tol here does not end the fit).
  bool observed = false;
};

struct FitResult {
  int epochs = 0;
  bool converged = false;  // the duality gap met tol before max_epochs
  // Coordinate steps tried over all epochs: epochs x rows, fewer where shrinking
  // left rows out. Counted by the CPU SDCA solver; 0 from the others.
  std::int64_t rows_visited = 0;
  // The CPU SDCA solver with several threads: the replicas of w they stepped on
  // (one per thread; snapml/thread_updates.h), 0 when they shared one w.
  int replicas = 0;
  // Where Auto sized the replicas' team (thread_updates.h, replica_team): the rows'
  // overlap rho it was sized by (snapml/src/dual/threads/row_overlap.h); else -1.
  double row_overlap = -1.0;
  // CoCoA+ rounds (merges of the workers' changes; snapml/impl/cocoa_round.h) with
  // several workers, 0 with one.
  int rounds = 0;
  // The dual solver with a non-smooth loss: the weights and alpha returned are
  // the average of the iterates (cocoa_round.h, IterateAverage), whose duality
  // gap was the smaller at the last certificate.
  bool averaged = false;
  // The dual solver with a smooth loss: the epoch of the certified iterate
  // returned where it is not the last one (its primal objective the smallest
  // certified; cocoa_round.h, "The best certified iterate"); 0 otherwise.
  int best_epoch = 0;
  // Times the divergence guard made the solver lower its concurrency (halve the
  // GPU's rows in flight); each is marked in its record (concurrency_reduced).
  int concurrency_reductions = 0;
  // The primal solver: passes over this rank's rows its products made (a
  // gradient is two, X w and X^T d; snapml/src/primal/counted_operations.h); 0 from the
  // others.
  std::int64_t data_passes = 0;
  std::vector<EpochRecord> history;
};

// In/out: the weights and dual variables. Warm start: non-empty `alpha` (one per
// row of this rank's source) is used as given, clipped to its feasible interval,
// and w is recomputed from it so that w = w(alpha) holds exactly; otherwise
// non-empty `weights` start from the dual point the optimality conditions pair
// with them (alpha_i from the margin w.x_i, then w = w(alpha)); otherwise a cold
// start. On return `weights` has n_features + 1 entries (the last one the
// intercept's weight, 0 without intercept) and `alpha` one per row. The
// multinomial loss (K classes): `weights` is K rows of n_features + 1, class by
// class, and `alpha` K per row (row-major); it warm-starts from weights only.
struct SolverState {
  std::vector<double> weights;
  std::vector<double> alpha;
};

// Where a fit starts, by the rule above.
enum class StartFrom { Alpha, Weights, Cold };

// Shared by the L2 solvers (CPU and GPU): checks `state` against this rank's
// `n_rows` and the global `n_features` (InvalidArgument naming the fix), pads
// given weights to n_features + 1, and says where the fit starts.
StartFrom warm_start_from(SolverState& state, std::int64_t n_rows, std::int32_t n_features);

class Solver {
 public:
  virtual ~Solver() = default;
  virtual FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) = 0;
};

// Stochastic dual coordinate ascent on CPU threads (snapml/src/dual/sdca_cpu.cpp).
std::unique_ptr<Solver> make_sdca_cpu_solver(const SolverParameters& parameters);

// Primal coordinate descent for penalty L1 with the logistic, squared hinge or
// squared (lasso) loss, on one process and one thread (snapml/src/l1/cd_l1_cpu.cpp).
// Stops on LIBLINEAR's minimum-norm sub-gradient rule; EpochRecord's dual and gap
// are those of the dual-scaling point (docs/algorithms.md). Throws InvalidArgument
// for another loss or penalty, and from fit() with communicator.size() > 1.
std::unique_ptr<Solver> make_cd_l1_cpu_solver(const SolverParameters& parameters);
// Whether make_cd_l1_cpu_solver solves the loss (validate() refuses penalty l1
// with another).
bool l1_penalty_supports(LossKind kind);

// newGLMNET (Yuan, Ho & Lin 2012; LIBLINEAR's -s 6) for penalty L1 and the elastic
// net (l1_ratio) with the logistic or squared loss, on one process
// (snapml/src/l1/glmnet_cpu.cpp): Newton iterations whose quadratic model is solved
// by coordinate descent, then a line search. Same stopping rule and certificate
// as make_cd_l1_cpu_solver. Throws InvalidArgument for another loss or penalty,
// and from fit() with communicator.size() > 1.
std::unique_ptr<Solver> make_glmnet_cpu_solver(const SolverParameters& parameters);
bool glmnet_supports(LossKind kind);

// The primal trust-region Newton solver (Lin, Weng & Keerthi 2008; LIBLINEAR's
// -s 0, 2, 11) on CPU threads, on one process or as one of K ranks, each holding
// its rows: every gradient and Hessian-vector product is summed over the ranks,
// so K ranks take the single-process iterates (snapml/src/primal/primal_newton_solver.cpp). Penalty L2
// (the intercept penalised or free) or none; the losses loss_is_primal accepts.
std::unique_ptr<Solver> make_tron_cpu_solver(const SolverParameters& parameters);
// Whether make_tron_cpu_solver solves the loss (validate() refuses another with
// solver primal, penalty none or a free intercept).
bool primal_solver_supports(LossKind kind);

// The largest cost a row may carry, C times its class weight, and the largest
// intercept_scaling: 1e100, so that their squares stay at most 1e200 of the
// double range's 1.8e308. The fit's arithmetic holds C * sum_i loss_i (the
// primal objective) and, for separable data, ||w||^2 ~ (C n max||x_i||)^2 (the
// dual bound alpha_i <= C, w = sum alpha_i y_i x_i); the intercept's column adds
// intercept_scaling^2 to every ||x_i||^2 and to the row's SDCA step denominator.
// Past 1e154 these overflow on any data (C = 1e308 gave a garbage model,
// intercept_scaling 1e300 an all-zero one); 1e100 leaves a factor 1e108 for
// n^2 max||x_i||^2 and the losses. Larger values regularise less than double
// precision can tell from none anyway.
inline constexpr double kMaxCost = 1e100;
inline constexpr double kMaxInterceptScaling = 1e100;

// Throws InvalidArgument naming the bad parameter, its valid range and the fix.
void validate(const SolverParameters& parameters);

}  // namespace snapml
