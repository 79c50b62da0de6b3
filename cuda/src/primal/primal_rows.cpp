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
namespace {

// Weight-sized copy between two devices' memory (the same device: an ordinary
// device-to-device copy), queued on `stream`.
void copy_between(double* to, int to_device, const double* from, int from_device, std::size_t count,
                  cudaStream_t stream) {
  const std::size_t bytes = count * sizeof(double);
  if (bytes == 0) return;
  if (to_device == from_device)
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
  else
    SNAPML_CUDA_CHECK(cudaMemcpyPeerAsync(to, to_device, from, from_device, bytes, stream));
}

}  // namespace

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
void PrimalRows::set_targets(ChunkSource& source, const RowTargets& targets) {
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
                       end - begin, [x, row, targets](std::int64_t first, std::int64_t n, void* out) {
                         auto* to = static_cast<double*>(out);
                         for (std::int64_t k = 0; k < n; ++k) to[k] = targets.target(x.labels[row + first + k]);
                       });
      copies.add_items(part->device_id, stream, part->at(part->costs, begin - part->first_row), sizeof(double),
                       end - begin, [x, row, targets](std::int64_t first, std::int64_t n, void* out) {
                         auto* to = static_cast<double*>(out);
                         for (std::int64_t k = 0; k < n; ++k) {
                           const std::int64_t i = row + first + k;
                           to[k] = targets.cost(targets.target(x.labels[i]), x.weight(i));
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

void PrimalRows::fork(const double* v) {
  DeviceGuard guard(master_->device_id());  // the copies and the event are the master stream's
  bool others = false;
  for (auto& part : parts_) {
    if (part->shares_master) continue;
    others = true;
    if (v) copy_between(part->input.data(), part->device_id, v, master_->device_id(), n_weights_, master_stream());
  }
  if (!others) return;
  SNAPML_CUDA_CHECK(cudaEventRecord(fork_, master_stream()));
  for (auto& part : parts_)
    if (!part->shares_master) {
      DeviceGuard on_part(part->device_id);
      SNAPML_CUDA_CHECK(cudaStreamWaitEvent(part->stream(), fork_, 0));
    }
}

void PrimalRows::join(bool raw_a, bool raw_b) {
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    Part& part = *parts_[k];
    if (part.shares_master) continue;
    DeviceGuard guard(part.device_id);
    if (raw_a)
      copy_between(incoming_a_[k].data(), master_->device_id(), part.raw_a.data(), part.device_id, n_weights_,
                   part.stream());
    if (raw_b)
      copy_between(incoming_b_[k].data(), master_->device_id(), part.raw_b.data(), part.device_id, n_weights_,
                   part.stream());
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
    for (TileData& tile : part.tiles)
      launch_curvature_rows(tile.rows, in, {intercept_index(), intercept}, part.at(part.c, tile.shape.first_row),
                            part.at(part.u, tile.shape.first_row), part.stream());
  }
}

void PrimalRows::row_dots(const double* v, double intercept) {
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
  for (auto& owned : parts_) {
    Part& part = *owned;
    DeviceGuard guard(part.device_id);
    bool accumulate = false;
    for (TileData& tile : part.tiles) {
      const double* z = part.at(from_u ? part.u : part.c, tile.shape.first_row);
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
  if (sums.empty()) sums = DeviceBuffer<double>(n_weights_);
  WeightSetup plain;
  plain.n = static_cast<std::int64_t>(n_weights_);
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

void PrimalRows::download_rows(DeviceBuffer<double> Part::*buffer, double* host) {
  for (auto& part : parts_) {
    DeviceGuard guard(part->device_id);
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(host + part->first_row, ((*part).*buffer).data(),
                                      static_cast<std::size_t>(part->n_rows) * sizeof(double),
                                      cudaMemcpyDeviceToHost, part->stream()));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(part->stream()));
  }
}

}  // namespace snapml::cuda::primal
