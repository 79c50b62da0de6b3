#include "device_chunks.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "snapml/cuda/permutation.h"
#include "snapml/error.h"

namespace snapml::cuda::detail {

void for_each_host_chunk(ChunkSource& source, const std::function<void(const CsrView&)>& visit) {
  if (source.resident()) {
    for (std::size_t c = 0; c < source.n_chunks(); ++c) visit(source.chunk(c));
    return;
  }
  source.reset();
  CsrView chunk;
  while (source.next(chunk)) visit(chunk);
}

void DeviceChunks::add_resident(const CsrView& host) {
  Chunk chunk;
  chunk.first_row = n_rows_;
  chunk.shape = {host.n_rows, host.nnz()};
  chunk.device = std::make_unique<DeviceCsr>(host, resources_);
  chunks_.push_back(std::move(chunk));
  n_rows_ += host.n_rows;
  ++on_device_;
}

void DeviceChunks::stream_from(ChunkSource& source, std::int32_t n_features, const std::vector<ChunkShape>& shapes,
                               const DeviceMemoryPlan& plan) {
  require(chunks_.empty(), "DeviceChunks::stream_from on chunks already added");
  require(plan.resident.size() == shapes.size(), "a device memory plan for " + std::to_string(plan.resident.size()) +
                                                     " chunks, not " + std::to_string(shapes.size()));
  source_ = &source;
  n_features_ = n_features;
  for (std::size_t c = 0; c < shapes.size(); ++c) {
    Chunk chunk;
    chunk.first_row = n_rows_;
    chunk.shape = shapes[c];
    chunk.keep = plan.resident[c];
    chunks_.push_back(std::move(chunk));
    n_rows_ += shapes[c].n_rows;
  }
  if (plan.streamed) ring_ = std::make_unique<ChunkRing>(resources_, plan.slots, plan.slot_bytes);
}

std::vector<std::size_t> DeviceChunks::epoch_order(std::uint64_t key) const {
  std::vector<std::size_t> order(chunks_.size());
  const FeistelPermutation permutation(chunks_.size(), key);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::size_t>(permutation(i));
  return order;
}

std::vector<std::size_t> DeviceChunks::order_before(const std::vector<std::size_t>& next_epoch) const {
  std::vector<std::size_t> order(chunks_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (!ring_ || forward_only()) return order;
  // The first `slots` streamed chunks of the next epoch go last, in any order: after
  // this pass the ring holds exactly them, and the epoch visits them first.
  std::vector<bool> last(chunks_.size(), false);
  std::size_t taken = 0;
  for (std::size_t c : next_epoch) {
    if (taken == ring_->slots()) break;
    if (chunks_[c].keep) continue;
    last[c] = true;
    ++taken;
  }
  std::stable_partition(order.begin(), order.end(), [&](std::size_t c) { return !last[c]; });
  return order;
}

void DeviceChunks::pass(std::vector<std::size_t> order, const QueueChunk& queue) {
  require(order.size() == chunks_.size(), "a pass over " + std::to_string(order.size()) + " of " +
                                              std::to_string(chunks_.size()) + " chunks");
  if (all_on_device()) {
    for (const std::size_t c : order) queue(c, chunks_[c].device->view(), chunks_[c].shape.nnz);
    return;
  }
  if (forward_only()) {
    // A source that reads its chunks in a given order (StreamedBinarySource:
    // reset_in_order) takes the pass's; another gives its own order, whatever was
    // asked, and each chunk is placed by its position in that order.
    const bool ordered = source_->reset_in_order(order);
    CsrView host;
    std::size_t k = 0;
    while (source_->next(host)) {
      require(k < chunks_.size(), "the chunk source returned more chunks than on its first pass (" +
                                      std::to_string(chunks_.size()) + ")");
      visit(ordered ? order[k] : k, host, queue);
      ++k;
    }
    require(k == chunks_.size(), "the chunk source returned " + std::to_string(k) + " chunks, not " +
                                     std::to_string(chunks_.size()) + " as on its first pass");
    return;
  }
  if (ring_)
    std::stable_partition(order.begin(), order.end(),
                          [&](std::size_t c) { return !chunks_[c].keep && ring_->holds(c); });
  for (const std::size_t c : order) visit(c, source_->chunk(c), queue);
}

void DeviceChunks::visit(std::size_t c, const CsrView& host, const QueueChunk& queue) {
  Chunk& chunk = chunks_[c];
  require(host.n_rows == chunk.shape.n_rows && host.nnz() == chunk.shape.nnz,
          "chunk " + std::to_string(c) + " of the source changed between passes (" + std::to_string(host.n_rows) +
              " rows, " + std::to_string(host.nnz()) + " non-zeros; first pass: " +
              std::to_string(chunk.shape.n_rows) + ", " + std::to_string(chunk.shape.nnz) + ")");
  if (chunk.device) {
    queue(c, chunk.device->view(), chunk.shape.nnz);
    return;
  }
  CsrView piece = host;  // what the device holds: no labels or weights
  piece.n_features = n_features_;
  piece.labels = nullptr;
  piece.weights = nullptr;
  if (chunk.keep) {
    chunk.device = std::make_unique<DeviceCsr>(piece, resources_);
    ++on_device_;
    queue(c, chunk.device->view(), chunk.shape.nnz);
    return;
  }
  const CsrView device = ring_->load(c, piece);
  queue(c, device, chunk.shape.nnz);
  ring_->release();
}

}  // namespace snapml::cuda::detail
