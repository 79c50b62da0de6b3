// Stochastic dual coordinate ascent on CPU threads, one CoCoA+ worker per rank.
//
// Invariant: w = sum_i alpha_i * coefficient(y_i) * x_i over all ranks' rows
// (the intercept is the constant feature `intercept_scaling` at index
// n_features, regularised with the rest, as LIBLINEAR's -B). The duality gap
// P(w) - D(alpha) is therefore a certificate of sub-optimality, and stopping on
// gap <= tol * P(w) guarantees P(w) - P(w*) <= tol * P(w).
//
// An epoch visits every row once in a fresh random permutation. With a resident
// source (in memory, memory-mapped) it is one permutation over the rows of all
// chunks; a streamed source holds a few chunks at a time, so its epoch takes the
// chunks in a fresh random order (where the source allows: reset_in_order) and
// permutes the rows within each (slower per epoch: chunk_source.h). Each row gets
// the exact coordinate step of its loss (snapml/losses/). With T > 1 threads the
// threads claim blocks of the permutation in turn, and either all of them read
// and update the shared vector with atomic adds: PASSCoDe-Atomic (Hsieh, Yu &
// Dhillon, ICML 2015), which keeps the invariant exactly while reads may be
// stale (a small w through a copy per thread, thread_copies.h); or each updates
// its own replica of w, merged as CoCoA+ workers after each
// round of the epoch (SySCD; snapml/thread_updates.h says which and why; past two
// threads a replica keeps its change only: threads/replica_changes.h, and one
// process runs an epoch's rounds in one parallel region with each round's rows
// dealt to the threads: sdca_team_rounds.cpp). One thread
// uses plain loads and stores and, with a fixed seed, is bit-for-bit
// reproducible.
//
// CoCoA+ (Ma, Smith, Jaggi et al., ICML 2015): with K workers (ranks, or every
// replica of every rank) each works on its own
// rows with a local vector v = w + sigma' * dw_k for H local epochs; the
// coordinate step sees margin v.x_i and curvature sigma' * ||x_i||^2. The round
// itself (sigma', gamma, the reduction, the certificate) is run_cocoa_rounds's
// (snapml/impl/cocoa_round.h), shared with the GPU solver; this solver is its
// RoundBackend for one rank and its replicas. With K = 1 v is w itself and a
// round is one plain SDCA epoch.
//
// Precision: w, alpha and ||x_i||^2 are doubles (8 bytes a row each for alpha and
// the cached norm); data values stay float32. Doubles keep the invariant and the
// gap accurate enough for tolerances near 1e-10.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../common/omp_threads.h"
#include "../common/prefetch.h"
#include "sdca_cpu.h"
#include "threads/row_overlap.h"
#include "snapml/impl/dual_start.h"
#include "snapml/impl/huge_pages.h"
#include "snapml/thread_updates.h"
#include "snapml/threads.h"

namespace snapml {
namespace detail {

void SdcaCpuSolver::prepare(ChunkSource& source, Communicator& communicator) {
  threads_ = detail::resolve_threads(parameters_.threads);
  targets_ = RowTargets::from(parameters_);
  free_intercept_ = detail::has_free_intercept(parameters_);
  require(!free_intercept_ || (source.resident() && communicator.size() == 1),
          "the SDCA solver trains a free intercept with the rows in memory on one process (its certificate reads "
          "alpha twice: free_intercept.h); train this one by the primal Newton solver (solver primal or auto)");
  std::int64_t features = source.n_features();
  communicator.allreduce_max(&features, 1);
  n_features_ = static_cast<std::int32_t>(features);
  // Each rank draws its own permutations; seed and rank fix them.
  random_ = SplitMix64(parameters_.seed ^ (0xD1B54A32D192ED03ULL * static_cast<std::uint64_t>(communicator.rank() + 1)));

  // One pass: row count and the cached squared norms (the step's curvature).
  const double bias_square = parameters_.intercept_scaling * parameters_.intercept_scaling;
  squared_norms_.clear();
  resident_ = ResidentRows{};
  if (source.resident()) {
    resident_.first.push_back(0);
    for (std::size_t c = 0; c < source.n_chunks(); ++c) {
      resident_.chunks.push_back(source.chunk(c));
      resident_.first.push_back(resident_.first.back() + resident_.chunks.back().n_rows);
    }
    resident_.index_blocks();
  }
  chunk_first_.assign(1, 0);
  // Replicas or the shared vector (thread_updates.h); shrinking as fit() decides it.
  const bool shrinks = may_shrink() && with_loss(parameters_.loss, parameters_.epsilon, 0.0, [](const auto& loss) {
    return losses::is_shrinkable<std::decay_t<decltype(loss)>>::value;
  });
  // With threads, how many rows have each column: the hot ones (hot_columns.h),
  // which the shared w keeps pending and whose presence the Auto rule asks.
  const bool counts_columns = threads_ > 1 && parameters_.thread_updates != ThreadUpdates::Replicas;
  detail::ColumnCounter column_counter(counts_columns ? static_cast<std::size_t>(n_features_) + 1 : 0, source.nnz(),
                                       threads_);
  // Past two threads Auto's replicas step on a team sized by the rows' overlap
  // (thread_updates.h, replica_team), measured on a sample of them.
  const bool sizes_team = threads_ > kSharedSkewedMaxThreads && parameters_.thread_updates == ThreadUpdates::Auto;
  detail::RowOverlapSample overlap_sample =
      sizes_team ? detail::RowOverlapSample(source.n_rows(), source.nnz(), parameters_.intercept_scaling)
                 : detail::RowOverlapSample();
  // The row-indexed arrays an epoch reads at random (snapml/impl/huge_pages.h).
  const auto rows = static_cast<std::size_t>(source.n_rows());
  reserve_huge_pages(squared_norms_, rows);
  reserve_huge_pages(alpha_, rows);
  if (source.resident()) reserve_huge_pages(order_, rows);
  CsrView x;
  source.reset();
  while (source.next(x)) {
    const std::size_t base = squared_norms_.size();
    chunk_first_.push_back(chunk_first_.back() + x.n_rows);
    if (counts_columns) column_counter.add(x);
    if (sizes_team) overlap_sample.add(x, static_cast<std::int64_t>(base));
    squared_norms_.resize(base + static_cast<std::size_t>(x.n_rows));
    double* norms = squared_norms_.data() + base;
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
    for (std::int64_t row = 0; row < x.n_rows; ++row) norms[row] = row_squared_norm(x, row) + bias_square;
  }
  n_rows_ = static_cast<std::int64_t>(squared_norms_.size());
  const bool with_intercept = parameters_.intercept_scaling != 0.0;
  hot_ = counts_columns ? detail::HotColumns(column_counter.take(), n_rows_, with_intercept) : detail::HotColumns();
  hot_.set_team(threads_);
  ReplicaProblem problem;
  problem.epoch_nnz = source.nnz();
  problem.n_features = n_features_;
  problem.skewed_columns = hot_.size() > (with_intercept ? 1u : 0u);
  problem.shrinks = shrinks;
  replicas_ = use_replicas(parameters_.thread_updates, threads_, problem) ? threads_ : 0;
  row_overlap_ = -1.0;
  if (replicas_ > kSharedSkewedMaxThreads && sizes_team) {
    row_overlap_ = overlap_sample.overlap(n_rows_);
    replicas_ = replica_team(replicas_, row_overlap_);
  }
  if (replicas_ > 0) hot_ = detail::HotColumns();  // every column is a replica's
  // Atomic holds nothing back: no pending changes, no copies (thread_updates.h).
  const bool atomic = parameters_.thread_updates == ThreadUpdates::Atomic;
  if (atomic) hot_ = detail::HotColumns();
  // Past two threads the replicas keep their changes only, and merge often
  // (replica_changes.h; thread_updates.h, replica_rounds_per_epoch).
  changes_only_ = replicas_ > kSharedSkewedMaxThreads;
  team_rounds_ = changes_only_ && communicator.size() == 1 && source.resident() &&
                 (parameters_.thread_updates == ThreadUpdates::Replicas || replicas_ <= threads_per_rank());
  // A fit that threw left its changes as they were: begin_round starts them again
  // for this fit's workers.
  replica_changes_.release();
  const std::int64_t width = n_features_ + std::int64_t{1};
  epoch_rounds_ = replicas_ > 0 ? replica_rounds_per_epoch(replicas_, source.n_rows(), source.nnz(), width) : 1;
  if (communicator.size() > 1) {
    // Every rank cuts its epochs alike, as the rank with the most rows asks (a
    // smaller share's rounds are shorter); not at all where a round spans several
    // epochs or a rank holds no chunk in memory (a streamed share, whose epoch is
    // not cut, or an empty one).
    std::int64_t asked[2] = {
        distributed_rounds_per_epoch(local_workers(), epoch_rounds_, source.n_rows(), source.nnz(), width),
        resident_.chunks.empty() || parameters_.local_epochs > 1 ? 1 : 0};
    communicator.allreduce_max(asked, 2);
    epoch_rounds_ = asked[1] > 0 ? 1 : static_cast<int>(asked[0]);
  }
  const std::size_t weights = static_cast<std::size_t>(n_features_) + 1;
  copies_.reset();
  if (replicas_ == 0 && !atomic && detail::ThreadCopies::fits(weights, threads_)) {
    copies_ = std::make_unique<detail::ThreadCopies>(weights, threads_);
    hot_ = detail::HotColumns();  // every column is in the copies
  }
  require(resident_.chunks.empty() || resident_.first.back() == n_rows_,
          "the chunk source's chunk(i) views hold " + std::to_string(resident_.first.empty() ? 0 : resident_.first.back()) +
              " rows but next() returned " + std::to_string(n_rows_));
}

void SdcaCpuSolver::initialise(ChunkSource& source, Communicator& communicator, SolverState& state) {
  const StartFrom start = warm_start_from(state, n_rows_, n_features_);
  alpha_.assign(static_cast<std::size_t>(n_rows_), 0.0);
  reserve_huge_pages(weights_, static_cast<std::size_t>(n_features_) + 1);
  weights_.assign(static_cast<std::size_t>(n_features_) + 1, 0.0);
  const double bias_value = parameters_.intercept_scaling;
  const double* start_weights = start == StartFrom::Weights ? state.weights.data() : nullptr;

  with_loss(parameters_.loss, parameters_.epsilon, 0.0, [&](const auto& loss) {
    using Loss = std::decay_t<decltype(loss)>;
    std::int64_t offset = 0;
    CsrView x;
    source.reset();
    while (source.next(x)) {
      require(offset + x.n_rows <= n_rows_, "the chunk source returned more rows than in its first pass");
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        const double y = targets_.target(x.labels[row]);
        const double cost = targets_.cost(y, x.weight(row));
        const auto index = static_cast<std::size_t>(offset + row);
        double& alpha = alpha_[index];
        if (!(cost > 0.0)) continue;  // stays 0: the row is absent
        const double margin =
            start == StartFrom::Weights ? row_dot(x, row, start_weights) + bias_value * start_weights[n_features_] : 0.0;
        alpha = starting_alpha(loss, start, start == StartFrom::Alpha ? state.alpha[index] : 0.0, margin, y, cost);
        // w(alpha), accumulated in row order: deterministic for any thread count.
        const double scale = alpha * Loss::coefficient(y);
        if (scale == 0.0) continue;
        add_scaled_row(x, row, scale, weights_.data());
        weights_[static_cast<std::size_t>(n_features_)] += scale * bias_value;
      }
      offset += x.n_rows;
    }
    require(offset == n_rows_, "the chunk source returned fewer rows than in its first pass");
  });
  communicator.allreduce_sum(weights_.data(), weights_.size());
  if (free_intercept_) {
    // w's intercept weight is B s(alpha); the intercept b0 + B v starts where the
    // given weights put it (free_intercept.h; alpha and weights both given: the
    // weights' intercept, as a fit resumed by solver auto), else at B v.
    const double v = weights_[static_cast<std::size_t>(n_features_)];
    const auto bias = static_cast<std::size_t>(n_features_);
    const double* given = start == StartFrom::Weights ? start_weights
                          : state.weights.size() == bias + 1 ? state.weights.data()
                                                             : nullptr;
    intercept_ = detail::FreeIntercept(bias_value, given != nullptr ? bias_value * (given[bias] - v) : 0.0);
  }
}

template <typename Loss>
std::int64_t SdcaCpuSolver::epoch_of(const Loss& loss, double* local_weights, double sigma, EpochShare share) {
  ChunkSource& source = *source_;
  StepContext context{targets_, local_weights, n_features_, parameters_.intercept_scaling, sigma,
                      hot_.empty() ? nullptr : &hot_};
  context.margin_offset = free_intercept_ ? intercept_.offset() : 0.0;
  if (changes_only_) {  // the workers' changes, on w (update_rows gives each its own)
    context.round_weights = weights_.data();
    context.touched = replica_changes_.touched(0);
  }
  if (detail::prefetch_weights(static_cast<std::size_t>(n_features_) + 1)) context.prefetched_weights = local_weights;
  if (!resident_.chunks.empty()) {
    // The rows still in the problem (all of them unless shrinking left some out),
    // in a fresh random order: with every row in, the permutation of all rows;
    // with several rounds an epoch, each visits its part of that one order.
    const auto n = static_cast<std::int64_t>(active_.size());
    if (share.part == 0) {
      order_.assign(active_.begin(), active_.end());
      detail::shuffle(order_.data(), n, random_);
    }
    const std::int64_t begin = n * share.part / share.parts;
    const std::int64_t end = n * (share.part + 1) / share.parts;
    // A round's first epoch keeps its rows' alpha (H local epochs a round visit
    // the same rows again: all of them).
    if ((local_workers() > 1 || ranks_ > 1) && !round_alpha_saved_) save_round_alpha(begin, end - begin);
    ShrinkBounds bounds{pg_max_old_, pg_min_old_};
    StepContext step = context;
    // Shrinking judges a whole pass (replicas, whose epochs have parts, never shrink).
    if (shrinking_ && losses::is_shrinkable<Loss>::value) step.shrink = &bounds;
    ThreadPass total(nullptr);
    update_rows(loss, resident_, order_.data() + begin, end - begin, step, total, left_out_.data());
    if (step.shrink != nullptr) after_shrinking_pass(total.pg_max, total.pg_min);
    return end - begin;
  }
  require(share.parts == 1, "a streamed epoch is not cut into shares (rounds_per_epoch is 1 for it)");
  // Streamed: the rows of a sliding window of chunks mixed (stream_window.h);
  // chunk_first_ places each chunk's rows among alpha and the norms.
  streamed_epoch(source, chunk_first_, random_, streamed_,
                 [&](const ResidentRows& rows, const std::int64_t* order, std::int64_t n) {
                   ThreadPass total(nullptr);
                   update_rows(loss, rows, order, n, context, total, nullptr);
                 });
  return n_rows_;
}

template <typename Loss>
void SdcaCpuSolver::update_rows(const Loss& loss, const ResidentRows& rows, const std::int64_t* order, std::int64_t n,
                                const StepContext& step, ThreadPass& total, std::uint8_t* left_out) {
  // Replicas: their workers (replica_team may leave threads to the passes over all rows).
  const int team = static_cast<int>(
      std::min<std::int64_t>(replicas_ > 0 ? replicas_ : threads_, std::max<std::int64_t>(n, 1)));
  if (team <= 1) {
    if (step.round_weights != nullptr)
      update_resident_rows<Loss, WeightAccess::Replica>(loss, rows, order, n, 0, n, alpha_.data(),
                                                        squared_norms_.data(), step, total, left_out);
    else
      update_resident_rows<Loss, WeightAccess::Plain>(loss, rows, order, n, 0, n, alpha_.data(),
                                                      squared_norms_.data(), step, total, left_out);
    return;
  }
  if (copies_) {  // set only without replicas
    // A small w: a copy per thread, published every few rows (thread_copies.h).
    double* const base = step.local_weights;
SNAPML_OMP(parallel num_threads(team))
    {
      detail::ThreadCopies::Copy copy(*copies_, detail::thread_index(), base);
      StepContext own = step;
      own.local_weights = copy.weights();
      own.prefetched_weights = nullptr;  // a small w stays in cache (prefetch.h)
      own.hot = nullptr;
      const std::int64_t publish_rows = detail::ThreadCopies::publish_rows(team);
      update_in_blocks(n, own, total, [&](std::int64_t begin, std::int64_t end, ThreadPass& pass) {
        for (std::int64_t first = begin; first < end; first += publish_rows) {
          update_resident_rows<Loss, WeightAccess::Plain>(loss, rows, order, n, first,
                                                          std::min(end, first + publish_rows),
                                            alpha_.data(), squared_norms_.data(), own, pass, left_out);
          copy.publish(base);
        }
      });
    }
    copies_->fold(base);
    return;
  }
  if (replicas_ == 0) {
SNAPML_OMP(parallel num_threads(team))
    update_in_blocks(n, step, total, [&](std::int64_t begin, std::int64_t end, ThreadPass& pass) {
      update_resident_rows<Loss, WeightAccess::Atomic>(loss, rows, order, n, begin, end, alpha_.data(),
                                                       squared_norms_.data(),
                                       step, pass, left_out);
    });
    return;
  }
  // Replicas: each thread steps on w plus its own change with plain loads and
  // stores; w is only read and no other thread touches the change until the
  // round merges them (replica_changes.h). The hot columns too: shared in w
  // (pending, published every few rows) they cost the replicas most of their
  // gain, every publication a cache miss for the other thread's next reads (the
  // click log: 0.46-0.55 s an epoch with two threads against 0.30-0.31 s with
  // none shared; one thread 0.53 s).
SNAPML_OMP(parallel num_threads(team))
  {
    StepContext own = step;
    const int k = detail::thread_index();
    own.local_weights = changes_only_ ? replica_changes_.change(k) : local_[static_cast<std::size_t>(k)].data();
    if (changes_only_) own.touched = replica_changes_.touched(k);
    if (own.prefetched_weights != nullptr) own.prefetched_weights = own.local_weights;
    own.hot = nullptr;
    update_in_blocks(n, own, total, [&](std::int64_t begin, std::int64_t end, ThreadPass& pass) {
      if (changes_only_)
        update_resident_rows<Loss, WeightAccess::Replica>(loss, rows, order, n, begin, end, alpha_.data(),
                                                          squared_norms_.data(), own, pass, left_out);
      else
        update_resident_rows<Loss, WeightAccess::Plain>(loss, rows, order, n, begin, end, alpha_.data(),
                                                        squared_norms_.data(), own, pass, left_out);
    });
  }
}

std::int64_t SdcaCpuSolver::epoch(int, EpochShare share, double sigma, double newton_tolerance) {
  // One worker: w itself. Several: this rank's copy, or with replicas the first
  // one's change (what a team of one steps on; a larger team gives each thread its own).
  const bool several = local_workers() > 1 || ranks_ > 1;
  if (!several) recentre();  // several workers: begin_round's
  double* v = changes_only_ ? replica_changes_.change(0) : several ? local_.front().data() : weights_.data();
  return with_loss(parameters_.loss, parameters_.epsilon, newton_tolerance,
                   [&](const auto& loss) { return epoch_of(loss, v, sigma, share); });
}

FitResult SdcaCpuSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  const auto started = std::chrono::steady_clock::now();
  source_ = &source;
  ranks_ = communicator.size();
  prepare(source, communicator);
  initialise(source, communicator, state);

  start_shrinking(may_shrink() && replicas_ == 0);
  bounds_.reset();
  if (!free_intercept_ && !resident_.chunks.empty() && loss_is_zero_beyond_margin_one(parameters_.loss))
    bounds_ = std::make_unique<MarginBounds>(squared_norms_.data(), squared_norms_.size());

  // CoCoA+'s K: every rank's workers (ranks may run different thread counts).
  std::int64_t workers = local_workers();
  communicator.allreduce_sum(&workers, 1);
  FitResult result = run_cocoa_rounds(*this, communicator, static_cast<int>(workers), parameters_, started);
  result.replicas = replicas_;
  result.row_overlap = row_overlap_;
  state.weights = model_weights();
  // Moved, not copied: a third row-sized vector at the end of a fit would raise
  // the peak of out-of-core training above the 16 bytes a row its budget counts
  // (docs/out-of-core.md). prepare() and initialise() refill both for a next fit.
  state.alpha = std::move(alpha_);
  std::vector<double>().swap(squared_norms_);
  replica_changes_.release();
  decltype(local_)().swap(local_);
  std::vector<double>().swap(round_alpha_);
  std::vector<double>().swap(alpha_average_);
  std::vector<double>().swap(weights_average_);
  std::vector<double>().swap(alpha_best_);
  std::vector<double>().swap(weights_best_);
  bounds_.reset();
  iterate_bounds_.reset();
  source_ = nullptr;
  return result;
}

}  // namespace detail

std::unique_ptr<Solver> make_sdca_cpu_solver(const SolverParameters& parameters) {
  return std::make_unique<detail::SdcaCpuSolver>(parameters);
}

}  // namespace snapml
