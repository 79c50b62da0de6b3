// The CoCoA+ round, written once for every dual solver (CPU threads, GPUs).
//
// A round (Ma, Smith, Jaggi et al., ICML 2015, Algorithm 1 with the adaptive rule of
// snapml/impl/cocoa.h) over K workers in all, each owning a row partition and a local
// copy v_k of w:
//   v_k = w, alpha at the round's start kept;
//   H local epochs on every worker (a step sees margin v_k.x_i and curvature
//     sigma' ||x_i||^2 and adds sigma' delta coefficient(y_i) x_i to v_k);
//   w += gamma * allreduce_sum(sum_k dw_k),  dw_k = (v_k - w) / sigma';
//   alpha = alpha_start + gamma (alpha - alpha_start) when gamma < 1;
// or, where the backend asks for several rounds an epoch, the same round on each
// share of one epoch's rows in turn (one permutation cut into parts);
// then, after the epochs that certificate_schedule.h names, the certificate: the
// partial sums of sum_i C_i loss and of the dual values reduced over ranks,
// combined with ||w||^2 (objectives.h). With K = 1, v is w itself and a round is
// one plain SDCA epoch.
//
// Why once: the round is what keeps w = w(alpha) and the dual non-decreasing
// (CoCoA+'s Lemma 3 with sigma' >= gamma rho), so the duality gap stays a
// certificate; a second copy of it is a second place for that to break. The
// backends only know how to run epochs on their rows and how to move their copy
// of w and alpha; the driver decides sigma', gamma, when to reduce and when to
// certify.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "snapml/communicator.h"
#include "snapml/impl/cocoa.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml {

// Which rows an epoch call visits: share `part` of `parts` equal shares of the
// epoch's one permutation (the whole epoch when parts is 1).
struct EpochShare {
  int part = 0;
  int parts = 1;
};

// One process's share of a CoCoA+ fit: its workers (one for the CPU solver's
// threads, one per device for the GPU solver), their rows, dual variables and
// copies of w. `weight_count()` is n_features + 1 (the intercept's weight last).
class RoundBackend {
 public:
  virtual ~RoundBackend() = default;

  // Rows of this process: a fit takes its certificate once the epochs since the
  // last one have visited as many (every epoch visits all of them unless the CPU
  // solver's shrinking leaves some out).
  virtual std::int64_t n_rows() const = 0;
  virtual std::size_t weight_count() const = 0;

  // Only with several workers in all: remember alpha at the round's start
  // (scale_alpha goes back towards it); every worker's v is w already.
  virtual void begin_round() = 0;
  // How many rounds an epoch should take: each round's workers then visit one
  // share of the epoch's rows. The same on every rank (each round is one
  // allreduce). The driver asks for shares only with several workers and one
  // local epoch a round; otherwise every call is a whole epoch.
  virtual int rounds_per_epoch() const { return 1; }
  // One local epoch of every worker of this process with CoCoA+'s sigma' and the
  // logistic step's Newton tolerance, or the share of it the driver names (the
  // shares of one epoch visit every row once); returns the rows it visited.
  virtual std::int64_t epoch(int epoch_index, EpochShare share, double sigma, double newton_tolerance) = 0;
  // Only with several workers: adds sum_k dw_k over this process's workers into
  // change[0, weight_count()) and sum_k ||dw_k||^2 into change[weight_count()].
  virtual void local_change(double sigma, double* change) = 0;
  // w += gamma * change[0, weight_count()) (the sum over all workers); every
  // worker's v becomes the new w.
  virtual void apply_change(double gamma, const double* change) = 0;
  // A backend whose workers can be merged without the dense change vector (the
  // CPU replicas, over the columns the round touched: snapml/src/dual/threads/
  // replica_changes.h) says so; on one process the driver then calls sum_change
  // (the round's two sums, as local_change's) and apply_summed(gamma) instead of
  // local_change and apply_change.
  virtual bool merges_in_place() const { return false; }
  virtual RoundSums sum_change(double /*sigma*/) { return {}; }
  virtual void apply_summed(double /*gamma*/) {}
  // A backend whose workers are one process's threads merging in place may run
  // an epoch's `parts` rounds in one parallel region (the CPU replicas past two
  // threads: snapml/src/dual/sdca_team_rounds.cpp), each round the one below
  // (begin_round, the share's steps, sum_change, `aggregation.accept`,
  // apply_summed, scale_alpha) with the team's barriers between its steps
  // instead of a fork and a join each, and each round's rows dealt to the
  // threads. It advances `aggregation` round by round and returns the rows
  // visited.
  virtual bool runs_rounds_in_team() const { return false; }
  virtual std::int64_t epoch_in_team(int /*epoch_index*/, int /*parts*/, CocoaAggregation& /*aggregation*/,
                                     double /*newton_tolerance*/) {
    return 0;
  }
  // alpha = alpha_start + gamma (alpha - alpha_start), gamma < 1: keeps
  // w = w(alpha) with w's change scaled alike, and alpha feasible (a convex
  // combination of two feasible points).
  virtual void scale_alpha(double gamma) = 0;

  // This process's partial sums at the current w (one pass over its rows; the
  // epoch that follows is `next_epoch`), and ||w||^2 (w is the same on every rank).
  virtual ObjectiveSums objective_sums(int next_epoch) = 0;
  // After a certificate of the fit's path (not certify_every_epoch's records, so
  // that those change nothing): a backend whose certificate measured a better
  // point than the iterate, with the same alpha, moves the iterate there (a free
  // intercept: the intercept the certificate found for w; free_intercept.h). The
  // default: nothing.
  virtual void keep_certified() {}
  virtual double squared_weight_norm() = 0;
  // A copy of this process's alpha, one per row in the source's order: what a
  // checkpoint saves (SolverParameters::on_progress).
  virtual std::vector<double> copy_alpha() = 0;
  // The weights as the fit would return them (n_features + 1; a free intercept's
  // b / B last, which alpha alone does not give: free_intercept.h), for a fit that
  // goes on from this round (a resumed one, solver auto's hand-over to the Newton
  // solver). Empty where the backend does not give them.
  virtual std::vector<double> copy_weights() { return {}; }

  // The averaged iterate of a non-smooth loss (IterateAverage below). A backend
  // that keeps one holds a second alpha and w: (alpha_avg, w_avg) =
  // (1 - weight) (alpha_avg, w_avg) + weight (alpha, w), weight 1 starting it, and
  // swap_average() exchanges the two pairs, so that objective_sums and
  // squared_weight_norm measure the average and a fit can end on it. One that does
  // not (the default) certifies its last iterate only.
  virtual bool keeps_average() const { return false; }
  virtual void add_to_average(double /*weight*/) {}
  virtual void swap_average() {}

  // The best certified iterate of a smooth loss ("The best certified iterate"
  // below). A backend that keeps one copies its (alpha, w) and whatever else
  // the model is made of (a free intercept's offset) at keep_best(), and at
  // end_on_best() makes that copy its (alpha, w) for the fit to return. One
  // that does not (the default) returns its last iterate.
  virtual bool keeps_best() const { return false; }
  virtual void keep_best() {}
  virtual void end_on_best() {}

  // The divergence guard's remedy (snapml/src/dual/divergence_guard.h): a backend whose
  // workers step on stale margins with a bound it controls (the GPU's rows in
  // flight) lowers that bound, halving it, and returns true; the fit goes on from
  // its current, feasible point. False where nothing is left to lower (the
  // default): the fit then throws FitDiverged with divergence_remedy() in its
  // message, never returning the diverged weights.
  virtual bool reduce_concurrency() { return false; }
  // What to train with instead, for the FitDiverged message.
  virtual std::string divergence_remedy() const {
    return "train with fewer threads (snap-train -n 1, n_jobs=1), or by the primal Newton solver "
           "(solver='primal'; snap-train -s 0, 2 or 11)";
  }
};

// Averaging of a non-smooth loss's dual iterates (the hinge: losses/common.h,
// is_non_smooth). Its coordinate steps converge sublinearly and the last iterate
// wanders around the optimum: on a9a (hinge, C = 1, one thread) its primal
// objective after 42 epochs was 11591 and after 63 11465 (the optimum 11434),
// its test accuracy 84.61 % and 84.87 %. SDCA's guarantee for Lipschitz losses is
// for an average of the iterates (Shalev-Shwartz & Zhang, JMLR 2013, Theorem 2);
// polynomial-decay averaging (Shamir & Zhang, ICML 2013) keeps one running
// average that weighs the recent iterates most: after round t,
//   average = (1 - c_t) average + c_t iterate,  c_t = (kDecay + 1) / (t + kDecay),
// which on a9a gave 11450 and 11440 after 42 and 63 epochs (85.0 %, 84.9 %).
// Averaging alpha and w alike keeps w_avg = w(alpha_avg) (linear) with alpha_avg
// feasible (a convex combination), so the duality gap certifies the average as
// it does the iterate; the fit certifies both and ends on the smaller gap.
struct IterateAverage {
  static constexpr double kDecay = 3.0;
  // The average's certificate is a second gap pass, taken where it can end the
  // fit: the last epoch, or an iterate's gap within this many times the target
  // (the average's primal never takes the gap below P* - D, on a9a about half
  // of the iterate's).
  static constexpr double kCertifyWithin = 2.0;
  // The weight of the t-th averaged round's iterate (t = 1, 2, ...): 1 first.
  static double weight(int t) { return (kDecay + 1.0) / (static_cast<double>(t) + kDecay); }
};

// The best certified iterate. A smooth loss's dual rises from epoch to epoch,
// but the primal objective of w(alpha) need not fall: where one column carries
// most of every row's norm (a large intercept scaling, -B 100) the coordinate
// steps trade along it and P(w) swings from epoch to epoch (3,000 rows of a9a,
// squared hinge, -B 100: between 1,222 and 6,122 over the last 15 of 1,000
// epochs, the optimum 1,207). A fit that stops there returned whichever iterate
// the last epoch left. So the driver certifies the fit by the smallest primal
// certified so far against the largest dual (both bound P* from their sides),
// and the backend keeps the iterate of that smallest primal: the fit ends on
// it where it is not the last (FitResult::best_epoch), at max_epochs or where the
// pair meets tol first. Where the primal falls at every certificate, as it does
// on most data, the last iterate is the best and the fit is the one it was. The
// copy is taken at a certificate that leaves the fit going on, never inside an
// epoch: a row-sized copy of alpha (8 bytes a row, within the resident state a
// memory budget counts: docs/out-of-core.md) and one of w (the GPU solver: its
// v, on the host). A non-smooth loss keeps the average of its iterates in that
// room instead (IterateAverage).

// For RoundBackend::local_change: adds dw = (v - w) / sigma' (`size` entries) into
// change[0, size) and returns ||dw||^2 (which local_change adds into change[size];
// a backend may take w's columns in parts).
double add_local_change(const double* v, const double* w, std::size_t size, double sigma, double* change);

// Runs rounds until the duality gap meets parameters.tol or parameters.max_epochs
// local epochs are done (counting from parameters.first_epoch). A certificate
// that says the fit diverges (divergence_guard.h) makes every rank's backend
// reduce_concurrency(), and where one cannot, throws FitDiverged. Calls
// parameters.on_progress after every round. `workers`: K over all ranks and devices. `started`: when
// fit() began (the records' seconds).
FitResult run_cocoa_rounds(RoundBackend& backend, Communicator& communicator, int workers,
                           const SolverParameters& parameters, std::chrono::steady_clock::time_point started);

}  // namespace snapml
