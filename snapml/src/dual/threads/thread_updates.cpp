#include "snapml/thread_updates.h"

#include <algorithm>

#include "snapml/error.h"
#include "thread_copies.h"

namespace snapml {

const char* thread_updates_name(ThreadUpdates updates) {
  switch (updates) {
    case ThreadUpdates::Shared:
      return "shared";
    case ThreadUpdates::Replicas:
      return "replicas";
    case ThreadUpdates::Atomic:
      return "atomic";
    case ThreadUpdates::Auto:
      break;
  }
  return "auto";
}

ThreadUpdates thread_updates_from_name(const std::string& name) {
  for (ThreadUpdates u : {ThreadUpdates::Auto, ThreadUpdates::Shared, ThreadUpdates::Replicas, ThreadUpdates::Atomic})
    if (name == thread_updates_name(u)) return u;
  throw InvalidArgument("unknown thread updates '" + name + "': use auto, shared, replicas or atomic");
}

bool use_replicas(ThreadUpdates updates, int threads, const ReplicaProblem& problem) {
  if (threads <= 1) return false;
  switch (updates) {
    case ThreadUpdates::Shared:
    case ThreadUpdates::Atomic:
      return false;
    case ThreadUpdates::Replicas:
      return true;
    case ThreadUpdates::Auto:
      break;
  }
  const std::int64_t weights = problem.n_features + 1;
  // Divided rather than multiplied: threads x weights may exceed 2^63 / 4 for a
  // wide problem, the epoch's non-zeros never do.
  const bool affordable = problem.epoch_nnz / kReplicaNnzPerWeight / threads >= weights;
  if (threads > kSharedSkewedMaxThreads) return problem.skewed_columns && affordable;
  return !problem.shrinks && problem.skewed_columns &&
         !detail::ThreadCopies::fits(static_cast<std::size_t>(weights), threads) && affordable;
}

int replica_rounds_per_epoch(int threads, std::int64_t rows, std::int64_t epoch_nnz, std::int64_t weights) {
  if (threads <= kSharedSkewedMaxThreads) return kReplicaRoundsPerEpoch;
  // Divided: threads x weights may be large; the quotients are what bound rounds.
  const std::int64_t by_rows = rows / threads / kReplicaRowsPerRound;
  const std::int64_t by_width = std::min<std::int64_t>(threads, epoch_nnz / threads / std::max<std::int64_t>(weights, 1));
  return static_cast<int>(
      std::clamp<std::int64_t>(std::max(by_rows, by_width), kReplicaRoundsPerEpoch, kMostReplicaRounds));
}

int distributed_rounds_per_epoch(int workers, int replica_rounds, std::int64_t rows, std::int64_t epoch_nnz,
                                 std::int64_t weights) {
  const std::int64_t by_rows =
      std::max<std::int64_t>(rows / std::max(workers, 1) / kReplicaRowsPerRound, replica_rounds);
  const std::int64_t by_cost = epoch_nnz / (kRoundPassesOverWeights * std::max<std::int64_t>(weights, 1));
  return static_cast<int>(std::clamp<std::int64_t>(std::min(by_rows, by_cost), 1, kMostReplicaRounds));
}

int replica_team(int threads, double overlap) {
  if (threads <= kSharedSkewedMaxThreads) return threads;
  const auto time = [&](int team) {
    return (1.0 + (team - 1) * overlap) * (1.0 + kReplicaWorkerCost * (team - 1)) / team;
  };
  int best = kSharedSkewedMaxThreads;
  for (int team = best + 1; team <= threads; ++team)
    if (time(team) < time(best)) best = team;
  return best;
}

bool reduce_shared_threads(int& threads, bool replicas) {
  if (replicas || threads <= 1) return false;
  threads = std::max(1, threads / 2);
  return true;
}

}  // namespace snapml
