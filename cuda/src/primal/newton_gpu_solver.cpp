// The trust-region Newton solver with everything on the devices (newton_gpu.h).
//
// The rows (primal_rows.h) and every vector stay on the devices: per row the
// targets, costs and the loss's derivative and curvature, per weight w, g, M, the
// CG vectors s, r, d, Hd and the trial point, on the first device id. The rules
// are trust_region.h's, the CPU solver's: this file is their GPU backend. Each of
// its steps queues kernels and copies back the few sums the rules read next:
//   the start / an accepted step   a margin pass at w (loss, derivative, curvature
//                                  and dual value per row, fused with their sums),
//                                  then one transposed pass for the gradient and
//                                  the Hessian's diagonal together, and a sweep
//                                  for g, M, ||g||, ||w - g|| and g.M^-1.g
//   a CG iteration                 u = c .* X d, X^T u, a sweep for Hd and d.Hd;
//                                  then s, r and d in two sweeps with their sums
//                                  (beta computed on the device from the sum the
//                                  first left: one copy to the host, not two)
//   a trial step                   a sweep for w + s with g.s, s.r, ||s||_M and
//                                  its penalty, a margin pass at it
// Only scalars cross to the host in an iteration (and, under MPI, the weight-
// sized sums of each product, through the communicator). The certificate of the
// last iterate comes with its gradient (primal_newton_solver.cpp explains the paired dual point),
// and the final state (weights, one alpha a row) is downloaded once.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "newton_gpu.h"
#include "primal/trust_region.h"
#include "primal_rows.h"
#include "snapml/cuda/check.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"

namespace snapml::cuda::primal {
namespace {

using Clock = std::chrono::steady_clock;
namespace tr = snapml::detail::trust_region;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class NewtonGpuSolver final : public Solver {
 public:
  NewtonGpuSolver(const SolverParameters& parameters, std::vector<int> device_ids,
                  std::shared_ptr<detail::PrimalRowsCache> cache, NewtonGpuOptions options)
      : parameters_(parameters),
        device_ids_(device_ids.empty() ? std::vector<int>{0} : std::move(device_ids)),
        cache_(std::move(cache)),
        options_(std::move(options)) {
    validate(parameters_);
    require(newton_gpu_takes(parameters_),
            std::string("the GPU Newton solver takes the logistic, squared hinge, squared and multinomial losses "
                        "under penalty l2 or none, stepping by the trust region; got the ") +
                loss_name(parameters_.loss) + " loss");
    for (const int device : device_ids_) require_gpu(device);
  }

  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  class Steps;

  SolverParameters parameters_;
  std::vector<int> device_ids_;
  std::shared_ptr<detail::PrimalRowsCache> cache_;
  NewtonGpuOptions options_;
};

// trust_region.h's backend over the rows and the master's vectors.
class NewtonGpuSolver::Steps {
 public:
  Steps(const SolverParameters& parameters, PrimalRows& rows, Communicator& communicator, FitTimings& timings,
        Clock::time_point started)
      : parameters_(parameters),
        rows_(rows),
        master_device_(rows.master().device_id()),
        communicator_(communicator),
        timings_(timings),
        started_(started),
        stream_(rows.master_stream()),
        sums_(rows.master_sums()),
        loss_{parameters.loss, parameters.epsilon},
        intercept_(parameters.intercept_scaling) {
    setup_.n = static_cast<std::int64_t>(rows.width());
    setup_.intercept = {rows.intercept_index(), intercept_};
    setup_.penalty = parameters.penalty == Penalty::None ? 0.0 : 1.0;
    setup_.penalise_intercept = parameters.penalise_intercept;
    setup_.classes = rows.classes();
    DeviceGuard guard(rows.master().device_id());
    for (DeviceBuffer<double>* vector : {&w_, &trial_, &g_, &m_, &r_, &s_, &d_, &hd_})
      *vector = DeviceBuffer<double>(rows.width());
  }

  bool certified() const { return parameters_.penalty == Penalty::L2 && parameters_.penalise_intercept; }
  std::size_t width() const { return rows_.width(); }
  std::size_t classes() const { return static_cast<std::size_t>(rows_.classes()); }

  // The starting weights from `state` (SolverState's warm-start rule; the
  // multinomial loss's: weights only, K rows of n_features + 1, as the CPU's).
  void start_from(SolverState& state) {
    const DeviceGuard guard(master_device_);
    if (classes() > 1) return start_classes_from(state);
    const auto n_features = static_cast<std::int32_t>(width() - 1);
    const StartFrom start = warm_start_from(state, rows_.n_rows(), n_features);
    if (start == StartFrom::Alpha) {  // w(alpha) = X^T (alpha c(y)), summed over the parts and ranks
      rows_.upload_rows(state.alpha.data(), &Part::u);
      for (auto& part : rows_.parts()) {
        DeviceGuard on(part->device_id);
        launch_alpha_derivatives(loss_, part->n_rows, part->targets.data(), part->costs.data(), part->u.data(),
                                 part->stream());
      }
      rows_.fork(nullptr);
      rows_.column_sums(ColumnSum::Plain, true);
      rows_.join(true, false);
      ++timings_.total.plain_columns;
      const PartSums raw = rows_.over_ranks(communicator_, rows_.raw_a(), false);
      launch_assign_sum(setup_, raw, 1, w_.data(), stream_);
      timings_.total.sweep_vectors += raw.count + 1;
    } else if (start == StartFrom::Weights) {
      w_.copy_from_host(state.weights.data(), width(), stream_);
      SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream_));  // state.weights may change after this call
    } else {
      w_.fill_bytes(0, stream_);
    }
  }

  // The multinomial loss's start: W (class-major in `state`, feature-major here) or 0.
  void start_classes_from(SolverState& state) {
    require(state.alpha.empty(), "the multinomial loss warm-starts from weights only, not from dual variables");
    if (state.weights.empty()) return w_.fill_bytes(0, stream_);
    const std::size_t K = classes(), n_weights = rows_.n_weights();
    require(state.weights.size() == width(), "warm start: the multinomial loss takes " + std::to_string(K) +
                                                 " rows of n_features + 1 weights, " + std::to_string(width()) +
                                                 " in all; got " + std::to_string(state.weights.size()));
    std::vector<double> w(width());
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t j = 0; j < n_weights; ++j) w[j * K + k] = state.weights[k * n_weights + j];
    w_.copy_from_host(w.data(), width(), stream_);
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream_));  // before `w` goes
  }

  // ||g(0)||, the gradient rule's reference (LIBLINEAR's, whatever the start).
  double zero_gradient_norm() {
    const DeviceGuard guard(master_device_);
    rows_.fork(nullptr);
    rows_.margin_terms(loss_, nullptr, intercept_);
    rows_.join(false, false);
    ++timings_.total.margin_rows;
    rows_.accept_trial();
    trial_.fill_bytes(0, stream_);
    gradient_at(trial_);
    return std::sqrt(gradient_squared_);
  }

  // f(w) and its gradient: the first iterate.
  double evaluate_start() {
    const DeviceGuard guard(master_device_);
    launch_penalty(setup_, w_.data(), sums_.at(kPenalty), stream_);
    timings_.total.sweep_vectors += 1;
    const double loss = loss_at(w_);
    const double f = loss + 0.5 * sums_.fetch(stream_, kPenalty, 1)[0];
    rows_.accept_trial();
    dual_sum_ = trial_dual_;
    gradient_at(w_);
    return f;
  }

  // ---- trust_region.h's backend ----
  void update_preconditioner() {}  // M comes with every gradient (gradient_at)
  double initial_radius() const { return std::sqrt(gradient_by_m_); }
  double gradient_norm() const { return std::sqrt(gradient_squared_); }
  double cg_target(double f) const { return tr::cg_target(certified(), parameters_.tol, f); }

  tr::CgStart cg_start() {
    const DeviceGuard guard(master_device_);
    s_.fill_bytes(0, stream_);
    launch_cg_start(setup_.n, g_.data(), m_.data(), r_.data(), d_.data(), sums_.at(kCgZr), stream_);
    timings_.total.sweep_vectors += 5;  // s zeroed, g and M read, r and d written
    const double* sums = sums_.fetch(stream_, kCgZr, 2);
    return {sums[0], sums[1]};
  }

  double cg_curvature() {
    const DeviceGuard guard(master_device_);
    ++timings_.cg_iterations;
    rows_.fork(d_.data());
    rows_.curvature_rows(d_.data(), intercept_);
    rows_.column_sums(ColumnSum::Plain, true);
    rows_.join(true, false);
    ++timings_.total.curvature_rows;
    ++timings_.total.plain_columns;
    const PartSums raw = rows_.over_ranks(communicator_, rows_.raw_a(), false);
    launch_hessian_epilogue(setup_, raw, d_.data(), hd_.data(), sums_.at(kCurvature), stream_);
    timings_.total.sweep_vectors += raw.count + 2;
    return sums_.fetch(stream_, kCurvature, 1)[0];
  }

  tr::CgAdvance cg_advance(double step, double zr) {
    const DeviceGuard guard(master_device_);
    launch_cg_advance(setup_.n, step, zr, s_.data(), r_.data(), d_.data(), hd_.data(), m_.data(),
                      sums_.at(kCgZrNext), sums_.at(kCgSd), stream_);
    timings_.total.sweep_vectors += 12;  // s, d, r, Hd, M read and s, r written; r, M, d, s read and d written
    const double* sums = sums_.fetch(stream_, kCgZrNext, 4);
    tr::CgAdvance next;
    next.zr = sums[0];
    next.rr = sums[1];
    next.sd = sums[2];
    next.dd = sums[3];
    return next;
  }

  void cg_to_boundary(double tau) {
    const DeviceGuard guard(master_device_);
    launch_cg_boundary(setup_.n, tau, s_.data(), r_.data(), d_.data(), hd_.data(), stream_);
    timings_.total.sweep_vectors += 6;
  }

  tr::TrialStep try_step() {
    const DeviceGuard guard(master_device_);
    ++timings_.trial_steps;
    launch_trial_point(setup_, w_.data(), s_.data(), g_.data(), r_.data(), m_.data(), trial_.data(),
                       sums_.at(kTrialGs), stream_);
    timings_.total.sweep_vectors += 6;
    const double loss = loss_at(trial_);  // its copies wait for the sweep's sums on the master stream
    const double* sums = sums_.fetch(stream_, kTrialGs, 4);
    tr::TrialStep trial;
    trial.gs = sums[0];
    trial.sr = sums[1];
    trial.s_norm = std::sqrt(sums[2]);
    trial.f_trial = loss + 0.5 * sums[3];
    return trial;
  }

  void accept_step() {
    const DeviceGuard guard(master_device_);
    std::swap(w_, trial_);
    rows_.accept_trial();
    dual_sum_ = trial_dual_;
    gradient_at(w_);
  }

  bool record(FitResult& result, double f) {
    timings_.cg_at_record.push_back(timings_.cg_iterations);
    tr::IterateSums sums;
    sums.primal = f;
    sums.gradient_norm = std::sqrt(gradient_squared_);
    sums.dual_sum = dual_sum_;
    sums.dual_weights_squared = dual_weights_squared_;
    return tr::record_iterate(result, parameters_, certified(), seconds_since(started_), first_gradient_norm_, sums);
  }

  void progress(const FitResult& result) {
    if (!parameters_.on_progress) return;
    parameters_.on_progress(result.epochs, [this] {  // w downloaded only when a snapshot is asked for
      SolverState state;
      state.weights = download_weights();
      return state;
    });
  }

  void set_first_gradient_norm(double norm) { first_gradient_norm_ = norm; }

  std::vector<double> download_weights() {
    const DeviceGuard guard(master_device_);
    return w_.to_host(stream_);
  }

  // The weights and the dual point paired with the last gradient's margins (the
  // multinomial loss's: W class-major, alpha_ik = -D_ik = C_i (y_ik - p_ik)).
  void finish(SolverState& state) {
    const DeviceGuard guard(master_device_);
    state.weights = download_weights();
    if (classes() > 1) {
      const std::size_t K = classes(), n_weights = rows_.n_weights();
      const std::vector<double> w = std::move(state.weights);
      state.weights.assign(width(), 0.0);
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < n_weights; ++j) state.weights[k * n_weights + j] = w[j * K + k];
      state.alpha.assign(static_cast<std::size_t>(rows_.n_rows()) * K, 0.0);
      rows_.download_rows(&Part::d, state.alpha.data(), static_cast<int>(K));
      for (double& a : state.alpha) a = a == 0.0 ? 0.0 : -a;
      return;
    }
    state.alpha.assign(static_cast<std::size_t>(rows_.n_rows()), 0.0);
    for (auto& part : rows_.parts()) {
      DeviceGuard on(part->device_id);
      launch_paired_alpha(loss_, part->n_rows, part->targets.data(), part->d.data(), part->u.data(), part->stream());
    }
    rows_.download_rows(&Part::u, state.alpha.data());
  }

 private:
  // sum_i C_i loss_i at `point` (a master vector) over every rank's rows: a margin
  // pass into the trial rows; keeps the paired dual sum for the record.
  double loss_at(DeviceBuffer<double>& point) {
    const DeviceGuard guard(master_device_);
    rows_.fork(point.data());
    rows_.margin_terms(loss_, point.data(), intercept_);
    rows_.join(false, false);
    ++timings_.total.margin_rows;
    double sums[2] = {0.0, 0.0};
    rows_.margin_sums(sums[0], sums[1]);
    communicator_.allreduce_sum(sums, 2);
    trial_dual_ = sums[1];
    return sums[0];
  }

  // g, M and the record's sums at `point` from the current rows' d and c.
  void gradient_at(DeviceBuffer<double>& point) {
    const DeviceGuard guard(master_device_);
    rows_.fork(nullptr);
    rows_.column_gradient();
    rows_.join(true, true);
    ++timings_.total.gradient_columns;
    const PartSums raw_g = rows_.over_ranks(communicator_, rows_.raw_a(), false);
    const PartSums raw_h = rows_.over_ranks(communicator_, rows_.raw_b(), true);
    launch_gradient_epilogue(setup_, raw_g, raw_h, point.data(), g_.data(), m_.data(), sums_.at(kGradientSquared),
                             stream_);
    timings_.total.sweep_vectors += 2 * raw_g.count + 3;
    const double* sums = sums_.fetch(stream_, kGradientSquared, 3);
    gradient_squared_ = sums[0];
    dual_weights_squared_ = sums[1];
    gradient_by_m_ = sums[2];
  }

  const SolverParameters& parameters_;
  PrimalRows& rows_;
  int master_device_;  // current in every step: the master stream's work is queued there
  Communicator& communicator_;
  FitTimings& timings_;
  Clock::time_point started_;
  cudaStream_t stream_;
  StreamSums& sums_;
  PrimalLoss loss_;
  double intercept_;
  WeightSetup setup_;
  DeviceBuffer<double> w_, trial_, g_, m_, r_, s_, d_, hd_;
  double gradient_squared_ = 0.0, dual_weights_squared_ = 0.0, gradient_by_m_ = 0.0;
  double dual_sum_ = 0.0, trial_dual_ = 0.0;
  double first_gradient_norm_ = 0.0;
};

FitResult NewtonGpuSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  const Clock::time_point started = Clock::now();
  FitTimings timings;
  std::int64_t features = source.n_features();
  communicator.allreduce_max(&features, 1);
  const RowsKey key = key_of(source, static_cast<std::int32_t>(features), parameters_.intercept_scaling != 0.0,
                             device_ids_, parameters_.max_gpu_memory, options_.tiles);
  bool uploaded = false;
  const std::shared_ptr<PrimalRows> kept = cache_->rows_for(source, key, parameters_.threads, &uploaded);
  if (uploaded) {
    timings.upload = seconds_since(started);
    timings.upload_split = kept->upload_timings();
  }
  PrimalRows& rows = *kept;
  Clock::time_point phase = Clock::now();
  const bool per_class = loss_is_per_class(parameters_.loss);
  require(!per_class || parameters_.classes.size() >= 2,
          "the multinomial loss needs the classes (SolverParameters::classes)");
  rows.set_classes(per_class ? static_cast<int>(parameters_.classes.size()) : 1);
  if (per_class)
    rows.set_class_targets(source, parameters_.classes, parameters_.class_weights, parameters_.C);
  else
    rows.set_targets(source, RowTargets::from(parameters_));
  timings.targets = seconds_since(phase);

  phase = Clock::now();
  Steps steps(parameters_, rows, communicator, timings, started);
  steps.start_from(state);
  if (!steps.certified()) steps.set_first_gradient_norm(steps.zero_gradient_norm());
  const double f = steps.evaluate_start();
  FitResult result;
  result.epochs = parameters_.first_epoch;  // a resumed fit goes on counting
  const bool done = steps.record(result, f);
  timings.start = seconds_since(phase);
  timings.at_start = timings.total;
  phase = Clock::now();
  if (!done) tr::trust_region_iterations(steps, result, parameters_.max_epochs, f, steps.width());
  timings.iterations = seconds_since(phase);
  phase = Clock::now();
  steps.finish(state);
  timings.finish = seconds_since(phase);
  result.data_passes = timings.total.passes();
  timings.n_rows = rows.n_rows();
  timings.stored_entries = rows.stored_entries();
  timings.transposed_entries = rows.transposed_entries();
  timings.tiles = rows.tiles();
  timings.n_weights = static_cast<std::int64_t>(rows.n_weights());
  if (options_.timings) *options_.timings = timings;
  return result;
}

}  // namespace

double pass_bytes(const FitTimings& sizes, const PassCounts& counts) {
  const auto rows = static_cast<double>(sizes.n_rows);
  const auto weights = static_cast<double>(sizes.n_weights);
  const auto tiles = static_cast<double>(sizes.tiles);
  const double row_side = 8.0 * static_cast<double>(sizes.stored_entries) + 4.0 * (rows + tiles) + 8.0 * weights;
  const double column_side = 8.0 * static_cast<double>(sizes.transposed_entries) + 4.0 * tiles * (weights + 1.0);
  const double outputs = 8.0 * weights * std::max(1.0, 2.0 * tiles - 1.0);
  return static_cast<double>(counts.margin_rows) * (row_side + 32.0 * rows) +
         static_cast<double>(counts.curvature_rows) * (row_side + 16.0 * rows) +
         static_cast<double>(counts.gradient_columns) * (column_side + 16.0 * rows + 2.0 * outputs) +
         static_cast<double>(counts.plain_columns) * (column_side + 8.0 * rows + outputs) +
         static_cast<double>(counts.sweep_vectors) * 8.0 * weights;
}

bool newton_gpu_takes(const SolverParameters& parameters) {
  return primal_solver_supports(parameters.loss) && parameters.penalty != Penalty::L1 &&
         (parameters.primal_method == PrimalMethod::Auto || parameters.primal_method == PrimalMethod::TrustRegion);
}

std::unique_ptr<Solver> make_newton_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                               std::shared_ptr<detail::PrimalRowsCache> cache,
                                               NewtonGpuOptions options) {
  return std::make_unique<NewtonGpuSolver>(parameters, std::move(device_ids), std::move(cache), std::move(options));
}

}  // namespace snapml::cuda::primal
