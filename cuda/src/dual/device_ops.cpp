#include "dual/device_ops.h"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "snapml/impl/cocoa_round.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/permutation.h"

namespace snapml::cuda::dual {
namespace {

std::vector<std::size_t> every_chunk(const detail::DeviceChunks& chunks) {
  std::vector<std::size_t> order(chunks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  return order;
}

// The RowState field alpha as a strided vector (cuBLAS increments).
constexpr std::int64_t kAlphaStride = sizeof(RowState) / sizeof(double);
static_assert(sizeof(RowState) == kAlphaStride * sizeof(double) && offsetof(RowState, alpha) == 0,
              "alpha is the first double of a packed RowState");

}  // namespace

DeviceOps::DeviceOps(std::vector<std::unique_ptr<Worker>>& workers, const SolverParameters& parameters,
                     Communicator& communicator, HotLayout hot, std::int32_t n_features, std::int64_t total_workers,
                     std::vector<double>& weights)
    : workers_(workers), parameters_(parameters), communicator_(communicator), hot_(std::move(hot)),
      n_features_(n_features), total_workers_(total_workers), weights_(weights) {}

std::int64_t DeviceOps::n_rows() const {
  std::int64_t rows = 0;
  for (const auto& worker : workers_) rows += worker->n_rows();
  return rows;
}

ColumnSplit DeviceOps::split(Worker& worker) const {
  ColumnSplit split;
  split.slot = worker.slot.data();
  split.bias_index = n_features_;
  split.bias_value = parameters_.intercept_scaling;
  split.bias_slot = hot_.bias_slot;
  return split;
}

// v is w on every worker between rounds: the first worker's is read.
std::vector<double> DeviceOps::hot_weights() {
  Worker& worker = *workers_.front();
  DeviceGuard guard(worker.resources.device_id());
  const std::vector<double> v = worker.v.to_host(worker.stream());
  std::vector<double> hot;
  for (const std::int32_t column : hot_.columns) hot.push_back(v[static_cast<std::size_t>(column)]);
  return hot;
}

double DeviceOps::squared_weight_norm() {
  Worker& worker = *workers_.front();
  DeviceGuard guard(worker.resources.device_id());
  double norm = 0.0;
  SNAPML_CUDA_CHECK(cublasDdot_64(worker.resources.cublas(), static_cast<std::int64_t>(weight_count()),
                                  worker.v.data(), 1, worker.v.data(), 1, &norm));
  return norm;
}

double DeviceOps::weights_dot(const std::vector<double>& u) {
  Worker& worker = *workers_.front();
  DeviceGuard guard(worker.resources.device_id());
  const std::vector<double> v = worker.v.to_host(worker.stream());
  double sum = 0.0;
  for (std::size_t j = 0; j < v.size(); ++j) sum += v[j] * u[j];
  return sum;
}

std::vector<double> DeviceOps::copy_alpha() {
  std::vector<double> alpha;
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    for (const RowState& row : worker->state.to_host(worker->stream())) alpha.push_back(row.alpha);
  }
  return alpha;
}

std::vector<double> DeviceOps::best_alpha() {
  std::vector<double> alpha;
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    const std::vector<double> part = worker->best.to_host(worker->stream());
    alpha.insert(alpha.end(), part.begin(), part.end());
  }
  return alpha;
}

std::vector<double> DeviceOps::copy_weights() {
  Worker& worker = *workers_.front();
  DeviceGuard guard(worker.resources.device_id());
  return worker.v.to_host(worker.stream());
}

void DeviceOps::set_weights(const std::vector<double>& w) {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    worker->v.copy_from_host(w.data(), w.size(), worker->stream());
  }
  if (total_workers_ > 1) weights_ = w;
}

bool DeviceOps::halve_rows_in_flight() {
  bool halved = false;
  for (auto& worker : workers_)
    for (std::int64_t& in_flight : worker->in_flight)
      if (in_flight > 1) {
        in_flight /= 2;
        halved = true;
      }
  return halved;
}

void DeviceOps::restore_best_alpha() {
  const LossSetup loss = setup_of_kind(parameters_.loss, parameters_.epsilon);
  std::vector<double> w(weight_count(), 0.0);
  for (auto& w_ptr : workers_) {
    Worker& worker = *w_ptr;
    DeviceGuard guard(worker.resources.device_id());
    if (worker.n_rows() > 0)
      SNAPML_CUDA_CHECK(cublasDcopy_64(worker.resources.cublas(), worker.n_rows(), worker.best.data(), 1,
                                       &worker.state.data()->alpha, kAlphaStride));
    worker.v.fill_bytes(0, worker.stream());
    const ColumnSplit columns = split(worker);
    worker.chunks.pass(every_chunk(worker.chunks), [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      launch_initialise(loss, x, nnz, worker.state.data() + worker.chunks.first_row(c), StartFrom::Alpha, nullptr,
                        columns, worker.v.data(), worker.stream());
    });
    const std::vector<double> part = worker.v.to_host(worker.stream());
    for (std::size_t j = 0; j < w.size(); ++j) w[j] += part[j];
  }
  communicator_.allreduce_sum(w.data(), w.size());
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    worker->v.copy_from_host(w.data(), w.size(), worker->stream());
  }
  if (total_workers_ > 1) weights_ = w;
}

// ---- CoCoA+ ----

void DeviceOps::begin_round() {
  for (auto& worker : workers_) {
    if (worker->n_rows() == 0) continue;
    DeviceGuard guard(worker->resources.device_id());
    SNAPML_CUDA_CHECK(cublasDcopy_64(worker->resources.cublas(), worker->n_rows(), &worker->state.data()->alpha,
                                     kAlphaStride, worker->round_alpha.data(), 1));
  }
}

// dw_k = (v_k - w) / sigma' summed over this process's workers in worker order.
void DeviceOps::local_change(double sigma, double* change) {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    const std::vector<double> local = worker->v.to_host(worker->stream());
    change[weights_.size()] += add_local_change(local.data(), weights_.data(), weights_.size(), sigma, change);
  }
}

void DeviceOps::apply_change(double gamma, const double* change) {
  for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += gamma * change[j];
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    worker->v.copy_from_host(weights_.data(), weights_.size(), worker->stream());
  }
}

// alpha = round_alpha + gamma (alpha - round_alpha).
void DeviceOps::scale_alpha(double gamma) {
  for (auto& worker : workers_) {
    if (worker->n_rows() == 0) continue;
    DeviceGuard guard(worker->resources.device_id());
    const double keep = 1.0 - gamma;
    double* alpha = &worker->state.data()->alpha;
    SNAPML_CUDA_CHECK(cublasDscal_64(worker->resources.cublas(), worker->n_rows(), &gamma, alpha, kAlphaStride));
    SNAPML_CUDA_CHECK(cublasDaxpy_64(worker->resources.cublas(), worker->n_rows(), &keep, worker->round_alpha.data(), 1,
                                     alpha, kAlphaStride));
  }
}

// ---- the passes ----

void DeviceOps::cold_pass(const LossSetup& loss, int epoch_index, double sigma) {
  const auto epoch = static_cast<std::uint64_t>(epoch_index);
  for (auto& w : workers_) {  // all devices at once: each queues, none waits
    Worker& worker = *w;
    DeviceGuard guard(worker.resources.device_id());
    const ColumnSplit columns = split(worker);
    const std::vector<std::size_t> order = epoch_chunk_order(worker, parameters_.seed, epoch_index);
    worker.chunks.pass(order, [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      const FeistelPermutation rows(static_cast<std::uint64_t>(x.n_rows),
                                    permutation_key(parameters_.seed, worker.id, epoch, c));
      launch_cold_pass(loss, x, nnz, worker.state.data() + worker.chunks.first_row(c), columns, worker.v.data(),
                       sigma, rows, worker.in_flight[c], worker.stream());
    });
  }
}

void DeviceOps::add_hot(Worker& worker, int index, std::vector<double>& into) {
  if (n_hot() == 0) return;
  const std::vector<double> part = worker.hot[index].to_host(worker.stream());
  for (std::size_t s = 0; s < part.size(); ++s) into[s] += part[s];
}

void DeviceOps::margin_pass(const LossSetup& loss, HotSums& sums) {
  for (auto& w : workers_) {
    Worker& worker = *w;
    DeviceGuard guard(worker.resources.device_id());
    for (int k = 0; k < 3; ++k) worker.hot[k].fill_bytes(0, worker.stream());
    const ColumnSplit columns = split(worker);
    worker.chunks.pass(every_chunk(worker.chunks), [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      launch_margin_pass(loss, x, nnz, worker.arrays(c), columns, slots(), worker.v.data(), worker.hot[0].data(),
                         worker.hot[1].data(), worker.hot[2].data(), worker.stream());
    });
  }
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    add_hot(*worker, 0, sums.gradient);
    add_hot(*worker, 1, sums.of_alpha);
    add_hot(*worker, 2, sums.diagonal);
  }
}

void DeviceOps::hvp(const std::vector<double>& d, std::vector<double>& out) {
  for (auto& w : workers_) {
    Worker& worker = *w;
    DeviceGuard guard(worker.resources.device_id());
    worker.hot[3].copy_from_host(d.data(), d.size(), worker.stream());
    worker.hot[0].fill_bytes(0, worker.stream());
    const ColumnSplit columns = split(worker);
    worker.chunks.pass(every_chunk(worker.chunks), [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      launch_hvp(x, nnz, worker.arrays(c), columns, slots(), worker.hot[3].data(), worker.hot[0].data(),
                 worker.stream());
    });
  }
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    add_hot(*worker, 0, out);
  }
}

void DeviceOps::accumulate_direction(double a) {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    launch_accumulate_direction(worker->n_rows(), worker->arrays(), a, worker->stream());
  }
}

void DeviceOps::apply(double t, const std::vector<double>& weights) {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    launch_apply_margins(worker->n_rows(), worker->arrays(), t, worker->stream());
    worker->hot[3].copy_from_host(weights.data(), weights.size(), worker->stream());
    launch_set_hot_weights(worker->v.data(), worker->columns.data(), worker->hot[3].data(),
                           static_cast<std::int32_t>(n_hot()), worker->stream());
  }
  if (total_workers_ > 1)
    for (std::size_t s = 0; s < hot_.columns.size(); ++s)
      weights_[static_cast<std::size_t>(hot_.columns[s])] = weights[s];
}

void DeviceOps::discard_direction() {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    launch_apply_margins(worker->n_rows(), worker->arrays(), 0.0, worker->stream());
  }
}

void DeviceOps::reduce(RowReduce kind, const LossSetup& loss, double t, double* sums) {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    launch_row_reduce(kind, loss, worker->n_rows(), worker->arrays(), t, worker->partials.data(), worker->stream());
  }
  for (int k = 0; k < kRowValues; ++k) sums[k] = 0.0;
  for (auto& worker : workers_) {  // in worker and block order: reproducible
    DeviceGuard guard(worker->resources.device_id());
    const std::vector<double> partials = worker->partials.to_host(worker->stream());
    for (int b = 0; b < kRowBlocks; ++b)
      for (int k = 0; k < kRowValues; ++k) sums[k] += partials[static_cast<std::size_t>(kRowValues * b + k)];
  }
}

RowSums DeviceOps::paired_pass(const LossSetup& loss, std::vector<double>& weights) {
  for (auto& w : workers_) {
    Worker& worker = *w;
    DeviceGuard guard(worker.resources.device_id());
    worker.paired_weights.fill_bytes(0, worker.stream());
    const ColumnSplit columns = split(worker);
    worker.chunks.pass(every_chunk(worker.chunks), [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      launch_paired_pass(loss, x, nnz, worker.arrays(c), columns, slots(), worker.columns.data(),
                         worker.paired_weights.data(), worker.partials.data() + c * kRowBlocks * kRowValues,
                         worker.stream());
    });
  }
  RowSums sums;
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    const std::vector<double> partials = worker->partials.to_host(worker->stream());
    for (std::size_t c = 0; c < worker->chunks.size(); ++c)
      for (int b = 0; b < kRowBlocks; ++b) {
        sums.dual += partials[c * kRowBlocks * kRowValues + 2 * static_cast<std::size_t>(b)];
        sums.surrogate_dual += partials[c * kRowBlocks * kRowValues + 2 * static_cast<std::size_t>(b) + 1];
      }
    const std::vector<double> part = worker->paired_weights.to_host(worker->stream());
    for (std::size_t j = 0; j < part.size(); ++j) weights[j] += part[j];
  }
  return sums;
}

void DeviceOps::keep_alpha(double theta) {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    launch_keep_alpha(worker->n_rows(), worker->arrays(), theta, worker->stream());
  }
}

}  // namespace snapml::cuda::dual
