// The GPU dual solver's host side: rows to devices, the hot and cold columns, the
// warm start, and the fit. The schedule of its epoch and certificate is
// cuda/src/dual/hybrid_backend.h (the one the host executor runs in CI), its
// passes cuda/src/dual/device_ops.cpp, its kernels cuda/src/dual/*.cu;
// cuda/include/snapml/cuda/epoch_schedule.h and docs/gpu.md ("Schedule") say why.
//
// Each entry of device_ids is one CoCoA+ worker (Ma, Smith, Jaggi et al. 2015)
// owning a contiguous row range of this rank's data and its own copy v of w on
// its device; the round is run_cocoa_rounds's (snapml/cocoa_round.h), the one the
// CPU solver runs, with the schedule as its RoundBackend. With one worker v is w
// itself and stays on the device between epochs.
//
// The hot columns: a column in more than about n / R of some chunk's n rows (R the
// rows the chunk's cold pass keeps in flight, cold_pass_rows_in_flight), and the
// intercept. Counted on the host while the rows are first read, per device chunk
// (a worker's piece of a source chunk), reduced over ranks so that every rank
// numbers the same slots; a second host pass gives each row its cold curvature
// with the ESO factors of its device chunk (epoch_schedule.h, cold_curvature).
//
// Out of core (max_gpu_memory, docs/out-of-core.md "GPU"): with one device per
// process and data beyond the budget, the per-row state and v stay resident for
// every row while the chunks stream through a ChunkRing (device_chunks.h); every
// pass goes over the chunks again. Several devices in one process keep their rows
// resident (refused beyond the budget).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "dual/device_ops.h"
#include "dual/sdca_gpu_solver.h"
#include "dual/hybrid_backend.h"
#include "dual/worker.h"
#include "device/gpu_devices.h"
#include "snapml/impl/cocoa_round.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/epoch_schedule.h"
#include "snapml/cuda/gpu_session.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/impl/warm_start_certificate.h"

namespace snapml::cuda {
namespace {

using detail::DeviceRows;
using detail::GpuDevices;
using detail::UploadKey;
using dual::HotLayout;
using dual::LossSetup;
using dual::RowState;
using dual::Worker;

static_assert(kObjectivePartialsBytes == dual::kRowBlocks * dual::kRowValues * sizeof(double),
              "stream_plan.h counts the partials the solver allocates");
static_assert(kRowStateBytes == sizeof(RowState) + 6 * sizeof(double),
              "stream_plan.h counts the per-row state the solver allocates");

// Hot slots summed in a block's shared memory (hot_passes.cu): three arrays of
// them in the margin pass, 24 KiB.
constexpr std::int32_t kSharedSlots = 1024;

std::string gibibytes(std::size_t bytes) {
  return std::to_string(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0)).substr(0, 5) + " GiB";
}

// Rows [begin, end) of x as a view of their own (offsets rebased into `rebased`).
CsrView piece_of(const CsrView& x, std::int64_t begin, std::int64_t end, std::vector<std::int64_t>& rebased) {
  CsrView piece = x;
  piece.n_rows = end - begin;
  piece.first_row = x.first_row + begin;
  if (begin == 0) return piece;
  const std::int64_t base = x.row_offsets[begin];
  rebased.resize(static_cast<std::size_t>(piece.n_rows) + 1);
  for (std::int64_t r = 0; r <= piece.n_rows; ++r) rebased[static_cast<std::size_t>(r)] = x.row_offsets[begin + r] - base;
  piece.row_offsets = rebased.data();
  piece.col_indices = x.col_indices + base;
  piece.values = x.values + base;
  if (x.labels != nullptr) piece.labels = x.labels + begin;
  if (x.weights != nullptr) piece.weights = x.weights + begin;
  return piece;
}

class SdcaGpuSolver final : public Solver {
 public:
  SdcaGpuSolver(const SolverParameters& parameters, std::shared_ptr<GpuDevices> devices)
      : parameters_(parameters), devices_(std::move(devices)) {
    validate(parameters_);
  }
  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  // Calls visit(worker, piece) for every device chunk in order: each source chunk
  // cut at the workers' row boundaries (one worker streaming: the chunks).
  void for_each_piece(ChunkSource& source, const std::function<void(std::size_t, const CsrView&)>& visit);
  void prepare(ChunkSource& source, Communicator& communicator);
  void prepare_streamed(ChunkSource& source, bool upload);
  void add_rows(Worker& worker, const CsrView& piece);
  void count_columns(Worker& worker, const CsrView& piece);
  void split_columns(ChunkSource& source, Communicator& communicator);
  void allocate_state(Worker& worker);
  void initialise(SolverState& state, Communicator& communicator);
  std::int64_t rows_in_flight(Worker& worker, const CsrView& piece);

  SolverParameters parameters_;
  std::shared_ptr<GpuDevices> devices_;  // the session's devices and uploaded rows
  RowTargets targets_;
  std::int32_t n_features_ = 0;  // global: the largest over ranks
  std::int64_t total_workers_ = 1;
  bool streams_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  // w, the same on every rank: on the host only with several workers in all (the
  // round's aggregation); with one, w is the worker's v and stays on its device.
  std::vector<double> weights_;
  std::map<int, std::uint64_t> budgeted_bytes_;  // per device, against max_gpu_memory (resident rows)
  std::map<std::pair<int, int>, std::int64_t> capacity_;  // (device, threads) -> cold-pass blocks resident
  std::unique_ptr<HotColumnSet> hot_set_;
  HotLayout hot_;
};

void SdcaGpuSolver::for_each_piece(ChunkSource& source,
                                   const std::function<void(std::size_t, const CsrView&)>& visit) {
  // Worker k owns rows [rows * k / K, rows * (k + 1) / K) of the visiting order.
  const std::int64_t rows = source.n_rows();
  const auto count = static_cast<std::int64_t>(workers_.size());
  auto boundary = [&](std::int64_t k) { return rows / count * k + rows % count * k / count; };
  std::int64_t offset = 0;
  std::vector<std::int64_t> rebased;
  detail::for_each_host_chunk(source, [&](const CsrView& x) {
    require(offset + x.n_rows <= rows, "the chunk source returned more rows than its n_rows() (" +
                                           std::to_string(rows) + ")");
    for (std::int64_t k = 0; k < count; ++k) {
      const std::int64_t begin = std::max(boundary(k), offset) - offset;
      const std::int64_t end = std::min(boundary(k + 1), offset + x.n_rows) - offset;
      if (begin < end) visit(static_cast<std::size_t>(k), piece_of(x, begin, end, rebased));
    }
    offset += x.n_rows;
  });
  require(offset == rows, "the chunk source returned " + std::to_string(offset) + " rows, not its n_rows() (" +
                              std::to_string(rows) + ")");
}

void SdcaGpuSolver::prepare(ChunkSource& source, Communicator& communicator) {
  targets_ = RowTargets::from(parameters_);
  const std::vector<int>& device_ids = devices_->device_ids();
  std::int64_t sizes[2] = {source.n_features(), static_cast<std::int64_t>(device_ids.size())};
  communicator.allreduce_max(sizes, 2);
  n_features_ = static_cast<std::int32_t>(sizes[0]);
  total_workers_ = static_cast<std::int64_t>(device_ids.size());
  communicator.allreduce_sum(&total_workers_, 1);

  // The rows an earlier problem of the session uploaded from this source stay.
  const UploadKey key{source.identity(), source.n_rows(), source.nnz(), source.n_chunks(), n_features_, total_workers_,
                      parameters_.max_gpu_memory};
  const bool upload = !devices_->holds(key);
  auto& devices = upload ? devices_->reset() : devices_->workers();
  workers_.clear();
  budgeted_bytes_.clear();
  for (std::size_t k = 0; k < devices.size(); ++k) {
    workers_.push_back(std::make_unique<Worker>(*devices[k]));
    workers_.back()->id = static_cast<std::uint64_t>(communicator.rank()) * static_cast<std::uint64_t>(sizes[1]) + k;
  }
  hot_set_ = std::make_unique<HotColumnSet>(n_features_);

  // One device and rows beyond the budget: stream (stream_plan.h). The totals
  // decide without a pass over the source: they sum the chunks' device bytes.
  const std::uint64_t budget = parameters_.max_gpu_memory;
  streams_ = budget > 0 && workers_.size() == 1 &&
             resident_device_bytes(source.n_rows(), source.nnz(), source.n_chunks(), n_features_,
                                   total_workers_ > 1) > budget;
  if (streams_) {
    prepare_streamed(source, upload);
  } else {
    for_each_piece(source, [&](std::size_t k, const CsrView& piece) {
      Worker& worker = *workers_[k];
      if (upload) add_rows(worker, piece);
      count_columns(worker, piece);
    });
  }
  if (upload) devices_->uploaded(key);
  split_columns(source, communicator);
  for (auto& worker : workers_) allocate_state(*worker);
}

// The rows' targets and costs (RowTargets, as the CPU does), and the piece's
// columns counted into the hot set at its chunk's R.
void SdcaGpuSolver::count_columns(Worker& worker, const CsrView& piece) {
  for (std::int64_t row = 0; row < piece.n_rows; ++row) {
    RowState r;
    r.target = targets_.target(piece.labels[row]);
    r.cost = targets_.cost(r.target, piece.weight(row));
    worker.host_rows.push_back(r);
  }
  CsrView x = piece;
  x.n_features = n_features_;
  const std::int64_t in_flight = rows_in_flight(worker, x);
  worker.in_flight.push_back(in_flight);
  hot_set_->add(x, column_rows(x), in_flight);
}

// R of a chunk: the cold pass's resident blocks on the worker's device for the
// chunk's block size, shared with the other workers on that device.
std::int64_t SdcaGpuSolver::rows_in_flight(Worker& worker, const CsrView& piece) {
  const int device = worker.resources.device_id();
  const int threads = dual::chunk_threads(piece.n_rows, piece.nnz());
  auto found = capacity_.find({device, threads});
  if (found == capacity_.end()) {
    DeviceGuard guard(device);
    const LossSetup loss = dual::setup_of_kind(parameters_.loss, parameters_.epsilon);
    found = capacity_.emplace(std::make_pair(device, threads), dual::cold_pass_rows_in_flight(loss, threads)).first;
  }
  const auto sharing = std::count(devices_->device_ids().begin(), devices_->device_ids().end(), device);
  return std::max<std::int64_t>(1, found->second / std::max<std::int64_t>(1, sharing));
}

// Uploads a piece of a source chunk to the worker's device as one resident chunk.
// Labels and weights stay on the host: the kernels read the targets and costs
// count_columns computes.
void SdcaGpuSolver::add_rows(Worker& worker, const CsrView& host_piece) {
  CsrView piece = host_piece;
  piece.n_features = n_features_;
  piece.labels = nullptr;
  piece.weights = nullptr;
  const int device = worker.resources.device_id();
  DeviceGuard guard(device);
  const std::int64_t nnz = piece.nnz();
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

// One device, rows beyond max_gpu_memory: one host pass for the chunks' shapes and
// the rows' targets, costs and column counts, then the plan (stream_plan.h) and the
// ring. The chunks themselves reach the device on the first pass (initialise).
void SdcaGpuSolver::prepare_streamed(ChunkSource& source, bool upload) {
  Worker& worker = *workers_.front();
  std::vector<ChunkShape> shapes;
  detail::for_each_host_chunk(source, [&](const CsrView& x) {
    shapes.push_back({x.n_rows, x.nnz()});
    count_columns(worker, x);
  });
  const auto rows = static_cast<std::int64_t>(worker.host_rows.size());
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

// The hot set over every rank's rows (marks by maximum, counts by sum), its slots,
// and each row's cold curvature from a second host pass.
void SdcaGpuSolver::split_columns(ChunkSource& source, Communicator& communicator) {
  std::vector<std::int64_t> marks = hot_set_->marks();
  std::vector<std::int64_t> counts = hot_set_->counts();
  communicator.allreduce_max(marks.data(), marks.size());
  communicator.allreduce_sum(counts.data(), counts.size());
  hot_set_->assign(marks, counts);
  const bool intercept = parameters_.intercept_scaling != 0.0;
  std::vector<std::int32_t> slot = hot_set_->slots(intercept, hot_.columns);
  hot_.bias_slot = intercept ? 0 : -1;
  hot_.shared_slots = std::min<std::int32_t>(static_cast<std::int32_t>(hot_.columns.size()), kSharedSlots);
  hot_set_.reset();
  std::vector<std::size_t> next_row(workers_.size(), 0), next_chunk(workers_.size(), 0);
  auto curvatures = [&](std::size_t k, const CsrView& host_piece) {
    Worker& worker = *workers_[k];
    CsrView x = host_piece;
    x.n_features = n_features_;
    const std::vector<std::int64_t> piece_counts = column_rows(x);
    const std::int64_t tau = wave_size(worker.in_flight[next_chunk[k]++], x.n_rows);
    for (std::int64_t row = 0; row < x.n_rows; ++row)
      worker.host_rows[next_row[k]++].curvature = cold_curvature(x, row, piece_counts.data(), slot.data(), tau);
  };
  if (streams_)
    detail::for_each_host_chunk(source, [&](const CsrView& x) { curvatures(0, x); });
  else
    for_each_piece(source, curvatures);
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    worker->slot = DeviceBuffer<std::int32_t>(slot.size());
    worker->slot.copy_from_host(slot.data(), slot.size(), worker->stream());
    worker->columns = DeviceBuffer<std::int32_t>(hot_.columns.size());
    worker->columns.copy_from_host(hot_.columns.data(), hot_.columns.size(), worker->stream());
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(worker->stream()));  // the host vectors go
  }
}

// The per-row and per-weight state of every row of the worker, resident whatever
// the chunks do.
void SdcaGpuSolver::allocate_state(Worker& worker) {
  DeviceGuard guard(worker.resources.device_id());
  const auto rows = static_cast<std::size_t>(worker.n_rows());
  const auto weights = static_cast<std::size_t>(n_features_) + 1;
  worker.state = DeviceBuffer<RowState>(rows);
  for (DeviceBuffer<double>* buffer : {&worker.margin, &worker.direction, &worker.product, &worker.weight,
                                       &worker.paired, &worker.best}) {
    *buffer = DeviceBuffer<double>(rows);
    buffer->fill_bytes(0, worker.stream());
  }
  if (total_workers_ > 1) worker.round_alpha = DeviceBuffer<double>(rows);
  worker.v = DeviceBuffer<double>(weights);
  worker.paired_weights = DeviceBuffer<double>(weights);
  for (DeviceBuffer<double>& hot : worker.hot) hot = DeviceBuffer<double>(hot_.columns.size());
  worker.partials = DeviceBuffer<double>(std::max<std::size_t>(worker.chunks.size(), 1) *
                                         static_cast<std::size_t>(dual::kRowBlocks * dual::kRowValues));
}

// As the CPU solver's: given alpha (clipped), or the alpha the optimality conditions
// pair with given weights, or a cold start; then w = w(alpha) over every column,
// summed over workers and ranks. The hot weights start at w_H(alpha) too.
void SdcaGpuSolver::initialise(SolverState& state, Communicator& communicator) {
  std::int64_t n_rows = 0;
  for (const auto& worker : workers_) n_rows += worker->n_rows();
  const StartFrom start = warm_start_from(state, n_rows, n_features_);
  const LossSetup loss = dual::setup_of_kind(parameters_.loss, parameters_.epsilon);
  weights_.assign(static_cast<std::size_t>(n_features_) + 1, 0.0);
  std::size_t first_row = 0;
  for (auto& w : workers_) {
    Worker& worker = *w;
    DeviceGuard guard(worker.resources.device_id());
    if (start == StartFrom::Alpha)
      for (std::size_t i = 0; i < worker.host_rows.size(); ++i) worker.host_rows[i].alpha = state.alpha[first_row + i];
    worker.state.copy_from_host(worker.host_rows.data(), worker.host_rows.size(), worker.stream());
    worker.v.fill_bytes(0, worker.stream());
    DeviceBuffer<double> start_weights;
    if (start == StartFrom::Weights) {
      start_weights = DeviceBuffer<double>(state.weights.size());
      start_weights.copy_from_host(state.weights.data(), state.weights.size(), worker.stream());
    }
    dual::ColumnSplit split;
    split.slot = worker.slot.data();
    split.bias_index = n_features_;
    split.bias_value = parameters_.intercept_scaling;
    split.bias_slot = hot_.bias_slot;
    // The first pass: streamed chunks and those kept resident reach the device here.
    const auto order = worker.chunks.order_before(dual::epoch_chunk_order(worker, parameters_.seed, 0));
    worker.chunks.pass(order, [&](std::size_t c, const CsrView& x, std::int64_t nnz) {
      dual::launch_initialise(loss, x, nnz, worker.state.data() + worker.chunks.first_row(c), start,
                              start_weights.data(), split, worker.v.data(), worker.stream());
    });
    const std::vector<double> partial = worker.v.to_host(worker.stream());  // waits (the host rows may go)
    for (std::size_t j = 0; j < weights_.size(); ++j) weights_[j] += partial[j];
    first_row += worker.host_rows.size();
    worker.host_rows = {};
  }
  communicator.allreduce_sum(weights_.data(), weights_.size());
  for (auto& worker : workers_) {
    DeviceGuard guard(worker->resources.device_id());
    worker->v.copy_from_host(weights_.data(), weights_.size(), worker->stream());
  }
}

FitResult SdcaGpuSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  const auto started = std::chrono::steady_clock::now();
  prepare(source, communicator);
  // A resumed optimum ends here (warm_start_certificate.h): the epoch is no fixed
  // point at the optimum, and alpha alone does not certify it.
  if (auto resumed = resumed_optimum(source, communicator, parameters_, n_features_, state, parameters_.threads, started))
    return *resumed;
  initialise(state, communicator);
  dual::DeviceOps ops(workers_, parameters_, communicator, hot_, n_features_, total_workers_, weights_);
  dual::HybridBackend<dual::DeviceOps> backend(ops, parameters_);
  FitResult result = run_cocoa_rounds(backend, communicator, static_cast<int>(total_workers_), parameters_, started);
  const dual::ScheduleCounts& counts = backend.counts();
  result.data_passes = counts.cold_passes + counts.margin_passes + counts.products + counts.paired_passes;
  Worker& first = *workers_.front();
  DeviceGuard guard(first.resources.device_id());
  state.weights = first.v.to_host(first.stream());
  state.alpha = ops.best_alpha();  // the best certificate's (hybrid_backend.h)
  return result;
}

}  // namespace

namespace detail {

std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters& parameters, std::shared_ptr<GpuDevices> devices) {
  return std::make_unique<SdcaGpuSolver>(parameters, std::move(devices));
}

}  // namespace detail

std::unique_ptr<Solver> make_sdca_gpu_solver(const SolverParameters& parameters,
                                             const std::vector<int>& device_ids) {
  return make_gpu_session(device_ids)->make(parameters);
}

}  // namespace snapml::cuda
