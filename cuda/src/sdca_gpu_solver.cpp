// The GPU SDCA solver's host side: rows to devices, warm start, the CoCoA+ round,
// and the duality-gap certificate. The kernels are in sdca_gpu.cu.
//
// Each entry of device_ids is one CoCoA+ worker (Ma, Smith, Jaggi et al. 2015)
// owning a contiguous row range of this rank's data and its own copy v of w on
// its device; with K workers over all devices and ranks, a round is
//   v_k = w;  H local TPA-SCD epochs on every worker (sigma' = K: the step sees
//   sigma' * ||x_i||^2 and adds sigma' * delta * x_i to v_k);
//   w += allreduce_sum(sum_k (v_k - w) / sigma')
// exactly the round of the CPU solver (snapml/src/sdca_cpu.cpp), whose aggregation
// goes through the Communicator: the workers of one process are summed on the host
// in worker order, then the Communicator sums the processes. With one worker v is
// w itself and a round is one plain TPA-SCD epoch.
//
// The certificate is the CPU definition (objectives.h): per-row sums of C_i loss
// and of the dual values on the device in double (deterministic block partials),
// summed on the host, reduced over ranks, and combined with ||w||^2 by combine().
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "sdca_gpu_kernels.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/error.h"
#include "snapml/objectives.h"

namespace snapml::cuda {
namespace {

using detail::LossSetup;
using detail::RowData;
using detail::WeightsView;

std::string gibibytes(std::size_t bytes) {
  return std::to_string(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)).substr(0, 5) + " GiB";
}

// One CoCoA+ worker: a device and its resident row range, in visiting order.
struct Worker {
  explicit Worker(int device_id) : resources(device_id) {}

  RowData rows(std::size_t chunk) {
    const auto first = static_cast<std::size_t>(chunk_first_row[chunk]);
    return {target.data() + first, cost.data() + first, squared_norm.data() + first, alpha.data() + first};
  }
  cudaStream_t stream() const { return resources.compute_stream(); }

  DeviceResources resources;
  std::uint64_t id = 0;  // over all ranks: keys this worker's permutations
  std::vector<DeviceCsr> chunks;
  std::vector<std::int64_t> chunk_first_row;  // of each chunk in the per-row arrays
  std::int64_t n_rows = 0;
  std::vector<double> host_target;  // filled while the chunks upload
  std::vector<double> host_cost;
  DeviceBuffer<double> target;
  DeviceBuffer<double> cost;
  DeviceBuffer<double> squared_norm;
  DeviceBuffer<double> alpha;
  DeviceBuffer<double> weights;   // v, n_features + 1
  DeviceBuffer<double> partials;  // 2 * kObjectiveBlocks per chunk
};

class SdcaGpuSolver final : public Solver {
 public:
  SdcaGpuSolver(const SolverParameters& parameters, std::vector<int> device_ids)
      : parameters_(parameters), device_ids_(std::move(device_ids)) {
    validate(parameters_);
  }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  void prepare(ChunkSource& source, Communicator& communicator);
  void add_rows(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end);
  void finish_upload(Worker& worker);
  void initialise(SolverState& state, Communicator& communicator);
  void epoch(Worker& worker, const LossSetup& loss, double sigma, int epoch_index);
  void aggregate(Communicator& communicator, double sigma);
  Objectives objectives(Communicator& communicator);
  WeightsView weights_view(Worker& worker) const {
    return {worker.weights.data(), n_features_, parameters_.intercept_scaling};
  }
  std::vector<double> download_alpha();

  SolverParameters parameters_;
  std::vector<int> device_ids_;
  RowTargets targets_;
  std::int32_t n_features_ = 0;  // global: the largest over ranks
  std::int64_t total_workers_ = 1;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<double> weights_;  // w, the same on every rank
};

void SdcaGpuSolver::prepare(ChunkSource& source, Communicator& communicator) {
  targets_ = RowTargets::from(parameters_);
  std::int64_t sizes[2] = {source.n_features(), static_cast<std::int64_t>(device_ids_.size())};
  communicator.allreduce_max(sizes, 2);
  n_features_ = static_cast<std::int32_t>(sizes[0]);
  total_workers_ = static_cast<std::int64_t>(device_ids_.size());
  communicator.allreduce_sum(&total_workers_, 1);

  workers_.clear();
  for (std::size_t k = 0; k < device_ids_.size(); ++k) {
    workers_.push_back(std::make_unique<Worker>(device_ids_[k]));
    workers_.back()->id = static_cast<std::uint64_t>(communicator.rank()) * static_cast<std::uint64_t>(sizes[1]) + k;
  }

  // Worker k owns rows [rows * k / K, rows * (k + 1) / K) of the visiting order; a
  // chunk that straddles a boundary is cut there.
  const std::int64_t rows = source.n_rows();
  const auto count = static_cast<std::int64_t>(workers_.size());
  auto boundary = [&](std::int64_t k) { return rows / count * k + rows % count * k / count; };
  std::int64_t offset = 0;
  CsrView x;
  source.reset();
  while (source.next(x)) {
    require(offset + x.n_rows <= rows, "the chunk source returned more rows than its n_rows() (" +
                                           std::to_string(rows) + ")");
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t begin = std::max(boundary(k), offset) - offset;
      const std::int64_t end = std::min(boundary(k + 1), offset + x.n_rows) - offset;
      if (begin < end) add_rows(*workers_[static_cast<std::size_t>(k)], x, begin, end);
    }
    offset += x.n_rows;
  }
  require(offset == rows, "the chunk source returned " + std::to_string(offset) + " rows, not its n_rows() (" +
                              std::to_string(rows) + ")");
  for (auto& worker : workers_) finish_upload(*worker);
}

// Uploads rows [begin, end) of chunk x to the worker's device as one resident chunk,
// and records their targets and costs. Labels and weights stay on the host: the
// kernels read the targets and costs computed here (RowTargets, as the CPU does).
void SdcaGpuSolver::add_rows(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end) {
  CsrView piece = x;
  piece.n_rows = end - begin;
  piece.n_features = n_features_;
  piece.first_row = x.first_row + begin;
  piece.labels = nullptr;
  piece.weights = nullptr;
  std::vector<std::int64_t> rebased;  // offsets of a piece that starts inside the chunk
  if (begin > 0) {
    const std::int64_t base = x.row_offsets[begin];
    rebased.resize(static_cast<std::size_t>(piece.n_rows) + 1);
    for (std::int64_t r = 0; r <= piece.n_rows; ++r)
      rebased[static_cast<std::size_t>(r)] = x.row_offsets[begin + r] - base;
    piece.row_offsets = rebased.data();
    piece.col_indices = x.col_indices + base;
    piece.values = x.values + base;
  }

  // Resident data only (docs/gpu.md): refuse clearly what does not fit instead of
  // failing inside cudaMalloc. Per row: offsets 8 and the solver's 4 doubles.
  const int device = worker.resources.device_id();
  DeviceGuard guard(device);
  const std::int64_t nnz = piece.n_rows > 0 ? piece.row_offsets[piece.n_rows] : 0;
  const auto needed = static_cast<std::size_t>(nnz) * 8 + static_cast<std::size_t>(piece.n_rows) * 40;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SNAPML_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes)
    throw Unsupported("the training rows for device " + std::to_string(device) + " need " + gibibytes(needed) +
                      " more but only " + gibibytes(free_bytes) +
                      " are free; the GPU solver keeps its rows resident: pass more device_ids, fewer "
                      "rows, or train on the CPU");
  worker.chunk_first_row.push_back(worker.n_rows);
  worker.chunks.emplace_back(piece, worker.resources);
  for (std::int64_t row = begin; row < end; ++row) {
    const double y = targets_.target(x.labels[row]);
    worker.host_target.push_back(y);
    worker.host_cost.push_back(targets_.cost(y, x.weight(row)));
  }
  worker.n_rows += piece.n_rows;
}

void SdcaGpuSolver::finish_upload(Worker& worker) {
  DeviceGuard guard(worker.resources.device_id());
  const auto rows = static_cast<std::size_t>(worker.n_rows);
  worker.target = DeviceBuffer<double>(rows);
  worker.cost = DeviceBuffer<double>(rows);
  worker.squared_norm = DeviceBuffer<double>(rows);
  worker.alpha = DeviceBuffer<double>(rows);
  worker.weights = DeviceBuffer<double>(static_cast<std::size_t>(n_features_) + 1);
  worker.partials = DeviceBuffer<double>(std::max<std::size_t>(worker.chunks.size(), 1) * 2 *
                                         detail::kObjectiveBlocks);
  worker.resources.upload(worker.target.data(), worker.host_target.data(), worker.target.bytes());
  worker.resources.upload(worker.cost.data(), worker.host_cost.data(), worker.cost.bytes());
  const double bias_square = parameters_.intercept_scaling * parameters_.intercept_scaling;
  for (std::size_t c = 0; c < worker.chunks.size(); ++c)
    detail::launch_squared_norms(worker.chunks[c].view(), bias_square,
                                 worker.squared_norm.data() + worker.chunk_first_row[c], worker.stream());
  worker.host_target = {};
  worker.host_cost = {};
}

// As the CPU solver's: given alpha (clipped), or the alpha the optimality conditions
// pair with given weights, or a cold start; then w = w(alpha) summed over workers.
void SdcaGpuSolver::initialise(SolverState& state, Communicator& communicator) {
  std::int64_t n_rows = 0;
  for (const auto& worker : workers_) n_rows += worker->n_rows;
  const StartFrom start = warm_start_from(state, n_rows, n_features_);
  const bool from_alpha = start == StartFrom::Alpha;
  const bool from_weights = start == StartFrom::Weights;
  const LossSetup loss{parameters_.loss, parameters_.epsilon, 0.0};

  weights_.assign(static_cast<std::size_t>(n_features_) + 1, 0.0);
  std::int64_t first_row = 0;
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    worker->weights.fill_bytes(0, worker->stream());
    if (from_alpha)
      worker->alpha.copy_from_host(state.alpha.data() + first_row, worker->alpha.size(), worker->stream());
    DeviceBuffer<double> start_weights;
    if (from_weights) {
      start_weights = DeviceBuffer<double>(state.weights.size());
      start_weights.copy_from_host(state.weights.data(), state.weights.size(), worker->stream());
    }
    for (std::size_t c = 0; c < worker->chunks.size(); ++c)
      detail::launch_initialise(loss, worker->chunks[c].view(), worker->chunks[c].nnz(), worker->rows(c), start,
                                start_weights.data(), weights_view(*worker), worker->stream());
    const std::vector<double> partial = worker->weights.to_host(worker->stream());  // waits
    for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += partial[j];
    first_row += worker->n_rows;
  }
  communicator.allreduce_sum(weights_.data(), weights_.size());
  for (auto& worker : workers_) worker->weights.copy_from_host(weights_.data(), weights_.size(), worker->stream());
}

void SdcaGpuSolver::epoch(Worker& worker, const LossSetup& loss, double sigma, int epoch_index) {
  DeviceGuard guard(worker.resources.device_id());
  for (std::size_t c = 0; c < worker.chunks.size(); ++c) {
    const DeviceCsr& chunk = worker.chunks[c];
    const FeistelPermutation order(static_cast<std::uint64_t>(chunk.n_rows()),
                                   permutation_key(parameters_.seed, worker.id,
                                                   static_cast<std::uint64_t>(epoch_index), c));
    detail::launch_epoch(loss, chunk.view(), chunk.nnz(), worker.rows(c), weights_view(worker), sigma, order,
                         worker.stream());
  }
}

// The end of a CoCoA+ round (the CPU solver's, with the workers of this process
// summed first). Leaves v = w on every worker.
void SdcaGpuSolver::aggregate(Communicator& communicator, double sigma) {
  if (total_workers_ == 1) {
    weights_ = workers_.front()->weights.to_host(workers_.front()->stream());
    return;
  }
  std::vector<double> change(weights_.size(), 0.0);
  for (auto& worker : workers_) {
    const std::vector<double> local = worker->weights.to_host(worker->stream());
    for (std::size_t j = 0; j < change.size(); ++j) change[j] += (local[j] - weights_[j]) / sigma;
  }
  communicator.allreduce_sum(change.data(), change.size());
  for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += change[j];
  for (auto& worker : workers_) worker->weights.copy_from_host(weights_.data(), weights_.size(), worker->stream());
}

Objectives SdcaGpuSolver::objectives(Communicator& communicator) {
  const LossSetup loss{parameters_.loss, parameters_.epsilon, 0.0};
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    for (std::size_t c = 0; c < worker->chunks.size(); ++c)
      detail::launch_objective_sums(loss, worker->chunks[c].view(), worker->chunks[c].nnz(), worker->rows(c),
                                    weights_view(*worker),
                                    worker->partials.data() + c * 2 * detail::kObjectiveBlocks, worker->stream());
  }
  double partial[2] = {0.0, 0.0};  // sum of C_i loss, sum of dual values
  for (auto& worker : workers_) {
    const std::vector<double> host = worker->partials.to_host(worker->stream());
    const std::size_t used = worker->chunks.size() * 2 * detail::kObjectiveBlocks;
    for (std::size_t i = 0; i < used; i += 2) {
      partial[0] += host[i];
      partial[1] += host[i + 1];
    }
  }
  communicator.allreduce_sum(partial, 2);
  ObjectiveSums sums;
  sums.loss = partial[0];
  sums.dual = partial[1];
  return combine(sums, weights_.data(), static_cast<std::int64_t>(weights_.size()));
}

std::vector<double> SdcaGpuSolver::download_alpha() {
  std::vector<double> alpha;
  for (auto& worker : workers_) {
    const std::vector<double> part = worker->alpha.to_host(worker->stream());
    alpha.insert(alpha.end(), part.begin(), part.end());
  }
  return alpha;
}

FitResult SdcaGpuSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  const auto started = std::chrono::steady_clock::now();
  prepare(source, communicator);
  initialise(state, communicator);

  const double sigma = static_cast<double>(total_workers_);  // sigma' = gamma * K, gamma = 1
  const int local_epochs = total_workers_ > 1 ? parameters_.local_epochs : 1;
  FitResult result;
  while (result.epochs < parameters_.max_epochs) {
    for (int h = 0; h < local_epochs && result.epochs < parameters_.max_epochs; ++h) {
      // The CPU solver's (LIBLINEAR's) schedule for the logistic Newton tolerance.
      const LossSetup loss{parameters_.loss, parameters_.epsilon,
                           std::max(1e-11, 1e-2 * std::pow(0.1, result.epochs))};
      for (auto& worker : workers_) epoch(*worker, loss, sigma, result.epochs);  // all devices at once
      ++result.epochs;
    }
    aggregate(communicator, sigma);
    const Objectives objectives = this->objectives(communicator);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (record_round(result, objectives, seconds, parameters_)) break;
  }
  state.weights = weights_;
  state.alpha = download_alpha();
  return result;
}

}  // namespace

std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters& parameters,
                                             const std::vector<int>& device_ids) {
  require(parameters.penalty == Penalty::L2,
          "the GPU SDCA solver solves penalty L2 problems only; train penalty L1 on the CPU");
  std::vector<int> devices = device_ids.empty() ? std::vector<int>{0} : device_ids;
  for (const int device : devices) require_gpu(device);
  return std::make_unique<SdcaGpuSolver>(parameters, std::move(devices));
}

}  // namespace snapml::cuda
