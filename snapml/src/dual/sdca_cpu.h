// The CPU SDCA solver (sdca_cpu.cpp explains the method, its certificate and its
// threads), declared here for the files it is split into: the setup, the epoch
// and the fit (sdca_cpu.cpp), its side of the CoCoA+ round (sdca_round.cpp) and
// shrinking (sdca_shrinking.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/random.h"
#include "coordinate_step.h"
#include "free_intercept.h"
#include "rows/resident_rows.h"
#include "rows/stream_window.h"
#include "snapml/error.h"
#include "snapml/impl/cocoa_round.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"
#include "threads/hot_columns.h"
#include "threads/replica_changes.h"
#include "threads/thread_copies.h"

namespace snapml::detail {

class SdcaCpuSolver final : public Solver, private RoundBackend {
 public:
  explicit SdcaCpuSolver(const SolverParameters& parameters) : parameters_(parameters) {
    validate(parameters_);
    require(parameters_.penalty == Penalty::L2,
            "the SDCA solver solves penalty l2 only; penalty l1 trains by newGLMNET or coordinate descent (plan_solver picks them)");
    require(parameters_.penalise_intercept || !loss_is_non_smooth(parameters_.loss),
            "the SDCA solver's free intercept takes a smooth loss (its certificate: free_intercept.h)");
  }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  // RoundBackend: this rank is one CoCoA+ worker (cocoa_round.h).
  std::int64_t n_rows() const override { return n_rows_; }
  std::size_t weight_count() const override { return weights_.size(); }
  void begin_round() override;
  int rounds_per_epoch() const override;
  std::int64_t epoch(int epoch_index, EpochShare share, double sigma, double newton_tolerance) override;
  void local_change(double sigma, double* change) override;
  void apply_change(double gamma, const double* change) override;
  bool merges_in_place() const override { return changes_only_; }
  RoundSums sum_change(double sigma) override { return replica_changes_.sum(sigma, threads_); }
  void apply_summed(double gamma) override { replica_changes_.apply(gamma, weights_.data(), threads_); }
  void scale_alpha(double gamma) override;
  bool runs_rounds_in_team() const override;
  std::int64_t epoch_in_team(int epoch_index, int parts, CocoaAggregation& aggregation,
                             double newton_tolerance) override;
  ObjectiveSums objective_sums(int next_epoch) override;
  void keep_certified() override;
  double squared_weight_norm() override;
  std::vector<double> copy_alpha() override { return alpha_; }
  std::vector<double> copy_weights() override { return model_weights(); }
  // w with a free intercept's weight replaced by b / B (the model's intercept is B
  // times its weight).
  std::vector<double> model_weights() const {
    std::vector<double> weights = weights_;
    if (free_intercept_)
      weights[static_cast<std::size_t>(n_features_)] =
          intercept_.intercept(weights_.data(), n_features_) / parameters_.intercept_scaling;
    return weights;
  }
  bool reduce_concurrency() override;
  // The average of a non-smooth loss's iterates (cocoa_round.h), for rows in
  // memory only: 8 bytes a row more (no margin bounds of its own: swap_average);
  // a streamed fit keeps to the 16 bytes a row its budget counts.
  bool keeps_average() const override { return !resident_.chunks.empty(); }
  void add_to_average(double weight) override;
  void swap_average() override;
  // The best certified iterate of a smooth loss (cocoa_round.h), for rows in
  // memory only, as the average: 8 bytes a row more.
  bool keeps_best() const override { return !resident_.chunks.empty(); }
  void keep_best() override;
  void end_on_best() override;

  // Several workers, rows in memory: alpha of the rows order_[first, first + count),
  // the round's, which scale_alpha goes back towards.
  void save_round_alpha(std::int64_t first, std::int64_t count);
  // One pass, or the share of it the driver names; returns the rows it visited.
  template <typename Loss>
  std::int64_t epoch_of(const Loss& loss, double* local_weights, double sigma, EpochShare share);
  // An epoch's `parts` rounds in one parallel region (sdca_team_rounds.cpp).
  template <typename Loss>
  std::int64_t team_epoch_of(const Loss& loss, int parts, CocoaAggregation& aggregation);
  // The rows order[0, n) of `rows` on the team: one thread, the shared vector
  // (PASSCoDe) or the replicas.
  template <typename Loss>
  void update_rows(const Loss& loss, const ResidentRows& rows, const std::int64_t* order, std::int64_t n,
                   const StepContext& step, ThreadPass& total, std::uint8_t* left_out);
  // A free intercept: the multiplier update between rounds (free_intercept.h).
  void recentre() {
    if (free_intercept_) intercept_.recentre(weights_.data(), n_features_);
  }
  // CoCoA+ workers of this rank: its replicas, else 1.
  int local_workers() const { return std::max(replicas_, 1); }
  void prepare(ChunkSource& source, Communicator& communicator);
  void initialise(ChunkSource& source, Communicator& communicator, SolverState& state);
  // Shrinking only where the rows are in memory (an order over some of them) and
  // one rank solves the whole problem (a CoCoA+ round's sub-problem moves w by
  // gamma afterwards, which the previous pass's range does not bound; so neither
  // with replicas, whose round is CoCoA+'s over the threads: fit()).
  bool may_shrink() const { return parameters_.shrinking && ranks_ == 1 && !resident_.chunks.empty(); }
  void start_shrinking(bool enabled);
  void bring_every_row_back();
  void after_shrinking_pass(double pg_max, double pg_min);

  SolverParameters parameters_;
  ChunkSource* source_ = nullptr;  // during fit()
  RowTargets targets_;
  int threads_ = 1;
  int ranks_ = 1;
  // With replicas their workers: threads_, or past two threads Auto's team
  // (thread_updates.h, replica_team); else 0.
  int replicas_ = 0;
  double row_overlap_ = -1.0;  // what sized Auto's team, else -1 (FitResult::row_overlap)
  // Rounds an epoch with replicas or ranks (rounds_per_epoch; thread_updates.h:
  // replica_rounds_per_epoch, distributed_rounds_per_epoch).
  int epoch_rounds_ = 1;
  std::int32_t n_features_ = 0;  // global: the largest over ranks
  std::int64_t n_rows_ = 0;      // this rank's
  std::vector<double> squared_norms_;  // ||x_i||^2 + intercept_scaling^2, visiting order
  std::vector<double> alpha_;
  std::vector<double> weights_;  // w, n_features_ + 1
  // Several workers: each one's v = w + sigma' * dw_k during a round (one per
  // replica, else one for this rank); or, with replicas past two threads
  // (changes_only_), only each one's change sigma' * dw_k, its margins on w
  // (replica_changes.h: merges that cost the columns a round touched, not T
  // copies of w, so that the rounds can be many). And alpha at the round's start:
  // of every row, or (rows in memory) of the rows the round visits,
  // order_[round_first_, round_first_ + round_count_).
  std::vector<std::vector<double>> local_;
  bool changes_only_ = false;
  // An epoch's replica rounds run in one region, rows dealt (sdca_team_rounds.cpp):
  // one process, changes only, rows in memory, and replicas asked for by name or a
  // team within the CPUs this process may use.
  bool team_rounds_ = false;
  detail::ReplicaChanges replica_changes_;
  std::vector<double> round_alpha_;
  std::int64_t round_first_ = -1;  // -1: every row's alpha was kept
  std::int64_t round_count_ = 0;
  bool round_alpha_saved_ = false;  // this round's alpha is kept
  std::vector<std::int64_t> order_;
  std::vector<std::int64_t> chunk_first_;  // n_chunks + 1 row offsets, first pass's (file) order
  ResidentRows resident_;  // empty unless the source is resident
  StreamedEpoch streamed_;  // a streamed epoch's chunk order and window (stream_window.h)
  // Shrinking (hinge and squared hinge, a resident source, one rank): the rows
  // still visited, a flag a row set when the last pass left it out, and the
  // projected gradient range of the last pass (start_shrinking, after_shrinking_pass).
  bool shrinking_ = false;
  std::vector<std::int64_t> active_;
  std::vector<std::uint8_t> left_out_;
  double pg_max_old_ = HUGE_VAL;
  double pg_min_old_ = -HUGE_VAL;
  double unshrink_below_ = -1.0;  // the range at which every row comes back; < 0 before the first pass
  // The gap pass of a hinge-type loss skips the rows whose loss it can prove 0
  // (objectives.h, MarginBounds): 16 bytes a row, so only with a resident source.
  std::unique_ptr<MarginBounds> bounds_;
  // The averaged iterate (add_to_average); while it is swapped in, the iterate's
  // margin bounds (the average has none: swap_average).
  std::vector<double> alpha_average_;
  std::vector<double> weights_average_;
  std::unique_ptr<MarginBounds> iterate_bounds_;
  // The best certified iterate (keep_best): alpha, w and a free intercept's offset.
  std::vector<double> alpha_best_;
  std::vector<double> weights_best_;
  detail::FreeIntercept intercept_best_;
  detail::HotColumns hot_;  // with several threads only
  // A small w shared by several threads (thread_copies.h), else null.
  std::unique_ptr<detail::ThreadCopies> copies_;
  SplitMix64 random_{0};
  // A free intercept (free_intercept.h): b = offset + B w[n_features].
  bool free_intercept_ = false;
  // A free intercept's certificate: each row's margin w.x_i (its Newton steps on
  // the intercept), and the intercept it certified (keep_certified moves to it).
  std::vector<double> margins_;
  double certified_intercept_ = 0.0;
  detail::FreeIntercept intercept_;
};

}  // namespace snapml::detail
