#include "replica_changes.h"

#include <algorithm>

#include "../../common/omp_threads.h"
#include "snapml/impl/huge_pages.h"

namespace snapml::detail {

void ReplicaChanges::start(int workers, std::size_t weights) {
  changes_.resize(static_cast<std::size_t>(workers));
  touched_.assign(static_cast<std::size_t>(workers), {});
  // Each worker's vector is first written by its own thread (its pages).
SNAPML_OMP(parallel for num_threads(workers) schedule(static, 1))
  for (int k = 0; k < workers; ++k) {
    std::vector<double>& change = changes_[static_cast<std::size_t>(k)];
    reserve_huge_pages(change, weights);
    change.assign(weights, 0.0);
  }
  sum_.assign(weights, 0.0);
  in_sum_.assign(weights, 0);
  listed_.assign(static_cast<std::size_t>(workers), {});
  outboxes_.assign(static_cast<std::size_t>(workers), {});
}

double ReplicaChanges::send(int worker, double sigma, int team) {
  const auto size = static_cast<std::size_t>(team);
  const std::uint64_t weights = sum_.size();
  const auto k = static_cast<std::size_t>(worker);
  double* const change = changes_[k].data();
  std::vector<std::vector<Entry>>& outbox = outboxes_[k];
  outbox.resize(size);
  double sum_of_squares = 0.0;
  for (const std::int32_t j : touched_[k]) {
    const double moved = change[j];
    if (moved == 0.0) continue;  // listed twice (its change passed through 0), or never moved
    change[j] = 0.0;
    const double dw = moved / sigma;
    sum_of_squares += dw * dw;
    outbox[static_cast<std::size_t>(static_cast<std::uint64_t>(j) * size / weights)].push_back({j, dw});
  }
  touched_[k].clear();
  return sum_of_squares;
}

double ReplicaChanges::gather(int thread, int team) {
  const auto size = static_cast<std::size_t>(team);
  const auto t = static_cast<std::size_t>(thread);
  std::vector<std::int32_t>& listed = listed_[t];
  for (std::vector<std::vector<Entry>>& outbox : outboxes_) {
    if (outbox.size() != size) continue;  // a worker no thread sent this round (none moved)
    for (const Entry& entry : outbox[t]) {
      const auto c = static_cast<std::size_t>(entry.column);
      if (in_sum_[c] == 0) {
        in_sum_[c] = 1;
        listed.push_back(entry.column);
      }
      sum_[c] += entry.dw;
    }
    outbox[t].clear();
  }
  double square_of_sum = 0.0;
  for (const std::int32_t j : listed) square_of_sum += sum_[static_cast<std::size_t>(j)] * sum_[static_cast<std::size_t>(j)];
  return square_of_sum;
}

void ReplicaChanges::apply_listed(int thread, double gamma, double* w) {
  std::vector<std::int32_t>& listed = listed_[static_cast<std::size_t>(thread)];
  for (const std::int32_t j : listed) {
    const auto c = static_cast<std::size_t>(j);
    w[c] += gamma * sum_[c];
    sum_[c] = 0.0;
    in_sum_[c] = 0;
  }
  listed.clear();
}

RoundSums ReplicaChanges::sum(double sigma, int threads) {
  const int workers = this->workers();
  const int team = std::clamp(threads, 1, workers);
  double sum_of_squares = 0.0;
  double square_of_sum = 0.0;
SNAPML_OMP(parallel num_threads(team) reduction(+ : sum_of_squares, square_of_sum))
  {
    const int size = detail::team_size();
    const int t = detail::thread_index();
    // First each worker's changes, sent to the thread that owns their column's
    // range (every change back to 0) ...
    for (int k = t; k < workers; k += size) sum_of_squares += send(k, sigma, size);
SNAPML_OMP(barrier)
    // ... then each thread sums its range's changes over the workers: no column
    // written by two threads, no atomic adds.
    square_of_sum += gather(t, size);
  }
  return {sum_of_squares, square_of_sum};
}

void ReplicaChanges::apply(double gamma, double* w, int threads) {
  const int team = std::clamp(threads, 1, workers());
SNAPML_OMP(parallel num_threads(team))
  {
    const int size = detail::team_size();
    for (int t = detail::thread_index(); t < static_cast<int>(listed_.size()); t += size) apply_listed(t, gamma, w);
  }
}

void ReplicaChanges::add_to(double sigma, double* change) {
  const std::size_t weights = sum_.size();
  double sum_of_squares = 0.0;
  for (std::size_t k = 0; k < changes_.size(); ++k) {
    double* const own = changes_[k].data();
    for (const std::int32_t j : touched_[k]) {
      const double moved = own[j];
      if (moved == 0.0) continue;
      own[j] = 0.0;
      const double dw = moved / sigma;
      sum_of_squares += dw * dw;
      change[j] += dw;
    }
    touched_[k].clear();
  }
  change[weights] += sum_of_squares;
}

void ReplicaChanges::release() {
  decltype(changes_)().swap(changes_);
  decltype(touched_)().swap(touched_);
  decltype(listed_)().swap(listed_);
  decltype(outboxes_)().swap(outboxes_);
  std::vector<double>().swap(sum_);
  std::vector<std::uint8_t>().swap(in_sum_);
}

}  // namespace snapml::detail
