// The replicas' changes of a CoCoA+ round and their merge (replicas:
// snapml/thread_updates.h; the round: snapml/impl/cocoa_round.h).
//
// Each worker (a thread) steps on w + sigma' dw_k with w read-only for the round
// and keeps only its change sigma' dw_k, in a vector of its own that is 0 outside
// the columns its rows touched; a step lists a column when its change leaves 0
// (coordinate_step.h, WeightAccess::Replica). The merge visits the listed columns
// only: sum_k dw_k and the two sums CoCoA+'s gamma and sigma' need (cocoa.h),
// then w += gamma sum_k dw_k and every change back to 0. A merge thus costs about
// the columns the round's rows touched, not the T copies of all of w that a full
// replica reset and merge pass over: on the 2M-row click log (2^20 columns) at 16
// threads that bounded the rounds to 4 an epoch, whose 500k-row rounds let every
// worker drift alone (55 epochs to 1e-4 against 11 for one thread; 22 at 64
// rounds: docs/benchmarks/threads.md, "Rounds without the copies").
//
// Each thread of the merge owns a range of columns and sums the workers' changes
// to them in the workers' order: no column is written by two threads (atomic adds
// on the columns every worker moves cost more than the round's steps on news20).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "snapml/impl/cocoa.h"

namespace snapml::detail {

class ReplicaChanges {
 public:
  // `workers` changes of `weights` zeros (once a fit; the merges leave them 0).
  void start(int workers, std::size_t weights);
  bool started() const { return !changes_.empty(); }
  int workers() const { return static_cast<int>(changes_.size()); }
  double* change(int worker) { return changes_[static_cast<std::size_t>(worker)].data(); }
  std::vector<std::int32_t>* touched(int worker) { return &touched_[static_cast<std::size_t>(worker)]; }

  // One process: sums dw_k = change_k / sigma over the workers into the merge's
  // own vector (every change back to 0) and returns the round's two sums.
  RoundSums sum(double sigma, int threads);
  // w += gamma sum_k dw_k on the columns sum() listed; the merge's vector back to 0.
  void apply(double gamma, double* w, int threads);
  // sum() and apply() in their steps, for a team already running (a round inside
  // one parallel region: sdca_team_rounds.cpp); `team` threads, each a range of
  // columns. send: worker k's changes to the threads owning their columns (its
  // change back to 0), returns its ||dw_k||^2. After every worker has sent,
  // gather: thread t sums its range over the workers, returns that range's share
  // of ||sum_k dw_k||^2. After every thread has gathered (and gamma is known),
  // apply_listed: w += gamma sum_k dw_k on thread t's range, its sum back to 0.
  double send(int worker, double sigma, int team);
  double gather(int thread, int team);
  void apply_listed(int thread, double gamma, double* w);
  // Several processes: adds sum_k dw_k into change[0, weights) and sum_k ||dw_k||^2
  // into change[weights] (the round's allreduce takes it from there); every change
  // back to 0.
  void add_to(double sigma, double* change);
  void release();

 private:
  std::vector<std::vector<double>> changes_;         // sigma' dw_k of each worker
  std::vector<std::vector<std::int32_t>> touched_;   // columns whose change left 0 (a column may repeat)
  struct Entry {
    std::int32_t column;
    double dw;
  };
  // Per worker, per thread of the merge: the worker's changes in that thread's
  // range of columns (each thread sums its own range: no atomic adds).
  std::vector<std::vector<std::vector<Entry>>> outboxes_;
  std::vector<std::vector<std::int32_t>> listed_;    // per thread of the merge: the columns it listed in sum_
  std::vector<double> sum_;                          // sum_k dw_k on listed columns, 0 elsewhere
  std::vector<std::uint8_t> in_sum_;                 // 1 on listed columns
};

}  // namespace snapml::detail
