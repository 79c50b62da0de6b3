// The passes of the GPU dual solver's schedule on its devices: the `Ops` of
// HybridBackend (hybrid_backend.h), whose other implementation is the host
// executor of tests/support/gpu_epoch_model.cpp. Each pass runs on every worker of
// this process (their kernels queued on each device's stream, then waited for),
// over each worker's chunks (device_chunks.h: resident, or streamed through the
// ring), and returns this process's sums; the backend reduces them over ranks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dual/hybrid_backend.h"
#include "dual/kernels.h"
#include "dual/worker.h"
#include "snapml/communicator.h"
#include "snapml/solver.h"

namespace snapml::cuda::dual {

// The hot columns on every worker alike (their device copies are the workers').
struct HotLayout {
  std::vector<std::int32_t> columns;  // slot -> column, the intercept (n_features) first when there is one
  std::int32_t bias_slot = -1;
  std::int32_t shared_slots = 0;  // HotSlots::shared
};

class DeviceOps {
 public:
  // `weights`: w on the host, kept with several workers in all (the merge); with
  // one, w is the worker's v.
  DeviceOps(std::vector<std::unique_ptr<Worker>>& workers, const SolverParameters& parameters,
            Communicator& communicator, HotLayout hot, std::int32_t n_features, std::int64_t total_workers,
            std::vector<double>& weights);

  // ---- sizes and state ----
  std::int64_t n_rows() const;
  std::size_t weight_count() const { return static_cast<std::size_t>(n_features_) + 1; }
  std::size_t n_hot() const { return hot_.columns.size(); }
  const std::vector<std::int32_t>& hot_columns() const { return hot_.columns; }
  bool first_rank() const { return communicator_.rank() == 0; }
  void allreduce_sum(double* data, std::size_t count) { communicator_.allreduce_sum(data, count); }
  std::vector<double> hot_weights();
  double squared_weight_norm();
  double weights_dot(const std::vector<double>& u);
  std::vector<double> copy_alpha();
  std::vector<double> best_alpha();
  // v (w between rounds) to the host, and a given w onto every worker's v (and the
  // host's w with several workers): the best certified iterate's copy.
  std::vector<double> copy_weights();
  void set_weights(const std::vector<double>& w);
  bool halve_rows_in_flight();
  // alpha = the best certificate's (keep_alpha), v = w(alpha) on every worker.
  void restore_best_alpha();

  // ---- CoCoA+ between workers (cocoa_round.h) ----
  void begin_round();
  void local_change(double sigma, double* change);
  void apply_change(double gamma, const double* change);
  void scale_alpha(double gamma);

  // ---- the passes (hybrid_backend.h); losses are named to the kernels by setup_of ----
  template <typename Loss>
  void cold_pass(const Loss& loss, int epoch, double sigma) {
    cold_pass(setup_of(loss), epoch, sigma);
  }
  template <typename Loss>
  void margin_pass(const Loss& loss, HotSums& sums) {
    margin_pass(setup_of(loss), sums);
  }
  template <typename Loss>
  void hvp(const Loss&, const std::vector<double>& d, std::vector<double>& out) {
    hvp(d, out);
  }
  void accumulate_direction(double a);
  template <typename Loss>
  LineTerms line(const Loss& loss, double t) {
    double sums[kRowValues];
    reduce(RowReduce::Line, setup_of(loss), t, sums);
    return {sums[0], sums[1], sums[2]};
  }
  void apply(double t, const std::vector<double>& weights);
  void discard_direction();
  template <typename Loss, typename Surrogate>
  RowSums row_sums(const Loss&, const Surrogate& surrogate) {
    double sums[kRowValues];
    reduce(RowReduce::Objective, setup_of(surrogate), 0.0, sums);
    return {sums[0], sums[1], sums[2], sums[3]};
  }
  template <typename Loss, typename Surrogate>
  RowSums paired_pass(const Loss&, const Surrogate& surrogate, std::vector<double>& weights) {
    return paired_pass(setup_of(surrogate), weights);
  }
  template <typename Loss, typename Surrogate>
  void mixed_dual(const Loss&, const Surrogate& surrogate, double theta, double* sums) {
    double all[kRowValues];
    reduce(RowReduce::Mixed, setup_of(surrogate), theta, all);
    sums[0] = all[0];
    sums[1] = all[1];
  }
  void keep_alpha(double theta);

 private:
  void cold_pass(const LossSetup& loss, int epoch, double sigma);
  void margin_pass(const LossSetup& loss, HotSums& sums);
  void hvp(const std::vector<double>& d, std::vector<double>& out);
  RowSums paired_pass(const LossSetup& loss, std::vector<double>& weights);
  void reduce(RowReduce kind, const LossSetup& loss, double t, double* sums);
  ColumnSplit split(Worker& worker) const;
  HotSlots slots() const { return {static_cast<std::int32_t>(n_hot()), hot_.shared_slots}; }
  // Adds a worker's n_hot-vector `index` (downloaded) into `into`.
  void add_hot(Worker& worker, int index, std::vector<double>& into);

  std::vector<std::unique_ptr<Worker>>& workers_;
  SolverParameters parameters_;
  Communicator& communicator_;
  HotLayout hot_;
  std::int32_t n_features_;
  std::int64_t total_workers_;
  std::vector<double>& weights_;
};

}  // namespace snapml::cuda::dual
