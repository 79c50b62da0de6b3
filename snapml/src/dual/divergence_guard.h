// Whether a dual fit's certificates say it diverges (issue: "no fit returns a model
// it cannot stand behind").
//
// Coordinate ascent with exact steps never lowers the dual objective: each step
// maximises D along one coordinate, and CoCoA+'s merge keeps that (Ma et al. 2015,
// Lemma 3). Asynchronous steps on stale margins (PASSCoDe threads, the GPU's rows
// in flight) may lower it a little (Hsieh, Yu & Dhillon 2015 bound the delay for
// their guarantee), and diverge where hundreds of stale steps pile onto the same
// columns: on an H100 the one-block-per-row pass ended a9a at a relative gap of 1.1
// (docs/gpu.md). The certificate sees it; this guard reads it after every
// certificate that did not meet tol (one that did is valid whatever came before:
// weak duality) and calls it divergence when
//   - the primal or dual objective is not finite;
//   - the dual fell by more than kDualFallShare of the previous gap (a fall of
//     that size undoes a fair share of the progress the certificate measured;
//     rounding's falls are below kRoundingShare of the objectives);
//   - for a smooth loss, the gap stayed above kGapGrowth times its smallest value
//     for kGrowthWindow certificates in a row (the primal running away while the
//     dual stalls). Not for a non-smooth loss (the hinge): its last iterate's
//     primal wanders around the optimum by design (cocoa_round.h, IterateAverage;
//     scikit-learn's class-weight check saw a9a-sized swings of 40x at C = 1e3),
//     so only its dual, which exact steps never lower, is read;
//   - for a smooth loss, the gap has not halved in the kStallWindow certificates
//     after the first: coordinate ascent's early epochs take the gap down fastest
//     (a9a's first five certificates, one thread: 0.74 to 0.08 relative), and stale
//     steps that cancel each other do not move it. On a 16-core machine PASSCoDe
//     threads on a9a (shared w, 16 threads each on its own core) kept the relative
//     gap at 0.94-0.99 for 1,000 epochs (4 and 8 alike over 60), the dual wandering
//     between 760 and 2,050 (the optimum's about 10,400): never a fall of half the
//     gap, never ten times the best gap (device run of 2026-11-27,
//     docs/benchmarks/threads.md). A stall only asks for less concurrency
//     (stalled()): with nothing to lower the fit goes on, a slow fit is not a
//     diverged one.
// The solver then asks its backend to reduce its concurrency (RoundBackend::
// reduce_concurrency: the GPU halves its rows in flight) and goes on from the
// current point, which is feasible (w = w(alpha) holds under atomic updates), or,
// where nothing is left to reduce, throws FitDiverged: never the diverged weights.
#pragma once

#include <string>

#include "snapml/impl/objectives.h"

namespace snapml::detail {

class DivergenceGuard {
 public:
  static constexpr double kDualFallShare = 0.5;
  static constexpr double kRoundingShare = 1e-9;
  static constexpr double kGapGrowth = 10.0;
  static constexpr int kGrowthWindow = 5;
  static constexpr int kStallWindow = 5;
  static constexpr double kStallShare = 0.5;

  // `watch_gap`: whether the gap's growth counts (smooth losses).
  explicit DivergenceGuard(bool watch_gap = true) : watch_gap_(watch_gap) {}

  // What diverged at this certificate ("" when nothing did), in words for the
  // error: "the dual objective fell from 12.5 to -3.1".
  std::string check(const Objectives& objectives);
  // Forgets the certificates seen: the next one starts a new history (after the
  // backend changed how it steps).
  void reset() { *this = DivergenceGuard(watch_gap_); }
  // Whether the last verdict was the stall rule's, which fails no fit.
  bool stalled() const { return stalled_; }

 private:
  bool watch_gap_;
  double last_dual_ = 0.0;
  double last_gap_ = 0.0;
  double best_gap_ = 0.0;
  int above_best_ = 0;  // certificates in a row with gap > kGapGrowth * best gap
  double first_gap_ = 0.0;
  int certificates_ = 0;  // checked since the last reset
  bool stalled_ = false;
};

}  // namespace snapml::detail
