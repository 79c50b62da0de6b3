// The CPU SDCA solver's side of the CoCoA+ round (RoundBackend, snapml/impl/
// cocoa_round.h; sdca_cpu.h): the round's copies of w and alpha, the merge of the
// workers' changes, the scaling of alpha by gamma, the averaged iterate, the
// certificate's sums and the divergence guard's remedy. The round itself is
// run_cocoa_rounds's, shared with the GPU solver.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/omp_threads.h"
#include "sdca_cpu.h"
#include "snapml/impl/huge_pages.h"
#include "snapml/thread_updates.h"

namespace snapml::detail {

int SdcaCpuSolver::rounds_per_epoch() const {
  return (replicas_ > 0 || ranks_ > 1) && !resident_.chunks.empty() ? epoch_rounds_ : 1;
}

void SdcaCpuSolver::begin_round() {
  recentre();  // before the copies: w is the same on every rank and replica
  if (changes_only_) {
    // The changes start at 0 once a fit; every merge leaves them 0 (replica_changes.h).
    if (!replica_changes_.started()) replica_changes_.start(replicas_, weights_.size());
  } else {
    local_.resize(static_cast<std::size_t>(local_workers()));
    const auto copies = static_cast<std::int64_t>(local_.size());
    // Each thread copies w into its own replica (written by it first: its pages).
    const int team = static_cast<int>(std::min<std::int64_t>(
        detail::threads_for(copies * static_cast<std::int64_t>(weights_.size()), threads_), copies));
SNAPML_OMP(parallel for num_threads(team) schedule(static, 1))
    for (std::int64_t c = 0; c < copies; ++c) {
      std::vector<double>& v = local_[static_cast<std::size_t>(c)];
      reserve_huge_pages(v, weights_.size());
      v = weights_;
    }
  }
  // Rows in memory: the epoch keeps the alpha of the rows its round visits
  // (save_round_alpha); a streamed epoch visits every row.
  round_first_ = -1;
  round_alpha_saved_ = resident_.chunks.empty();  // streamed: kept below
  if (!resident_.chunks.empty()) return;
  round_alpha_.resize(alpha_.size());
  const auto rows = static_cast<std::int64_t>(alpha_.size());
SNAPML_OMP(parallel for num_threads(detail::threads_for(rows, threads_)) schedule(static))
  for (std::int64_t i = 0; i < rows; ++i) round_alpha_[static_cast<std::size_t>(i)] = alpha_[static_cast<std::size_t>(i)];
}

void SdcaCpuSolver::save_round_alpha(std::int64_t first, std::int64_t count) {
  round_alpha_.resize(alpha_.size());
  round_alpha_saved_ = true;
  round_first_ = first;
  round_count_ = count;
  const std::int64_t* rows = order_.data() + first;
SNAPML_OMP(parallel for num_threads(detail::threads_for(count, threads_)) schedule(static))
  for (std::int64_t r = 0; r < count; ++r) {
    const auto i = static_cast<std::size_t>(rows[r]);
    round_alpha_[i] = alpha_[i];
  }
}

// The merge's passes over w and its copies, on the team by blocks of columns
// (the click log's 2^20 weights and two replicas: 4.0-4.5 ms a merge on one
// thread, 2.9-3.5 ms on two, twice an epoch of 150 ms). Each block's ||dw_k||^2
// is summed apart and the blocks in order: the same sigma' and gamma for any
// thread count.
constexpr std::size_t kMergeColumns = std::size_t{1} << 14;

void SdcaCpuSolver::local_change(double sigma, double* change) {
  if (changes_only_) {
    replica_changes_.add_to(sigma, change);
    return;
  }
  const std::size_t size = weights_.size();
  const auto blocks = static_cast<std::int64_t>((size + kMergeColumns - 1) / kMergeColumns);
  std::vector<double> squares(static_cast<std::size_t>(blocks), 0.0);
SNAPML_OMP(parallel for num_threads(detail::threads_for(static_cast<std::int64_t>(size), threads_)) schedule(static))
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t first = static_cast<std::size_t>(b) * kMergeColumns;
    const std::size_t count = std::min(kMergeColumns, size - first);
    for (const std::vector<double>& v : local_)
      squares[static_cast<std::size_t>(b)] +=
          add_local_change(v.data() + first, weights_.data() + first, count, sigma, change + first);
  }
  for (const double square : squares) change[size] += square;
}

void SdcaCpuSolver::apply_change(double gamma, const double* change) {
  const auto size = static_cast<std::int64_t>(weights_.size());
SNAPML_OMP(parallel for num_threads(detail::threads_for(size, threads_)) schedule(static))
  for (std::int64_t j = 0; j < size; ++j) weights_[static_cast<std::size_t>(j)] += gamma * change[j];
}

void SdcaCpuSolver::scale_alpha(double gamma) {
  auto scale = [&](std::size_t i) { alpha_[i] = accepted_alpha(round_alpha_[i], alpha_[i], gamma); };
  if (round_first_ < 0) {
    for (std::size_t i = 0; i < alpha_.size(); ++i) scale(i);
    return;
  }
  const std::int64_t* rows = order_.data() + round_first_;
SNAPML_OMP(parallel for num_threads(detail::threads_for(round_count_, threads_)) schedule(static))
  for (std::int64_t r = 0; r < round_count_; ++r) scale(static_cast<std::size_t>(rows[r]));
}

void SdcaCpuSolver::add_to_average(double weight) {
  if (weight >= 1.0) {
    alpha_average_ = alpha_;
    weights_average_ = weights_;
    return;
  }
  // average += weight (iterate - average): alpha's and w's alike (w_avg = w(alpha_avg)).
  auto mix = [weight](std::vector<double>& average, const std::vector<double>& iterate, int threads) {
    const auto size = static_cast<std::int64_t>(average.size());
    double* const a = average.data();
    const double* const x = iterate.data();
SNAPML_OMP(parallel for num_threads(detail::threads_for(size, threads)) schedule(static))
    for (std::int64_t i = 0; i < size; ++i) a[i] += weight * (x[i] - a[i]);
  };
  mix(alpha_average_, alpha_, threads_);
  mix(weights_average_, weights_, threads_);
}

// The average's certificate passes go without margin bounds (a full pass each):
// it is certified only where it can end the fit, a few times a fit, and bounds of
// its own would cost 16 bytes a row past the resident state a memory budget
// counts (docs/out-of-core.md). The iterate's bounds are set aside meanwhile.
void SdcaCpuSolver::swap_average() {
  alpha_.swap(alpha_average_);
  weights_.swap(weights_average_);
  bounds_.swap(iterate_bounds_);
}

void SdcaCpuSolver::keep_best() {
  alpha_best_ = alpha_;
  weights_best_ = weights_;
  intercept_best_ = intercept_;
}

// The fit ends here: the margin bounds and shrinking lists, which follow the
// iterate, are not used again.
void SdcaCpuSolver::end_on_best() {
  alpha_.swap(alpha_best_);
  weights_.swap(weights_best_);
  intercept_ = intercept_best_;
}

ObjectiveSums SdcaCpuSolver::objective_sums(int) {
  if (free_intercept_) {
    margins_.resize(alpha_.size());
    const detail::FreeInterceptSums certificate = detail::free_intercept_sums(
        resident_, parameters_, weights_.data(), n_features_, intercept_.intercept(weights_.data(), n_features_),
        alpha_.data(), squared_norms_.data(), threads_, margins_.data());
    certified_intercept_ = certificate.intercept;
    return certificate.sums;
  }
  if (bounds_) bounds_->moved_to(weights_.data(), weights_.size());
  return snapml::objective_sums(*source_, parameters_, weights_.data(), n_features_, alpha_.data(), threads_,
                                bounds_.get());
}

void SdcaCpuSolver::keep_certified() {
  if (free_intercept_) intercept_.move_to(certified_intercept_, weights_.data(), n_features_);
}

// The divergence guard's remedy (divergence_guard.h): fewer threads on the shared
// w (thread_updates.h, reduce_shared_threads), with copies of a small w again
// where they fit the smaller team.
bool SdcaCpuSolver::reduce_concurrency() {
  if (!reduce_shared_threads(threads_, replicas_ > 0)) return false;
  hot_.set_team(threads_);
  const std::size_t weights = static_cast<std::size_t>(n_features_) + 1;
  copies_.reset();
  if (detail::ThreadCopies::fits(weights, threads_)) copies_ = std::make_unique<detail::ThreadCopies>(weights, threads_);
  return true;
}

double SdcaCpuSolver::squared_weight_norm() {
  // A free intercept's weight is not in the penalty.
  const std::size_t penalised = weights_.size() - (free_intercept_ ? 1 : 0);
  double squared_norm = 0.0;
  for (std::size_t j = 0; j < penalised; ++j) squared_norm += weights_[j] * weights_[j];
  return squared_norm;
}

}  // namespace snapml::detail
