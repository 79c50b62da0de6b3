#include "gpu_epoch_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "dual/row_work.h"
#include "snapml/impl/cocoa_round.h"
#include "snapml/communicator.h"
#include "snapml/cuda/epoch_schedule.h"
#include "snapml/cuda/permutation.h"
#include "snapml/impl/dual_start.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/impl/warm_start_certificate.h"

namespace snapml::testing {

GpuModelStats last_gpu_model_stats;

namespace {

using cuda::dual::HotSums;
using cuda::dual::LineTerms;
using cuda::dual::RowState;
using cuda::dual::RowSums;

// The chunk index permutation_key reserves for an epoch's chunk order (as the
// solver's kChunkOrderKey).
constexpr std::uint64_t kChunkOrderKey = std::numeric_limits<std::uint64_t>::max();

// The Ops of HybridBackend (hybrid_backend.h) on the host: one worker whose chunks
// are the dataset's, every pass a loop over the rows calling row_work.h.
class HostOps {
 public:
  HostOps(const Dataset& data, const SolverParameters& parameters, const GpuModelOptions& options,
          SolverState& state)
      : parameters_(parameters), options_(options), rows_in_flight_(options.rows_in_flight),
        rng_(parameters.seed * 7919 + 17) {
    const std::int32_t n_features = data.n_features();
    const bool intercept = parameters.intercept_scaling != 0.0;
    split_.bias_index = n_features;
    split_.bias_value = parameters.intercept_scaling;
    cuda::HotColumnSet hot(n_features);
    std::vector<std::vector<std::int64_t>> counts;
    for (std::size_t c = 0; c < data.n_chunks(); ++c) {
      chunks_.push_back(data.view(c));
      counts.push_back(cuda::column_rows(chunks_.back()));
      hot.add(chunks_.back(), counts.back(), options.rows_in_flight);
    }
    const bool shipped = options.schedule == Schedule::Shipped;
    if (shipped) {
      slot_.assign(static_cast<std::size_t>(n_features), -1);
    } else {
      slot_ = hot.slots(intercept, hot_columns_);
      if (intercept) split_.bias_slot = 0;
    }
    split_.slot = slot_.data();
    last_gpu_model_stats.hot_columns = static_cast<std::int64_t>(hot_columns_.size());
    last_gpu_model_stats.hot_share = hot.hot_share(parameters.intercept_scaling);

    const RowTargets targets = RowTargets::from(parameters);
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const CsrView& x = chunks_[c];
      first_.push_back(static_cast<std::int64_t>(rows_.size()));
      const std::int64_t tau = cuda::wave_size(options.rows_in_flight, x.n_rows);
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        RowState r;
        r.target = targets.target(x.labels[row]);
        r.cost = targets.cost(r.target, x.weight(row));
        r.curvature = shipped ? row_squared_norm(x, row) + split_.bias_value * split_.bias_value
                              : cuda::cold_curvature(x, row, counts[c].data(), slot_.data(), tau);
        rows_.push_back(r);
      }
    }
    margin_.assign(rows_.size(), 0.0);
    weight_.assign(rows_.size(), 0.0);

    direction_.assign(rows_.size(), 0.0);
    product_.assign(rows_.size(), 0.0);
    v_.assign(static_cast<std::size_t>(n_features) + 1, 0.0);
    initialise(state, n_features);
  }

  // ---- sizes and state ----
  std::int64_t n_rows() const { return static_cast<std::int64_t>(rows_.size()); }
  std::size_t weight_count() const { return v_.size(); }
  std::size_t n_hot() const { return hot_columns_.size(); }
  bool first_rank() const { return true; }
  void allreduce_sum(double*, std::size_t) const {}
  std::vector<double> hot_weights() const {
    std::vector<double> w;
    for (const std::int32_t column : hot_columns_) w.push_back(v_[static_cast<std::size_t>(column)]);
    return w;
  }
  double squared_weight_norm() const {
    double sum = 0.0;
    for (const double value : v_) sum += value * value;
    return sum;
  }
  std::vector<double> copy_alpha() const {
    std::vector<double> alpha;
    for (const RowState& r : rows_) alpha.push_back(r.alpha);
    return alpha;
  }
  const std::vector<double>& weights() const { return v_; }
  std::vector<double> copy_weights() const { return v_; }
  void set_weights(const std::vector<double>& w) { v_ = w; }
  bool halve_rows_in_flight() {
    if (!options_.reduce_concurrency || rows_in_flight_ <= 1) return false;
    rows_in_flight_ /= 2;
    ++last_gpu_model_stats.halvings;
    return true;
  }
  // alpha = the best certificate's, v = w(alpha) (the guard's remedy).
  void restore_best_alpha() {
    std::fill(v_.begin(), v_.end(), 0.0);
    with_loss(parameters_.loss, parameters_.epsilon, 0.0, [&](const auto& loss) {
      using Loss = std::decay_t<decltype(loss)>;
      for_rows([&](const CsrView& x, std::int64_t row, RowState& r, std::size_t i) {
        r.alpha = r.cost > 0.0 ? best_alpha_[i] : 0.0;
        const double scale = r.alpha * Loss::coefficient(r.target);
        if (scale == 0.0) return;
        cuda::dual::scatter_all(x, row, scale, 0, 1, [&](std::int32_t j, double value) { v_[static_cast<std::size_t>(j)] += value; });
        v_.back() += scale * split_.bias_value;
      });
    });
  }
  // One worker: the driver never merges.
  void begin_round() {}
  void local_change(double, double*) { throw Unsupported("the host executor models one worker"); }
  void apply_change(double, const double*) { throw Unsupported("the host executor models one worker"); }
  void scale_alpha(double) { throw Unsupported("the host executor models one worker"); }

  // ---- the cold pass: R rows in flight, retired in a bounded-delay order ----
  template <typename Loss>
  void cold_pass(const Loss& loss, int epoch_index, double sigma) {
    const auto epoch = static_cast<std::uint64_t>(epoch_index);
    const cuda::FeistelPermutation chunk_order(chunks_.size(),
                                               cuda::permutation_key(parameters_.seed, 0, epoch, kChunkOrderKey));
    for (std::uint64_t position = 0; position < chunks_.size(); ++position) {
      const std::size_t c = static_cast<std::size_t>(chunk_order(position));
      const CsrView& x = chunks_[c];
      const cuda::FeistelPermutation order(static_cast<std::uint64_t>(x.n_rows),
                                           cuda::permutation_key(parameters_.seed, 0, epoch, c));
      chunk_pass(loss, c, order, sigma);
    }
  }

  // ---- the hot step's passes ----
  template <typename Loss>
  void margin_pass(const Loss& loss, HotSums& sums) {
    for_rows([&](const CsrView& x, std::int64_t row, RowState& r, std::size_t i) {
      margin_[i] = margin_of(x, row);
      const cuda::dual::EnvelopeTerms terms = cuda::dual::envelope_terms(loss, r, margin_[i]);
      weight_[i] = terms.curvature;
      const double alpha_scale = r.cost > 0.0 ? r.alpha * Loss::coefficient(r.target) : 0.0;
      for_hot(x, row, [&](std::int32_t s, double value) {
        sums.gradient[s] += terms.derivative * value;
        sums.of_alpha[s] += alpha_scale * value;
        sums.diagonal[s] += terms.curvature * value * value;
      });
    });
  }

  template <typename Loss>
  void hvp(const Loss&, const std::vector<double>& d, std::vector<double>& out) {
    for_rows([&](const CsrView& x, std::int64_t row, RowState& r, std::size_t i) {
      double dot = cuda::dual::partial_hot_dot(x, row, slot_.data(), 0, 1, [&](std::int32_t s) { return d[s]; });
      if (split_.bias_slot >= 0) dot += split_.bias_value * d[static_cast<std::size_t>(split_.bias_slot)];
      product_[i] = dot;
      const double scale = r.cost > 0.0 ? weight_[i] * dot : 0.0;
      if (scale != 0.0) for_hot(x, row, [&](std::int32_t s, double value) { out[s] += scale * value; });
    });
  }

  void accumulate_direction(double a) {
    for (std::size_t i = 0; i < rows_.size(); ++i) direction_[i] += a * product_[i];
  }

  template <typename Loss>
  LineTerms line(const Loss& loss, double t) const {
    LineTerms sum;
    for (std::size_t i = 0; i < rows_.size(); ++i)
      cuda::dual::add_line_terms(sum, cuda::dual::line_terms(loss, rows_[i], margin_[i], direction_[i], t));
    return sum;
  }

  void apply(double t, const std::vector<double>& weights) {
    for (std::size_t i = 0; i < rows_.size(); ++i) margin_[i] += t * direction_[i];
    discard_direction();
    for (std::size_t h = 0; h < hot_columns_.size(); ++h) v_[static_cast<std::size_t>(hot_columns_[h])] = weights[h];
  }
  void discard_direction() { std::fill(direction_.begin(), direction_.end(), 0.0); }

  template <typename Loss, typename Surrogate>
  RowSums row_sums(const Loss& loss, const Surrogate& surrogate) const {
    RowSums sum;
    for (std::size_t i = 0; i < rows_.size(); ++i)
      cuda::dual::add_row_sums(sum, cuda::dual::row_sums(loss, surrogate, rows_[i], margin_[i]));
    return sum;
  }

  // alpha^v (paired_alpha) of every row: the sums of the certified and the
  // stepping loss's dual values there, and w(alpha^v) added into `weights`.
  template <typename Loss, typename Surrogate>
  RowSums paired_pass(const Loss& loss, const Surrogate& surrogate, std::vector<double>& weights) {
    RowSums sum;
    paired_alpha_.assign(rows_.size(), 0.0);
    for_rows([&](const CsrView& x, std::int64_t row, RowState& r, std::size_t i) {
      if (!(r.cost > 0.0)) return;
      const double a = cuda::dual::paired_alpha(surrogate, r, margin_[i]);
      paired_alpha_[i] = a;
      sum.dual += loss.dual_value(r.target, a, r.cost);
      sum.surrogate_dual += surrogate.dual_value(r.target, a, r.cost);
      const double scale = a * Surrogate::coefficient(r.target);
      cuda::dual::scatter_all(x, row, scale, 0, 1,
                              [&](std::int32_t j, double value) { weights[static_cast<std::size_t>(j)] += value; });
      weights[static_cast<std::size_t>(split_.bias_index)] += scale * split_.bias_value;
    });
    return sum;
  }
  double weights_dot(const std::vector<double>& u) const {
    double sum = 0.0;
    for (std::size_t j = 0; j < v_.size(); ++j) sum += v_[j] * u[j];
    return sum;
  }
  const std::vector<std::int32_t>& hot_columns() const { return hot_columns_; }
  // The certified and the stepping loss's dual sums at (1 - theta) alpha + theta alpha^v.
  template <typename Loss, typename Surrogate>
  void mixed_dual(const Loss& loss, const Surrogate& surrogate, double theta, double* sums) const {
    sums[0] = sums[1] = 0.0;
    for (std::size_t i = 0; i < rows_.size(); ++i)
      cuda::dual::add_mixed_dual(loss, surrogate, rows_[i], paired_alpha_[i], theta, sums);
  }
  // The alpha of the best certificate so far: (1 - theta) alpha + theta alpha^v.
  void keep_alpha(double theta) {
    best_alpha_.resize(rows_.size());
    for (std::size_t i = 0; i < rows_.size(); ++i)
      best_alpha_[i] = (1.0 - theta) * rows_[i].alpha + theta * (paired_alpha_.empty() ? 0.0 : paired_alpha_[i]);
  }
  const std::vector<double>& best_alpha() const { return best_alpha_; }

 private:
  double margin_of(const CsrView& x, std::int64_t row) const {
    return cuda::dual::partial_row_margin(x, row, 0, 1, [&](std::int32_t j) { return v_[static_cast<std::size_t>(j)]; }) +
           split_.bias_value * v_[static_cast<std::size_t>(split_.bias_index)];
  }

  template <typename F>
  void for_hot(const CsrView& x, std::int64_t row, F&& f) const {
    cuda::dual::for_hot_entries(x, row, slot_.data(), 0, 1, f);
    if (split_.bias_slot >= 0) f(split_.bias_slot, split_.bias_value);
  }

  template <typename F>
  void for_rows(F&& f) {
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      for (std::int64_t row = 0; row < chunks_[c].n_rows; ++row) {
        const auto i = static_cast<std::size_t>(first_[c] + row);
        f(chunks_[c], row, rows_[i], i);
      }
  }

  // A row in flight: started (read v, stepped) and not yet retired (added its update).
  struct InFlight {
    std::int64_t row = 0;
    double scale = 0.0;
    std::int64_t started = 0;  // its position in the chunk's order
  };

  template <typename Loss>
  void chunk_pass(const Loss& loss, std::size_t c, const cuda::FeistelPermutation& order, double sigma) {
    const CsrView& x = chunks_[c];
    const std::int64_t capacity = cuda::wave_size(rows_in_flight_, x.n_rows);
    const bool shipped = options_.schedule == Schedule::Shipped;
    auto retire = [&](const InFlight& done) {
      if (done.scale == 0.0) return;
      auto add = [&](std::int32_t j, double value) { v_[static_cast<std::size_t>(j)] += value; };
      if (shipped) {
        cuda::dual::scatter_all(x, done.row, done.scale, 0, 1, add);
        v_[static_cast<std::size_t>(split_.bias_index)] += done.scale * split_.bias_value;
      } else {
        cuda::dual::scatter_cold(x, done.row, slot_.data(), done.scale, 0, 1, add);
      }
    };
    // Oldest first: a FIFO. Random: a uniform pick among those in flight (a pool
    // with swap-and-pop), the oldest when it has waited max_delay_factor R starts
    // (the FIFO of starts then finds it, skipping those already retired).
    const bool random = options_.retirement == Retirement::Random;
    std::deque<InFlight> fifo;
    std::vector<InFlight> pool;
    std::vector<std::int64_t> pool_index;  // by position: its index in pool, -1 once retired
    if (random) pool_index.assign(static_cast<std::size_t>(x.n_rows), -1);
    std::deque<std::int64_t> starts;
    const auto max_delay =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(options_.max_delay_factor * static_cast<double>(capacity)));
    for (std::int64_t position = 0; position < x.n_rows; ++position) {
      const std::size_t in_flight = random ? pool.size() : fifo.size();
      if (static_cast<std::int64_t>(in_flight) == capacity) {
        if (!random) {
          retire(fifo.front());
          fifo.pop_front();
        } else {
          while (pool_index[static_cast<std::size_t>(starts.front())] < 0) starts.pop_front();
          std::size_t pick = std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng_);
          if (position - starts.front() >= max_delay)
            pick = static_cast<std::size_t>(pool_index[static_cast<std::size_t>(starts.front())]);
          retire(pool[pick]);
          pool_index[static_cast<std::size_t>(pool[pick].started)] = -1;
          pool[pick] = pool.back();
          pool.pop_back();
          if (pick < pool.size()) pool_index[static_cast<std::size_t>(pool[pick].started)] = static_cast<std::int64_t>(pick);
        }
      }
      const auto row = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(position)));
      RowState& r = rows_[static_cast<std::size_t>(first_[c] + row)];
      const double scale = cuda::dual::cold_step(loss, r, margin_of(x, row), sigma);
      if (random) {
        pool_index[static_cast<std::size_t>(position)] = static_cast<std::int64_t>(pool.size());
        pool.push_back(InFlight{row, scale, position});
        starts.push_back(position);
      } else {
        fifo.push_back(InFlight{row, scale, position});
      }
    }
    for (const InFlight& done : fifo) retire(done);
    for (const InFlight& done : pool) retire(done);
  }

  // alpha from the warm start (dual_start.h), v = w(alpha).
  void initialise(SolverState& state, std::int32_t n_features) {
    const StartFrom start = warm_start_from(state, n_rows(), n_features);
    with_loss(parameters_.loss, parameters_.epsilon, 0.0, [&](const auto& loss) {
      using Loss = std::decay_t<decltype(loss)>;
      for_rows([&](const CsrView& x, std::int64_t row, RowState& r, std::size_t i) {
        if (!(r.cost > 0.0)) return;
        const double margin =
            start == StartFrom::Weights
                ? row_dot(x, row, state.weights.data()) + split_.bias_value * state.weights[static_cast<std::size_t>(n_features)]
                : 0.0;
        r.alpha = starting_alpha(loss, start, start == StartFrom::Alpha ? state.alpha[i] : 0.0, margin, r.target,
                                 r.cost);
        const double scale = r.alpha * Loss::coefficient(r.target);
        for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
          v_[static_cast<std::size_t>(x.col_indices[k])] += scale * static_cast<double>(x.values[k]);
        v_.back() += scale * split_.bias_value;
      });
    });
  }

  SolverParameters parameters_;
  GpuModelOptions options_;
  std::int64_t rows_in_flight_;
  std::mt19937_64 rng_;
  std::vector<CsrView> chunks_;
  std::vector<std::int64_t> first_;
  std::vector<RowState> rows_;
  std::vector<std::int32_t> slot_;
  std::vector<std::int32_t> hot_columns_;
  cuda::dual::ColumnSplit split_;
  std::vector<double> v_;
  std::vector<double> margin_, direction_, product_;
  std::vector<double> paired_alpha_, best_alpha_;
  std::vector<double> weight_;  // each row's envelope curvature at the margin pass (the products' D)
};

}  // namespace

FitResult fit_gpu_model(const Dataset& data, const SolverParameters& parameters, const GpuModelOptions& options,
                        SolverState& state) {
  last_gpu_model_stats = {};
  const auto started = std::chrono::steady_clock::now();
  {  // a resumed optimum, as SdcaGpuSolver::fit (warm_start_certificate.h)
    InMemorySource source(data);
    LocalCommunicator local;
    if (auto resumed = resumed_optimum(source, local, parameters, data.n_features(), state, 1, started)) return *resumed;
  }
  HostOps ops(data, parameters, options, state);
  // The shipped kernel stepped on the hinge itself.
  cuda::dual::ScheduleSettings settings = options.settings;
  if (options.schedule == Schedule::Shipped) settings.initial_gamma = 0.0;
  cuda::dual::HybridBackend<HostOps> backend(ops, parameters, settings);
  LocalCommunicator local;
  const FitResult result = run_cocoa_rounds(backend, local, 1, parameters, started);
  last_gpu_model_stats.counts = backend.counts();
  state.weights = ops.weights();
  state.alpha = ops.best_alpha();
  return result;
}

}  // namespace snapml::testing
