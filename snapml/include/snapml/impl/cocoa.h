// CoCoA+ aggregation with a data-dependent sigma' (shared by the CPU and GPU
// solvers; docs/distributed.md "How a round works").
//
// CoCoA+ (Ma, Smith, Jaggi et al., ICML 2015) adds the K workers' changes,
// w += gamma * sum_k dw_k, and each worker solves its local subproblem with the
// quadratic term scaled by sigma'. Their Lemma 3 bounds the new dual from below
// by the workers' local subproblem values,
//
//   D(alpha + gamma * dalpha) >= (1 - gamma) D(alpha) + gamma * sum_k G_k^sigma'(dalpha_[k]),
//
// whenever  sigma' >= gamma * rho,  rho = ||sum_k dw_k||^2 / sum_k ||dw_k||^2
// (the bound's only inequality is gamma^2 ||sum_k dw_k||^2 <= gamma sigma' sum_k ||dw_k||^2;
// dw_k is w's change from worker k's rows). rho lies in [1, K] (Cauchy-Schwarz:
// K when all workers move w the same way, 1 when their rows share no feature), so
// sigma' = K with gamma = 1 is safe for every update, the paper's default, and
// several times too cautious for sparse or loosely correlated data: every local
// step is K times shorter than it needs to be.
//
// This rule keeps the guarantee while adapting sigma': the next round's sigma' is
// the last measured rho (within [1, K]). If a round's rho exceeds
// the sigma' it was solved with, the round is accepted with gamma = sigma' / rho
// (every worker scales its alpha change and w's change by gamma, which keeps
// w = w(alpha) and alpha feasible: a convex combination of two feasible points),
// so the bound above holds for every round and the dual never decreases.
// rho costs one more double in the round's allreduce (sum_k ||dw_k||^2).
// No headroom over the last rho: with 1.25 rho (the first rule) a round shortened
// now and then cost less than every round's steps 1.25 times too short. Epochs
// to 1e-4 at 16 threads on 2 cores (-s 7 -c 1 -B 1, seeds 3-6; one thread's in
// brackets), 1.25 rho against rho: w8a (22) 30-41 against 27-31, a9a (18-19)
// 24-30 against 21-27, a 200k-row click log (40) 57-58 against 51-52; the
// hinge loss on a9a (-e 1e-3) 151-160 against 138-143; two ranks neither way
// (a9a 29 / 32, w8a 20 / 17; docs/benchmarks/threads.md, "sigma' without
// headroom"). A free intercept keeps the headroom (kFreeInterceptHeadroom below).
#pragma once

#include <algorithm>

namespace snapml {

// With a free intercept (the dual's method of multipliers, free_intercept.h) the
// multiplier moves between rounds, so each round solves a slightly different
// augmented dual and the last round's rho predicts the next one's less well:
// sigma' keeps the first rule's headroom there. The 160k x 400k text-like set of
// the side by side at two threads (docs/benchmarks/cpu.md 9.6): without it the
// gap rose five-fold over the first three epochs and stalled at 4 from epoch
// 10, until Auto handed over to the Newton solver (1.0-2.1 s); with it the dual
// alone met tol at epoch 10 (0.89 s).
inline constexpr double kFreeInterceptHeadroom = 1.25;

// A round's sum_k ||dw_k||^2 and ||sum_k dw_k||^2 (rho's two sides).
struct RoundSums {
  double sum_of_squares = 0.0;
  double square_of_sum = 0.0;
};

// A row's alpha after a round accepted with gamma (CocoaAggregation::accept):
// alpha at the round's start plus gamma times the worker's change, a convex
// combination of two feasible points, which keeps w = w(alpha) once w has
// moved by gamma sum_k dw_k. The CPU's rounds (sdca_round.cpp, past two
// threads sdca_team_rounds.cpp) apply it row by row; the GPU's
// (cuda/src/dual/device_ops.cpp) as gamma alpha + (1 - gamma) start by cuBLAS.
inline double accepted_alpha(double start, double stepped, double gamma) { return start + gamma * (stepped - start); }

class CocoaAggregation {
 public:
  // `headroom`: the next round's sigma' is headroom x the last rho (at most K);
  // 1 but for a free intercept (kFreeInterceptHeadroom).
  explicit CocoaAggregation(int workers, bool adaptive = true, double headroom = 1.0)
      : workers_(std::max(workers, 1)),
        adaptive_(adaptive),
        headroom_(headroom),
        sigma_(static_cast<double>(std::max(workers, 1))) {}

  // The sigma' for the next round's local subproblems: K until a round has been
  // measured (the safe start), then the adapted value.
  double sigma() const { return sigma_; }

  // After the allreduce: `sum_of_squares` = sum_k ||dw_k||^2, `square_of_sum` =
  // ||sum_k dw_k||^2. Returns gamma in (0, 1], the share of this round's change
  // to apply, and sets the next round's sigma'.
  double accept(double sum_of_squares, double square_of_sum) {
    if (!(sum_of_squares > 0.0)) return 1.0;  // nothing moved
    const double rho = std::clamp(square_of_sum / sum_of_squares, 1.0, static_cast<double>(workers_));
    last_rho_ = rho;
    const double gamma = rho > sigma_ ? sigma_ / rho : 1.0;
    if (adaptive_) sigma_ = std::min(headroom_ * rho, static_cast<double>(workers_));
    return gamma;
  }

  double last_rho() const { return last_rho_; }

 private:
  int workers_;
  bool adaptive_;
  double headroom_;
  double sigma_;
  double last_rho_ = 0.0;
};

}  // namespace snapml
