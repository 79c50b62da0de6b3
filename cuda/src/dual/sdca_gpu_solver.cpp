// The GPU SDCA solver's host side: rows to devices, warm start, the CoCoA+ round,
// and the duality-gap certificate. The kernels are in sdca_gpu.cu.
//
// Each entry of device_ids is one CoCoA+ worker (Ma, Smith, Jaggi et al. 2015)
// owning a contiguous row range of this rank's data and its own copy v of w on
// its device. The round (v_k = w; H local TPA-SCD epochs on every worker, whose
// step sees sigma' * ||x_i||^2 and adds sigma' * delta * x_i to v_k; the
// aggregation with sigma' and gamma; the certificate) is run_cocoa_rounds's
// (snapml/impl/cocoa_round.h), the one the CPU solver runs; this solver is its
// RoundBackend. The workers of one process are summed on the host in worker
// order, then the Communicator sums the processes. With one worker v is w itself,
// stays on the device between epochs, and a round is one plain TPA-SCD epoch.
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

#include "../device/device_chunks.h"
#include "../device/gpu_session.h"
#include "sdca_gpu_kernels.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/permutation.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/impl/cocoa_round.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "../primal/tron_gpu.h"

namespace snapml::cuda {
namespace {

using detail::DeviceChunks;
using detail::DeviceRows;
using detail::GpuDevices;
using detail::UploadKey;
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

// One CoCoA+ worker: a device and its row range (resident or streamed chunks),
// both the session's (gpu_session.h), and the per-row state of every one of its
// rows for this problem.
struct Worker {
  explicit Worker(DeviceRows& device) : resources(device.resources), chunks(device.chunks) {}

  RowData rows(std::size_t chunk) {
    const auto first = static_cast<std::size_t>(chunks.first_row(chunk));
    return {target.data() + first, cost.data() + first, squared_norm.data() + first, alpha.data() + first};
  }
  std::int64_t n_rows() const { return chunks.n_rows(); }
  cudaStream_t stream() const { return resources.compute_stream(); }

  DeviceResources& resources;
  DeviceChunks& chunks;
  std::uint64_t id = 0;  // over all ranks: keys this worker's permutations
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

class SdcaGpuSolver final : public Solver, private RoundBackend {
 public:
  SdcaGpuSolver(const SolverParameters& parameters, std::shared_ptr<GpuDevices> devices)
      : parameters_(parameters), devices_(std::move(devices)) {
    validate(parameters_);
  }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  void prepare(ChunkSource& source, Communicator& communicator);
  // `upload`: the rows are not on the devices yet (else only their targets and
  // costs are read from the source).
  void prepare_resident(ChunkSource& source, bool upload);
  void prepare_streamed(ChunkSource& source, bool upload);
  void add_rows(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end);
  void add_targets(Worker& worker, const CsrView& x, std::int64_t begin, std::int64_t end);
  void allocate_state(Worker& worker);
  std::vector<std::size_t> epoch_order(const Worker& worker, int epoch_index) const;
  void initialise(SolverState& state, Communicator& communicator);
  void epoch(Worker& worker, const LossSetup& loss, double sigma, int epoch_index);

  // RoundBackend: this process's devices are CoCoA+ workers (cocoa_round.h).
  std::int64_t n_rows() const override;
  std::size_t weight_count() const override { return static_cast<std::size_t>(n_features_) + 1; }
  void begin_round() override;
  std::int64_t epoch(int epoch_index, EpochShare share, double sigma, double newton_tolerance) override;
  void local_change(double sigma, double* change) override;
  void apply_change(double gamma, const double* change) override;
  void scale_alpha(double gamma) override;
  ObjectiveSums objective_sums(int next_epoch) override;
  double squared_weight_norm() override;
  std::vector<double> copy_alpha() override { return download_alpha(); }

  WeightsView weights_view(Worker& worker) const {
    return {worker.weights.data(), n_features_, parameters_.intercept_scaling};
  }
  std::vector<double> download_alpha();

  SolverParameters parameters_;
  std::shared_ptr<GpuDevices> devices_;  // the session's devices and uploaded rows
  RowTargets targets_;
  std::int32_t n_features_ = 0;  // global: the largest over ranks
  std::int64_t total_workers_ = 1;
  std::vector<std::unique_ptr<Worker>> workers_;
  // w, the same on every rank: on the host only with several workers in all (the
  // round's aggregation); with one, w is the worker's v and stays on its device.
  std::vector<double> weights_;
  std::map<int, std::uint64_t> budgeted_bytes_;  // per device, against max_gpu_memory (resident rows)
};

void SdcaGpuSolver::prepare(ChunkSource& source, Communicator& communicator) {
  targets_ = RowTargets::from(parameters_);
  const std::vector<int>& device_ids = devices_->device_ids();
  std::int64_t sizes[2] = {source.n_features(), static_cast<std::int64_t>(device_ids.size())};
  communicator.allreduce_max(sizes, 2);
  n_features_ = static_cast<std::int32_t>(sizes[0]);
  total_workers_ = static_cast<std::int64_t>(device_ids.size());
  communicator.allreduce_sum(&total_workers_, 1);

  // The rows an earlier problem of the session uploaded from this source stay.
  const UploadKey key{&source, source.n_rows(), source.nnz(), source.n_chunks(), n_features_, total_workers_,
                      parameters_.max_gpu_memory};
  const bool upload = !devices_->holds(key);
  auto& devices = upload ? devices_->reset() : devices_->workers();
  workers_.clear();
  budgeted_bytes_.clear();
  for (std::size_t k = 0; k < devices.size(); ++k) {
    workers_.push_back(std::make_unique<Worker>(*devices[k]));
    workers_.back()->id = static_cast<std::uint64_t>(communicator.rank()) * static_cast<std::uint64_t>(sizes[1]) + k;
  }

  // One device and rows beyond the budget: stream (stream_plan.h). The totals
  // decide without a pass over the source: they sum the chunks' device bytes.
  const std::uint64_t budget = parameters_.max_gpu_memory;
  if (budget > 0 && workers_.size() == 1 &&
      resident_device_bytes(source.n_rows(), source.nnz(), source.n_chunks(), n_features_, total_workers_ > 1) >
          budget)
    prepare_streamed(source, upload);
  else
    prepare_resident(source, upload);
  for (auto& worker : workers_) allocate_state(*worker);
  if (upload) devices_->uploaded(key);
}

void SdcaGpuSolver::prepare_resident(ChunkSource& source, bool upload) {
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
      Worker& worker = *workers_[static_cast<std::size_t>(k)];
      if (begin >= end) continue;
      if (upload) add_rows(worker, x, begin, end);
      add_targets(worker, x, begin, end);
    }
    offset += x.n_rows;
  }
  require(offset == rows, "the chunk source returned " + std::to_string(offset) + " rows, not its n_rows() (" +
                              std::to_string(rows) + ")");
}

// Uploads rows [begin, end) of chunk x to the worker's device as one resident
// chunk. Labels and weights stay on the host: the kernels read the targets and
// costs add_targets computes (RowTargets, as the CPU does).
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
void SdcaGpuSolver::prepare_streamed(ChunkSource& source, bool upload) {
  Worker& worker = *workers_.front();
  std::vector<ChunkShape> shapes;
  detail::for_each_host_chunk(source, [&](const CsrView& x) {
    shapes.push_back({x.n_rows, x.nnz()});
    add_targets(worker, x, 0, x.n_rows);
  });
  const auto rows = static_cast<std::int64_t>(worker.host_target.size());
  require(rows == source.n_rows(), "the chunk source returned " + std::to_string(rows) +
                                       " rows, not its n_rows() (" + std::to_string(source.n_rows()) + ")");
  if (!upload) return;  // the session's ring and plan serve this problem too
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

std::int64_t SdcaGpuSolver::n_rows() const {
  std::int64_t rows = 0;
  for (const auto& worker : workers_) rows += worker->n_rows();
  return rows;
}

void SdcaGpuSolver::begin_round() {
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    if (worker->n_rows() > 0)
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(worker->round_alpha.data(), worker->alpha.data(), worker->alpha.bytes(),
                                        cudaMemcpyDeviceToDevice, worker->stream()));
  }
}

std::int64_t SdcaGpuSolver::epoch(int epoch_index, EpochShare share, double sigma, double newton_tolerance) {
  require(share.parts == 1, "the GPU solver runs whole epochs (rounds_per_epoch is 1)");
  const LossSetup loss{parameters_.loss, parameters_.epsilon, newton_tolerance};
  for (auto& worker : workers_) epoch(*worker, loss, sigma, epoch_index);  // all devices at once
  return n_rows();
}

// dw_k = (v_k - w) / sigma' summed over this process's workers in worker order.
void SdcaGpuSolver::local_change(double sigma, double* change) {
  for (auto& worker : workers_) {
    const std::vector<double> local = worker->weights.to_host(worker->stream());
    change[weights_.size()] += add_local_change(local.data(), weights_.data(), weights_.size(), sigma, change);
  }
}

void SdcaGpuSolver::apply_change(double gamma, const double* change) {
  for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += gamma * change[j];
  for (auto& worker : workers_) worker->weights.copy_from_host(weights_.data(), weights_.size(), worker->stream());
}

void SdcaGpuSolver::scale_alpha(double gamma) {
  for (auto& worker : workers_) {
    if (worker->n_rows() == 0) continue;
    DeviceGuard guard(worker->resources.device_id());
    // alpha = round_alpha + gamma (alpha - round_alpha).
    const std::int64_t n = worker->n_rows();
    const double keep = 1.0 - gamma;
    SNAPML_CUDA_CHECK(cublasDscal_64(worker->resources.cublas(), n, &gamma, worker->alpha.data(), 1));
    SNAPML_CUDA_CHECK(
        cublasDaxpy_64(worker->resources.cublas(), n, &keep, worker->round_alpha.data(), 1, worker->alpha.data(), 1));
  }
}

// The duality gap's sums at the w of the round's end: a pass of its own over the
// chunks (streamed ones upload again), ordered to end where epoch `next_epoch` begins.
ObjectiveSums SdcaGpuSolver::objective_sums(int next_epoch) {
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
  ObjectiveSums sums;  // sum of C_i loss, sum of dual values
  for (auto& worker : workers_) {
    const std::vector<double> host = worker->partials.to_host(worker->stream());
    const std::size_t used = worker->chunks.size() * 2 * detail::kObjectiveBlocks;
    for (std::size_t i = 0; i < used; i += 2) {
      sums.loss += host[i];
      sums.dual += host[i + 1];
    }
  }
  return sums;
}

// Every worker's v is w at the end of a round: reduced on the first worker's
// device, so one worker's w never leaves it between epochs.
double SdcaGpuSolver::squared_weight_norm() {
  Worker& worker = *workers_.front();
  DeviceGuard guard(worker.resources.device_id());
  double squared_norm = 0.0;
  SNAPML_CUDA_CHECK(cublasDdot_64(worker.resources.cublas(), static_cast<std::int64_t>(weight_count()),
                                  worker.weights.data(), 1, worker.weights.data(), 1, &squared_norm));
  return squared_norm;
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
  FitResult result = run_cocoa_rounds(*this, communicator, static_cast<int>(total_workers_), parameters_, started);
  state.weights = workers_.front()->weights.to_host(workers_.front()->stream());
  state.alpha = download_alpha();
  return result;
}

}  // namespace

namespace {

// The GPU's SolverSession (solver_factory.h): every problem's solver shares the
// session's devices and the rows uploaded to them; solver primal gets the GPU
// Newton solver (primal/tron_gpu.h), whose rows the session keeps apart (tiles
// with a transposed copy: not the SDCA solver's chunks).
class GpuSolverSession final : public SolverSession {
 public:
  explicit GpuSolverSession(std::shared_ptr<GpuDevices> devices) : devices_(std::move(devices)) {}
  std::unique_ptr<Solver> make(const SolverParameters& parameters) override {
    if (parameters.solver == SolverChoice::Primal)
      return detail::make_tron_gpu_solver(parameters, devices_->device_ids(), primal_rows_);
    require(parameters.penalty == Penalty::L2,
            "the GPU SDCA solver solves penalty L2 problems only; train penalty L1 on the CPU");
    return std::make_unique<SdcaGpuSolver>(parameters, devices_);
  }

 private:
  std::shared_ptr<GpuDevices> devices_;
  std::shared_ptr<detail::PrimalRowsCache> primal_rows_ = std::make_shared<detail::PrimalRowsCache>();
};

}  // namespace

std::unique_ptr<SolverSession> make_sdca_gpu_session(const std::vector<int>& device_ids) {
  std::vector<int> devices = device_ids.empty() ? std::vector<int>{0} : device_ids;
  for (const int device : devices) require_gpu(device);
  return std::make_unique<GpuSolverSession>(std::make_shared<GpuDevices>(std::move(devices)));
}

std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters& parameters,
                                             const std::vector<int>& device_ids) {
  return make_sdca_gpu_session(device_ids)->make(parameters);
}

}  // namespace snapml::cuda
