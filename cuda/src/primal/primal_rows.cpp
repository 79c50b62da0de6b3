// PrimalRows' products over its parts (primal_rows.h); the upload is in
// rows_upload.cpp.
#include "primal_rows.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "../device/device_chunks.h"
#include "snapml/cuda/check.h"
#include "snapml/error.h"

namespace snapml::cuda::primal {
PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes_ > 0) SNAPML_CUDA_CHECK(cudaHostAlloc(&data_, bytes_, cudaHostAllocDefault));
}

PinnedBuffer::~PinnedBuffer() {
  if (data_) cudaFreeHost(data_);
}

StreamSums::StreamSums(cudaStream_t stream)
    : partials_(static_cast<std::size_t>(kMaxBlocks) * kMaxSums),
      counter_(1),
      slots_(kSlots),
      host_(kSlots * sizeof(double)) {
  counter_.fill_bytes(0, stream);
  slots_.fill_bytes(0, stream);
}

Reduction StreamSums::at(Slot slot) { return {partials_.data(), counter_.data(), slots_.data() + slot}; }

const double* StreamSums::fetch(cudaStream_t stream, Slot first, int count) {
  auto* host = static_cast<double*>(host_.data());
  SNAPML_CUDA_CHECK(cudaMemcpyAsync(host + first, slots_.data() + first, count * sizeof(double),
                                    cudaMemcpyDeviceToHost, stream));
  SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host + first;
}

void wait_for_copies(Part& part) {
  DeviceGuard guard(part.device_id);
  SNAPML_CUDA_CHECK(cudaEventRecord(part.copied, part.resources->copy_stream()));
  SNAPML_CUDA_CHECK(cudaStreamWaitEvent(part.stream(), part.copied, 0));
}

Part::~Part() {
  if (done || copied) {
    DeviceGuard guard(device_id);
    if (done) cudaEventDestroy(done);
    if (copied) cudaEventDestroy(copied);
  }
}

PrimalRows::~PrimalRows() {
  // The parts' work ends before their buffers go (their destructors free them).
  for (auto& part : parts_)
    if (part->resources) {
      DeviceGuard guard(part->device_id);
      cudaStreamSynchronize(part->stream());
    }
  if (fork_ && master_) {
    DeviceGuard guard(master_->device_id());
    cudaStreamSynchronize(master_stream());
    cudaEventDestroy(fork_);
  }
}

std::int64_t PrimalRows::stored_entries() const {
  std::int64_t sum = 0;
  for (const auto& part : parts_)
    for (const TileData& tile : part->tiles) sum += tile.shape.nnz;
  return sum;
}

std::int64_t PrimalRows::transposed_entries() const {
  std::int64_t sum = 0;
  for (const auto& part : parts_)
    for (const TileData& tile : part->tiles) sum += tile.shape.items(key_.intercept);
  return sum;
}

std::int64_t PrimalRows::tiles() const {
  std::int64_t sum = 0;
  for (const auto& part : parts_) sum += static_cast<std::int64_t>(part->tiles.size());
  return sum;
}

// Each part's rows of each chunk: the targets and costs computed by the staging
// threads straight into the pinned slots (no host vector of the rows).
template <typename Target, typename Cost>
void PrimalRows::fill_targets(ChunkSource& source, const Target& target, const Cost& cost) {
  StagedCopies copies(*staging_, threads_);
  const bool whole = source.resident();  // else chunk by chunk: a chunk's view lives until the next
  std::int64_t offset = 0;               // the chunk's first row among this rank's
  detail::for_each_host_chunk(source, [&](const CsrView& x) {
    require(offset + x.n_rows <= n_rows_, "the chunk source returned more rows than its first pass counted");
    for (auto& part : parts_) {
      const std::int64_t begin = std::max(part->first_row, offset);
      const std::int64_t end = std::min(part->first_row + part->n_rows, offset + x.n_rows);
      if (begin >= end) continue;
      const std::int64_t row = begin - offset;  // in the chunk
      const cudaStream_t stream = part->resources->copy_stream();
      copies.add_items(part->device_id, stream, part->at(part->targets, begin - part->first_row), sizeof(double),
                       end - begin, [x, row, offset, &target](std::int64_t first, std::int64_t n, void* out) {
                         auto* to = static_cast<double*>(out);
                         for (std::int64_t k = 0; k < n; ++k)
                           to[k] = target(x.labels[row + first + k], offset + row + first + k);
                       });
      copies.add_items(part->device_id, stream, part->at(part->costs, begin - part->first_row), sizeof(double),
                       end - begin, [x, row, offset, &target, &cost](std::int64_t first, std::int64_t n, void* out) {
                         auto* to = static_cast<double*>(out);
                         for (std::int64_t k = 0; k < n; ++k) {
                           const std::int64_t i = row + first + k;
                           to[k] = cost(target(x.labels[i], offset + i), x.weight(i));
                         }
                       });
    }
    offset += x.n_rows;
    if (!whole) copies.run();
  });
  require(offset == n_rows_, "the chunk source returned fewer rows than its first pass counted");
  copies.run();
  for (auto& part : parts_) wait_for_copies(*part);
}

void PrimalRows::set_targets(ChunkSource& source, const RowTargets& targets) {
  fill_targets(
      source, [&targets](double label, std::int64_t) { return targets.target(label); },
      [&targets](double target, float weight) { return targets.cost(target, weight); });
}

void PrimalRows::set_class_targets(ChunkSource& source, const std::vector<double>& classes,
                                   const std::vector<double>& class_weights, double C) {
  require(classes.size() == class_weights.size() && !classes.empty(),
          "the multinomial loss needs its classes and one class weight per class");
  fill_targets(
      source,
      [&classes](double label, std::int64_t row) {
        const auto found = std::lower_bound(classes.begin(), classes.end(), label);
        if (found == classes.end() || *found != label)
          throw InvalidArgument("row " + std::to_string(row) +
                                " has a label that is not among the multinomial loss's classes");
        return static_cast<double>(found - classes.begin());
      },
      [&class_weights, C](double target, float weight) {
        return C * class_weights[static_cast<std::size_t>(target)] * static_cast<double>(weight);
      });
}

void PrimalRows::set_classes(int classes) {
  require(classes >= 1, "PrimalRows::set_classes: at least one class");
  if (classes == classes_) return;
  const auto K = static_cast<std::size_t>(classes);
  const std::size_t weights = n_weights_ * K;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    Part& part = *parts_[k];
    DeviceGuard guard(part.device_id);
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(part.stream()));  // nothing queued reads what is freed
    for (DeviceBuffer<double>* buffer :
         {&part.d, &part.c, &part.d_trial, &part.c_trial, &part.u, &part.input, &part.raw_a, &part.raw_b})
      *buffer = DeviceBuffer<double>();
    // Per row 5 K doubles; per weight vector n_weights K doubles: raw_a and raw_b,
    // on a part of its own its input, and on the master the solver's 8 vectors,
    // the zeros and two incoming outputs a part (operations_plan.h's count, K-fold).
    const std::size_t vectors =
        part.shares_master ? 2 + 8 + 1 + 2 * (parts_.size() - 1) : 3;
    const std::size_t need = sizeof(double) * (5 * static_cast<std::size_t>(part.n_rows) * K + vectors * weights);
    std::size_t free_bytes = 0, total_bytes = 0;
    SNAPML_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes)
      throw Unsupported("the primal Newton solver's " + std::to_string(classes) + "-class state for device " +
                        std::to_string(part.device_id) + " (" + std::to_string(part.n_rows) + " rows, " +
                        std::to_string(n_weights_) + " weights a class) needs " + std::to_string(need) +
                        " bytes but the device has " + std::to_string(free_bytes) +
                        " free; pass more device ids or train on the CPU (without use_gpu)");
    const std::size_t rows = static_cast<std::size_t>(part.n_rows) * K;
    for (DeviceBuffer<double>* buffer : {&part.d, &part.c, &part.d_trial, &part.c_trial, &part.u})
      *buffer = DeviceBuffer<double>(rows);
    part.raw_a = DeviceBuffer<double>(weights);
    part.raw_b = DeviceBuffer<double>(weights);
    if (!part.shares_master) {
      part.input = DeviceBuffer<double>(weights);
      DeviceGuard master(master_->device_id());
      incoming_a_[k] = DeviceBuffer<double>(weights);
      incoming_b_[k] = DeviceBuffer<double>(weights);
    }
  }
  DeviceGuard master(master_->device_id());
  zeros_ = DeviceBuffer<double>(weights);
  zeros_.fill_bytes(0, master_stream());
  ranks_a_ = DeviceBuffer<double>();
  ranks_b_ = DeviceBuffer<double>();
  classes_ = classes;
}

PeerTransfers& PrimalRows::transfers() {
  if (!transfers_) {
    std::vector<int> devices{master_->device_id()};
    for (const auto& part : parts_) devices.push_back(part->device_id);
    transfers_ = std::make_unique<PeerTransfers>(devices);
  }
  return *transfers_;
}

void PrimalRows::fork(const double* v) {
  DeviceGuard guard(master_->device_id());  // the event is the master stream's
  bool others = false;
  std::vector<PeerCopy> copies;
  for (auto& part : parts_) {
    if (part->shares_master) continue;
    others = true;
    if (v)
      copies.push_back({part->input.data(), part->device_id, part->stream(), v, master_->device_id(), master_stream(),
                        width()});
  }
  if (!others) return;
  transfers().run(copies);  // a receive on a part's stream is queued before its wait below
  SNAPML_CUDA_CHECK(cudaEventRecord(fork_, master_stream()));
  for (auto& part : parts_)
    if (!part->shares_master) {
      DeviceGuard on_part(part->device_id);
      SNAPML_CUDA_CHECK(cudaStreamWaitEvent(part->stream(), fork_, 0));
    }
}

void PrimalRows::join(bool raw_a, bool raw_b) {
  std::vector<PeerCopy> copies;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    Part& part = *parts_[k];
    if (part.shares_master) continue;
    if (raw_a)
      copies.push_back({incoming_a_[k].data(), master_->device_id(), master_stream(), part.raw_a.data(),
                        part.device_id, part.stream(), width()});
    if (raw_b)
      copies.push_back({incoming_b_[k].data(), master_->device_id(), master_stream(), part.raw_b.data(),
                        part.device_id, part.stream(), width()});
  }
  transfers().run(copies);  // the master's receives are queued before its waits below
  for (auto& owned : parts_) {
    Part& part = *owned;
    if (part.shares_master) continue;
    DeviceGuard guard(part.device_id);
    SNAPML_CUDA_CHECK(cudaEventRecord(part.done, part.stream()));
    DeviceGuard on_master(master_->device_id());
    SNAPML_CUDA_CHECK(cudaStreamWaitEvent(master_stream(), part.done, 0));
  }
}

PartSums PrimalRows::raw_a() const {
  PartSums sums;
  for (std::size_t k = 0; k < parts_.size(); ++k)
    sums.part[sums.count++] = parts_[k]->shares_master ? parts_[k]->raw_a.data() : incoming_a_[k].data();
  if (sums.count == 0) sums.part[sums.count++] = zeros_.data();
  return sums;
}

PartSums PrimalRows::raw_b() const {
  PartSums sums;
  for (std::size_t k = 0; k < parts_.size(); ++k)
    sums.part[sums.count++] = parts_[k]->shares_master ? parts_[k]->raw_b.data() : incoming_b_[k].data();
  if (sums.count == 0) sums.part[sums.count++] = zeros_.data();
  return sums;
}

void PrimalRows::margin_terms(const PrimalLoss& loss, const double* v, double intercept) {
  for (auto& owned : parts_) {
    Part& part = *owned;
    DeviceGuard guard(part.device_id);
    const double* in = input(part, v);
    bool accumulate = false;
    for (TileData& tile : part.tiles) {
      const std::int64_t first = tile.shape.first_row;
      if (classes_ > 1)
        launch_softmax_terms(tile.rows, classes_, in, {intercept_index(), intercept}, part.at(part.targets, first),
                             part.at(part.costs, first), part.at(part.d_trial, first * classes_),
                             part.at(part.c_trial, first * classes_), part.sums->at(kLoss), accumulate,
                             part.stream());
      else
        launch_margin_terms(loss, tile.rows, in, {intercept_index(), intercept}, part.at(part.targets, first),
                            part.at(part.costs, first), part.at(part.d_trial, first), part.at(part.c_trial, first),
                            part.sums->at(kLoss), accumulate, part.stream());
      accumulate = true;
    }
  }
}

void PrimalRows::curvature_rows(const double* v, double intercept) {
  for (auto& owned : parts_) {
    Part& part = *owned;
    DeviceGuard guard(part.device_id);
    const double* in = input(part, v);
    for (TileData& tile : part.tiles) {
      const std::int64_t first = tile.shape.first_row;
      if (classes_ > 1)
        launch_softmax_curvature_rows(tile.rows, classes_, in, {intercept_index(), intercept},
                                      part.at(part.costs, first), part.at(part.c, first * classes_),
                                      part.at(part.u, first * classes_), part.stream());
      else
        launch_curvature_rows(tile.rows, in, {intercept_index(), intercept}, part.at(part.c, first),
                              part.at(part.u, first), part.stream());
    }
  }
}

void PrimalRows::row_dots(const double* v, double intercept) {
  require(classes_ == 1, "PrimalRows::row_dots takes one class");
  for (auto& owned : parts_) {
    Part& part = *owned;
    DeviceGuard guard(part.device_id);
    const double* in = input(part, v);
    for (TileData& tile : part.tiles)
      launch_row_dots(tile.rows, in, {intercept_index(), intercept}, part.at(part.u, tile.shape.first_row),
                      part.stream());
  }
}

void PrimalRows::column_sums(ColumnSum kind, bool from_u) {
  require(classes_ == 1 || (kind == ColumnSum::Plain && from_u), "with K classes the column sums are X^T u");
  for (auto& owned : parts_) {
    Part& part = *owned;
    DeviceGuard guard(part.device_id);
    bool accumulate = false;
    for (TileData& tile : part.tiles) {
      const double* z = part.at(from_u ? part.u : part.c, tile.shape.first_row * classes_);
      if (classes_ > 1)
        launch_block_column_sums(tile.columns, classes_, z, part.raw_a.data(), part.piece_partials.data(),
                                 accumulate, part.stream());
      else
        launch_column_sums(tile.columns, kind, z, part.raw_a.data(), part.piece_partials.data(), accumulate,
                           part.stream());
      accumulate = true;
    }
  }
}

void PrimalRows::column_gradient() {
  for (auto& owned : parts_) {
    Part& part = *owned;
    DeviceGuard guard(part.device_id);
    bool accumulate = false;
    for (TileData& tile : part.tiles) {
      const std::int64_t first = tile.shape.first_row;
      if (classes_ > 1)
        launch_softmax_column_gradient(tile.columns, classes_, part.at(part.d, first * classes_),
                                       part.at(part.costs, first), part.at(part.c, first * classes_),
                                       part.raw_a.data(), part.raw_b.data(), part.piece_partials.data(), accumulate,
                                       part.stream());
      else
        launch_column_gradient(tile.columns, part.at(part.d, first), part.at(part.c, first), part.raw_a.data(),
                               part.raw_b.data(), part.piece_partials.data(), accumulate, part.stream());
      accumulate = true;
    }
  }
}

void PrimalRows::margin_sums(double& loss, double& dual) {
  loss = dual = 0.0;
  for (auto& part : parts_) {
    DeviceGuard guard(part->device_id);
    const double* sums = part->sums->fetch(part->stream(), kLoss, 2);
    loss += sums[0];
    dual += sums[1];
  }
}

void PrimalRows::accept_trial() {
  for (auto& part : parts_) {
    std::swap(part->d, part->d_trial);
    std::swap(part->c, part->c_trial);
  }
}

PartSums PrimalRows::over_ranks(Communicator& communicator, const PartSums& raw, bool second) {
  if (communicator.size() == 1) return raw;
  DeviceGuard guard(master_->device_id());
  DeviceBuffer<double>& sums = second ? ranks_b_ : ranks_a_;
  if (sums.size() != width()) sums = DeviceBuffer<double>(width());
  WeightSetup plain;
  plain.n = static_cast<std::int64_t>(width());
  launch_assign_sum(plain, raw, 0, sums.data(), master_stream());
  std::vector<double> host = sums.to_host(master_stream());
  communicator.allreduce_sum(host.data(), host.size());
  sums.copy_from_host(host.data(), host.size(), master_stream());
  SNAPML_CUDA_CHECK(cudaStreamSynchronize(master_stream()));  // before `host` goes
  PartSums summed;
  summed.part[summed.count++] = sums.data();
  return summed;
}

void PrimalRows::upload_rows(const double* host, DeviceBuffer<double> Part::*buffer) {
  StagedCopies copies(*staging_, threads_);
  for (auto& part : parts_)
    copies.add_items(part->device_id, part->resources->copy_stream(), ((*part).*buffer).data(), sizeof(double),
                     part->n_rows, [from = host + part->first_row](std::int64_t first, std::int64_t n, void* out) {
                       std::memcpy(out, from + first, static_cast<std::size_t>(n) * sizeof(double));
                     });
  copies.run();
  for (auto& part : parts_) wait_for_copies(*part);
}

void PrimalRows::download_rows(DeviceBuffer<double> Part::*buffer, double* host, int per_row) {
  for (auto& part : parts_) {
    DeviceGuard guard(part->device_id);
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(host + part->first_row * per_row, ((*part).*buffer).data(),
                                      static_cast<std::size_t>(part->n_rows * per_row) * sizeof(double),
                                      cudaMemcpyDeviceToHost, part->stream()));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(part->stream()));
  }
}

}  // namespace snapml::cuda::primal
