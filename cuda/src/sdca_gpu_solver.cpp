// The GPU SDCA solver's host side: rows to devices, warm start, the CoCoA+ round,
// and the duality-gap certificate. The kernels are in sdca_gpu.cu.
//
// Each entry of device_ids is one CoCoA+ worker (Ma, Smith, Jaggi et al. 2015)
// owning a contiguous row range of this rank's data and its own copy v of w on
// its device; with K workers over all devices and ranks, a round is
//   v_k = w;  H local TPA-SCD epochs on every worker (the step sees
//   sigma' * ||x_i||^2 and adds sigma' * delta * x_i to v_k);
//   w += gamma * allreduce_sum(sum_k (v_k - w) / sigma')
// with sigma' and gamma from the rule the CPU solver uses (snapml/cocoa.h; gamma < 1
// scales the round's alpha changes on every device, from round_alpha)
// exactly the round of the CPU solver (snapml/src/sdca_cpu.cpp), whose aggregation
// goes through the Communicator: the workers of one process are summed on the host
// in worker order, then the Communicator sums the processes. With one worker v is
// w itself and a round is one plain TPA-SCD epoch.
//
// The certificate is the CPU definition (objectives.h): per-row sums of C_i loss
// and of the dual values on the device in double (deterministic block partials),
// summed on the host, reduced over ranks, and combined with ||w||^2 by combine().
//
// Out of core (max_gpu_memory, docs/out-of-core.md "GPU"): with one device per
// process and data beyond the budget, the per-row state (target, cost, ||x_i||^2,
// alpha) and v stay resident for every row while the chunks stream through a
// ChunkRing (device_chunks.h); every pass (initialise, each epoch, each gap) goes
// over the chunks again, so the gap is a pass of its own: it needs the w the
// epoch ends with, which a pass fused with the epoch would not see. Several
// devices in one process keep their rows resident (refused beyond the budget).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "device_chunks.h"
#include "sdca_gpu_kernels.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/permutation.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/cocoa.h"
#include "snapml/error.h"
#include "snapml/objectives.h"

namespace snapml::cuda {
namespace {

using detail::DeviceChunks;
using detail::LossSetup;
using detail::RowData;
using detail::WeightsView;

static_assert(kObjectivePartialsBytes == 2 * detail::kObjectiveBlocks * sizeof(double),
              "stream_plan.h counts the objective partials the solver allocates");

// The chunk index permutation_key reserves for an epoch's chunk order (chunk c's
// rows use c): its (chunk + 1) term wraps to 0, which no real chunk gives.
constexpr std::uint64_t kChunkOrderKey = std::numeric_limits<std::uint64_t>::max();

std::string gibibytes(std::size_t bytes) {
  return std::to_string(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)).substr(0, 5) + " GiB";
}

// One CoCoA+ worker: a device, its row range (resident or streamed chunks) and
// the per-row state of every one of its rows.
struct Worker {
  explicit Worker(int device_id) : resources(device_id), chunks(resources) {}

  RowData rows(std::size_t chunk) {
    const auto first = static_cast<std::size_t>(chunks.first_row(chunk));
    return {target.data() + first, cost.data() + first, squared_norm.data() + first, alpha.data() + first};
  }
  std::int64_t n_rows() const { return chunks.n_rows(); }
  cudaStream_t stream() const { return resources.compute_stream(); }

  DeviceResources resources;
  std::uint64_t id = 0;  // over all ranks: keys this worker's permutations
  DeviceChunks chunks;   // after resources: its ring is freed while the streams live
  std::vector<double> host_target;  // filled while the chunks are first read
  std::vector<double> host_cost;
  DeviceBuffer<double> target;
  DeviceBuffer<double> cost;
  DeviceBuffer<double> squared_norm;
  DeviceBuffer<double> alpha;
  DeviceBuffer<double> round_alpha;  // alpha at the round's start; several workers only
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
  void prepare_resident(ChunkSource& source);
  void prepare_streamed(ChunkSource& source);
  void add_rows(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end);
  void add_targets(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end);
  void allocate_state(Worker& worker);
  std::vector<std::size_t> epoch_order(const Worker& worker, int epoch_index) const;
  void initialise(SolverState& state, Communicator& communicator);
  void epoch(Worker& worker, const LossSetup& loss, double sigma, int epoch_index);
  void aggregate(Communicator& communicator, CocoaAggregation& aggregation);
  Objectives objectives(Communicator& communicator, int next_epoch);
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
  std::map<int, std::uint64_t> budgeted_bytes_;  // per device, against max_gpu_memory (resident rows)
};

void SdcaGpuSolver::prepare(ChunkSource& source, Communicator& communicator) {
  targets_ = RowTargets::from(parameters_);
  std::int64_t sizes[2] = {source.n_features(), static_cast<std::int64_t>(device_ids_.size())};
  communicator.allreduce_max(sizes, 2);
  n_features_ = static_cast<std::int32_t>(sizes[0]);
  total_workers_ = static_cast<std::int64_t>(device_ids_.size());
  communicator.allreduce_sum(&total_workers_, 1);

  workers_.clear();
  budgeted_bytes_.clear();
  for (std::size_t k = 0; k < device_ids_.size(); ++k) {
    workers_.push_back(std::make_unique<Worker>(device_ids_[k]));
    workers_.back()->id = static_cast<std::uint64_t>(communicator.rank()) * static_cast<std::uint64_t>(sizes[1]) + k;
  }

  // One device and rows beyond the budget: stream (stream_plan.h). The totals
  // decide without a pass over the source: they sum the chunks' device bytes.
  const std::uint64_t budget = parameters_.max_gpu_memory;
  if (budget > 0 && workers_.size() == 1 &&
      resident_device_bytes(source.n_rows(), source.nnz(), source.n_chunks(), n_features_, total_workers_ > 1) >
          budget)
    prepare_streamed(source);
  else
    prepare_resident(source);
  for (auto& worker : workers_) allocate_state(*worker);
}

void SdcaGpuSolver::prepare_resident(ChunkSource& source) {
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

  const int device = worker.resources.device_id();
  DeviceGuard guard(device);
  const std::int64_t nnz = piece.n_rows > 0 ? piece.row_offsets[piece.n_rows] : 0;
  // Under a budget, the rows of every worker on this device, counted as
  // stream_plan.h counts them. Only a single device per process streams (one host
  // thread feeds one ring); several refuse what exceeds the budget.
  const std::uint64_t budget = parameters_.max_gpu_memory;
  if (budget > 0) {
    std::uint64_t& budgeted = budgeted_bytes_[device];
    if (worker.chunks.size() == 0) budgeted += device_memory_needs({}, n_features_).weight_bytes;
    budgeted += device_chunk_bytes({piece.n_rows, nnz}) +
                row_state_bytes(total_workers_ > 1) * static_cast<std::uint64_t>(piece.n_rows) +
                kObjectivePartialsBytes;
    if (budgeted > budget)
      throw Unsupported("max_gpu_memory " + std::to_string(budget) + " bytes: the rows of device " +
                        std::to_string(device) + " need more than that, and streaming rows through the GPU "
                        "is done for one device per process only; pass a single device id (--devices), or "
                        "raise max_gpu_memory so that each device's rows fit");
  }
  // Resident rows: refuse clearly what does not fit instead of failing inside
  // cudaMalloc. Per row: offsets 8 and the solver's per-row state.
  const auto needed = static_cast<std::size_t>(nnz) * 8 +
                      static_cast<std::size_t>(piece.n_rows) * (8 + row_state_bytes(total_workers_ > 1));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SNAPML_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed > free_bytes)
    throw Unsupported("the training rows for device " + std::to_string(device) + " need " + gibibytes(needed) +
                      " more but only " + gibibytes(free_bytes) +
                      " are free; set max_gpu_memory (snap-train --max-gpu-memory) below the free memory to "
                      "stream the rows through the GPU with one device, pass more device_ids, fewer rows, "
                      "or train on the CPU");
  worker.chunks.add_resident(piece);
  add_targets(worker, x, begin, end);
}

void SdcaGpuSolver::add_targets(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end) {
  for (std::int64_t row = begin; row < end; ++row) {
    const double y = targets_.target(x.labels[row]);
    worker.host_target.push_back(y);
    worker.host_cost.push_back(targets_.cost(y, x.weight(row)));
  }
}

// One device, rows beyond max_gpu_memory: one host pass for the chunks' shapes and
// the rows' targets and costs, then the plan (stream_plan.h) and the ring. The
// chunks themselves reach the device on the first pass (initialise).
void SdcaGpuSolver::prepare_streamed(ChunkSource& source) {
  Worker& worker = *workers_.front();
  std::vector<ChunkShape> shapes;
  detail::for_each_host_chunk(source, [&](const CsrView& x) {
    shapes.push_back({x.n_rows, x.nnz()});
    add_targets(worker, x, 0, x.n_rows);
  });
  const auto rows = static_cast<std::int64_t>(worker.host_target.size());
  require(rows == source.n_rows(), "the chunk source returned " + std::to_string(rows) +
                                       " rows, not its n_rows() (" + std::to_string(source.n_rows()) + ")");
  const DeviceMemoryPlan plan =
      plan_device_memory(device_memory_needs(shapes, n_features_, total_workers_ > 1), parameters_.max_gpu_memory);

  const int device = worker.resources.device_id();
  DeviceGuard guard(device);
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SNAPML_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (plan.device_bytes > free_bytes)
    throw Unsupported("max_gpu_memory allows " + gibibytes(plan.device_bytes) + " on device " +
                      std::to_string(device) + " but only " + gibibytes(free_bytes) +
                      " are free; lower max_gpu_memory below the free memory");
  worker.chunks.stream_from(source, n_features_, shapes, plan);
}

// The per-row state of every row of the worker, resident whatever the chunks do.
void SdcaGpuSolver::allocate_state(Worker& worker) {
  DeviceGuard guard(worker.resources.device_id());
  const auto rows = static_cast<std::size_t>(worker.n_rows());
  worker.target = DeviceBuffer<double>(rows);
  worker.cost = DeviceBuffer<double>(rows);
  worker.squared_norm = DeviceBuffer<double>(rows);
  worker.alpha = DeviceBuffer<double>(rows);
  if (total_workers_ > 1) worker.round_alpha = DeviceBuffer<double>(rows);
  worker.weights = DeviceBuffer<double>(static_cast<std::size_t>(n_features_) + 1);
  worker.partials = DeviceBuffer<double>(std::max<std::size_t>(worker.chunks.size(), 1) * 2 *
                                         detail::kObjectiveBlocks);
  worker.resources.upload(worker.target.data(), worker.host_target.data(), worker.target.bytes());
  worker.resources.upload(worker.cost.data(), worker.host_cost.data(), worker.cost.bytes());
  worker.host_target = {};
  worker.host_cost = {};
}

// The chunk order of an epoch: shuffled per (seed, worker, epoch) where the chunks
// allow it (device_chunks.h).
std::vector<std::size_t> SdcaGpuSolver::epoch_order(const Worker& worker, int epoch_index) const {
  return worker.chunks.epoch_order(
      permutation_key(parameters_.seed, worker.id, static_cast<std::uint64_t>(epoch_index), kChunkOrderKey));
}

// As the CPU solver's: given alpha (clipped), or the alpha the optimality conditions
// pair with given weights, or a cold start; then w = w(alpha) summed over workers.
void SdcaGpuSolver::initialise(SolverState& state, Communicator& communicator) {
  std::int64_t n_rows = 0;
  for (const auto& worker : workers_) n_rows += worker->n_rows();
  const StartFrom start = warm_start_from(state, n_rows, n_features_);
  const bool from_alpha = start == StartFrom::Alpha;
  const bool from_weights = start == StartFrom::Weights;
  const LossSetup loss{parameters_.loss, parameters_.epsilon, 0.0};
  const double bias_square = parameters_.intercept_scaling * parameters_.intercept_scaling;

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
    // The first pass: streamed chunks and those kept resident reach the device here.
    Worker& w = *worker;
    w.chunks.pass(w.chunks.order_before(epoch_order(w, 0)), [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      detail::launch_squared_norms(x, bias_square, w.squared_norm.data() + w.chunks.first_row(c), w.stream());
      detail::launch_initialise(loss, x, nnz, w.rows(c), start, start_weights.data(), weights_view(w), w.stream());
    });
    const std::vector<double> partial = worker->weights.to_host(worker->stream());  // waits
    for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += partial[j];
    first_row += worker->n_rows();
  }
  communicator.allreduce_sum(weights_.data(), weights_.size());
  for (auto& worker : workers_) worker->weights.copy_from_host(weights_.data(), weights_.size(), worker->stream());
}

void SdcaGpuSolver::epoch(Worker& worker, const LossSetup& loss, double sigma, int epoch_index) {
  DeviceGuard guard(worker.resources.device_id());
  const auto epoch = static_cast<std::uint64_t>(epoch_index);
  worker.chunks.pass(epoch_order(worker, epoch_index), [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
    const FeistelPermutation rows(static_cast<std::uint64_t>(x.n_rows),
                                  permutation_key(parameters_.seed, worker.id, epoch, c));
    detail::launch_epoch(loss, x, nnz, worker.rows(c), weights_view(worker), sigma, rows, worker.stream());
  });
}

// The end of a CoCoA+ round (the CPU solver's, with the workers of this process
// summed first). Leaves v = w on every worker.
void SdcaGpuSolver::aggregate(Communicator& communicator, CocoaAggregation& aggregation) {
  if (total_workers_ == 1) {
    weights_ = workers_.front()->weights.to_host(workers_.front()->stream());
    return;
  }
  // dw_k = (v_k - w) / sigma' summed over this process's workers in worker order;
  // the last slot carries sum_k ||dw_k||^2 for the aggregation rule (snapml/cocoa.h).
  const double sigma = aggregation.sigma();
  const std::size_t size = weights_.size();
  std::vector<double> change(size + 1, 0.0);
  for (auto& worker : workers_) {
    const std::vector<double> local = worker->weights.to_host(worker->stream());
    double own_square = 0.0;
    for (std::size_t j = 0; j < size; ++j) {
      const double dw = (local[j] - weights_[j]) / sigma;
      change[j] += dw;
      own_square += dw * dw;
    }
    change[size] += own_square;
  }
  communicator.allreduce_sum(change.data(), change.size());
  double square_of_sum = 0.0;
  for (std::size_t j = 0; j < size; ++j) square_of_sum += change[j] * change[j];
  const double gamma = aggregation.accept(change[size], square_of_sum);
  for (std::size_t j = 0; j < size; ++j) weights_[j] += gamma * change[j];
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    if (gamma < 1.0 && worker->n_rows() > 0) {
      // alpha = round_alpha + gamma (alpha - round_alpha): keeps w = w(alpha).
      const std::int64_t n = worker->n_rows();
      const double keep = 1.0 - gamma;
      SNAPML_CUDA_CHECK(cublasDscal_64(worker->resources.cublas(), n, &gamma, worker->alpha.data(), 1));
      SNAPML_CUDA_CHECK(
          cublasDaxpy_64(worker->resources.cublas(), n, &keep, worker->round_alpha.data(), 1, worker->alpha.data(), 1));
    }
    worker->weights.copy_from_host(weights_.data(), weights_.size(), worker->stream());
  }
}

// The duality gap at the w of the round's end: a pass of its own over the chunks
// (streamed ones upload again), ordered to end where epoch `next_epoch` begins.
Objectives SdcaGpuSolver::objectives(Communicator& communicator, int next_epoch) {
  const LossSetup loss{parameters_.loss, parameters_.epsilon, 0.0};
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    Worker& w = *worker;
    w.chunks.pass(w.chunks.order_before(epoch_order(w, next_epoch)),
                  [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
                    detail::launch_objective_sums(loss, x, nnz, w.rows(c), weights_view(w),
                                                  w.partials.data() + c * 2 * detail::kObjectiveBlocks, w.stream());
                  });
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

  CocoaAggregation aggregation(static_cast<int>(total_workers_), parameters_.adaptive_sigma);
  const int local_epochs = total_workers_ > 1 ? parameters_.local_epochs : 1;
  FitResult result;
  while (result.epochs < parameters_.max_epochs) {
    const double sigma = aggregation.sigma();
    if (total_workers_ > 1) {
      for (auto& worker : workers_) {
        DeviceGuard guard(worker->resources.device_id());
        if (worker->n_rows() > 0)
          SNAPML_CUDA_CHECK(cudaMemcpyAsync(worker->round_alpha.data(), worker->alpha.data(), worker->alpha.bytes(),
                                            cudaMemcpyDeviceToDevice, worker->stream()));
      }
    }
    for (int h = 0; h < local_epochs && result.epochs < parameters_.max_epochs; ++h) {
      // The CPU solver's (LIBLINEAR's) schedule for the logistic Newton tolerance.
      const LossSetup loss{parameters_.loss, parameters_.epsilon,
                           std::max(1e-11, 1e-2 * std::pow(0.1, result.epochs))};
      for (auto& worker : workers_) epoch(*worker, loss, sigma, result.epochs);  // all devices at once
      ++result.epochs;
    }
    aggregate(communicator, aggregation);
    const Objectives objectives = this->objectives(communicator, result.epochs);
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
