// The CPU replicas' rounds inside one parallel region (RoundBackend::epoch_in_team,
// snapml/impl/cocoa_round.h): one process, replicas past two threads keeping
// their changes only (replica_changes.h), rows in memory.
//
// Why dealt rows. The driver's rounds hand a round's rows to the threads in
// blocks claimed one at a time (update_in_blocks, coordinate_step.h), so that a
// thread that loses its core does fewer blocks. Time-sliced on fewer cores than
// threads, the threads holding a core then claim most blocks: a round is stepped
// by a few workers, whose changes overlap less, and the fit takes the epochs of
// a few workers, not of the team (16 threads on 2 cores: a9a 26-29 epochs to
// 1e-4, where 16 real cores took 119), and a different partition, so a
// different fit, each run. Here thread t steps the t-th of the team's equal
// parts of the round's share of the epoch's order, whatever the scheduling: a
// seed and a thread count give one fit, and 16 threads on 2 cores take the
// epochs 16 cores take (a9a 124-131: docs/benchmarks/threads.md, "Replicas in
// one region"). A thread that loses its core now holds the round up.
//
// So Auto keeps the claimed blocks where the team outnumbers the CPUs this
// process may use (threads_per_rank, snapml/threads.h): there the threads
// holding a core step most rows, and the fit takes the fewer epochs of fewer
// workers, which is all such a machine can run at once (Snap ML's own
// distributed example asks for 128 threads: on 2 cores 128 dealt workers
// took a9a past its 200 epochs, test log loss 0.3303 against 0.3241).
// Replicas asked for by name (ThreadUpdates::Replicas) are always dealt: every
// thread a worker, the epochs of that many cores, measurable on any machine.
//
// Why one region. A round run by the driver is several parallel regions (the
// steps, the kept alpha, the merge's sums, its application, the scaling of
// alpha), each a fork and a join; here it is the team's three barriers: after
// the steps and the sending of the changes, after the sums, after w and alpha
// have moved.
//
// The round is the driver's (cocoa_round.h), step for step: the free intercept
// recentred, alpha of the round's rows kept, the steps with sigma' on w plus the
// worker's change, rho's two sums, gamma and the next sigma' from
// CocoaAggregation::accept, w += gamma sum_k dw_k, alpha scaled back by gamma.
// What differs is who does it: every thread keeps its own copy of the
// aggregation and of the intercept's multiplier and feeds it the same numbers
// (the threads' sums added in thread order), so all reach the same gamma and
// sigma' without a further barrier, and thread 0's copies are the fit's after
// the epoch.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../common/omp_threads.h"
#include "sdca_cpu.h"

namespace snapml::detail {

bool SdcaCpuSolver::runs_rounds_in_team() const { return team_rounds_; }

std::int64_t SdcaCpuSolver::epoch_in_team(int, int parts, CocoaAggregation& aggregation, double newton_tolerance) {
  return with_loss(parameters_.loss, parameters_.epsilon, newton_tolerance,
                   [&](const auto& loss) { return team_epoch_of(loss, parts, aggregation); });
}

template <typename Loss>
std::int64_t SdcaCpuSolver::team_epoch_of(const Loss& loss, int parts, CocoaAggregation& aggregation) {
  if (!replica_changes_.started()) replica_changes_.start(replicas_, weights_.size());
  const auto n = static_cast<std::int64_t>(active_.size());
  order_.assign(active_.begin(), active_.end());
  detail::shuffle(order_.data(), n, random_);
  round_alpha_.resize(alpha_.size());
  const int workers = replicas_;
  std::vector<RoundSums> sums(static_cast<std::size_t>(workers));
  StepContext base{targets_, nullptr, n_features_, parameters_.intercept_scaling, 1.0, nullptr};
  base.round_weights = weights_.data();
  const bool prefetches = detail::prefetch_weights(static_cast<std::size_t>(n_features_) + 1);
  double* const w = weights_.data();
  double* const alpha = alpha_.data();
  double* const kept = round_alpha_.data();
  const std::int64_t* const order = order_.data();
SNAPML_OMP(parallel num_threads(workers))
  {
    const int team = detail::team_size();  // the workers a region that got fewer threads leaves idle stay at 0
    const int t = detail::thread_index();
    StepContext own = base;
    own.local_weights = replica_changes_.change(t);
    own.touched = replica_changes_.touched(t);
    if (prefetches) own.prefetched_weights = own.local_weights;
    CocoaAggregation mine = aggregation;
    FreeIntercept intercept = intercept_;
    ThreadPass pass(nullptr);
    for (int part = 0; part < parts; ++part) {
      // begin_round's recentring: w's intercept weight is final since the last barrier.
      if (free_intercept_) intercept.recentre(w, n_features_);
      own.margin_offset = free_intercept_ ? intercept.offset() : 0.0;
      own.sigma = mine.sigma();
      const std::int64_t share_begin = n * part / parts;
      const std::int64_t share = n * (part + 1) / parts - share_begin;
      const std::int64_t first = share_begin + share * t / team;
      const std::int64_t last = share_begin + share * (t + 1) / team;
      for (std::int64_t r = first; r < last; ++r) kept[order[r]] = alpha[order[r]];
      update_resident_rows<Loss, WeightAccess::Replica>(loss, resident_, order, n, first, last, alpha,
                                                        squared_norms_.data(), own, pass, nullptr);
      double squares = 0.0;
      for (int k = t; k < workers; k += team) squares += replica_changes_.send(k, own.sigma, team);
SNAPML_OMP(barrier)
      sums[static_cast<std::size_t>(t)] = RoundSums{squares, replica_changes_.gather(t, team)};
SNAPML_OMP(barrier)
      RoundSums total;
      for (int k = 0; k < team; ++k) {
        total.sum_of_squares += sums[static_cast<std::size_t>(k)].sum_of_squares;
        total.square_of_sum += sums[static_cast<std::size_t>(k)].square_of_sum;
      }
      const double gamma = mine.accept(total.sum_of_squares, total.square_of_sum);
      replica_changes_.apply_listed(t, gamma, w);
      if (gamma < 1.0)
        for (std::int64_t r = first; r < last; ++r) {
          const std::int64_t i = order[r];
          alpha[i] = accepted_alpha(kept[i], alpha[i], gamma);
        }
SNAPML_OMP(barrier)
    }
    if (t == 0) {
      aggregation = mine;
      intercept_ = intercept;
    }
  }
  return n;
}

}  // namespace snapml::detail
