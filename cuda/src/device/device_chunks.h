// The rows of one GPU SDCA worker on its device, chunk by chunk, and the passes the
// solver makes over them (initialise, epochs, duality gap). Either every chunk is
// resident (uploaded once), or, under a max_gpu_memory budget the data exceeds
// (stream_plan.h), the chunks the plan keeps are resident and the rest are read
// from the ChunkSource and uploaded through a ChunkRing on every pass
// (docs/out-of-core.md, "GPU"). The solver's kernels see a device CsrView either
// way; there is one epoch kernel.
//
// Visiting order. An epoch visits the chunks in an order shuffled per epoch (a
// FeistelPermutation of the chunk indices keyed by seed, worker and epoch) and the
// rows of each chunk in their own permutation; chunk-ordered visiting converges
// more slowly than one permutation of all rows (docs/out-of-core.md), and a fresh
// chunk order each epoch keeps chunks that carry structure from always coming
// first. A file streamed from disk (StreamedBinarySource) reads its chunks in the
// order asked (ChunkSource::reset_in_order); another forward-only source gives
// them in its own order, and streaming from one visits them so.
//
// Upload savings. The ring keeps the chunks it uploaded last; a pass visits those
// first. The pass before an epoch (initialise, the duality gap) is arranged to end
// with the first streamed chunks of that epoch's order, so the epoch starts on
// chunks already on the device and its order is still the shuffled one: each pass
// uploads up to `slots` chunks fewer than it visits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/csr_view.h"
#include "snapml/cuda/chunk_ring.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/stream_plan.h"

namespace snapml::cuda::detail {

// Calls visit(chunk) for every chunk of `source` in source order: by chunk(i)
// when the source is resident, else by reset() and next().
void for_each_host_chunk(ChunkSource& source, const std::function<void(const CsrView&)>& visit);

class DeviceChunks {
 public:
  // queue(c, device view of chunk c, its non-zeros): queue chunk c's kernels on the
  // compute stream and return.
  using QueueChunk = std::function<void(std::size_t chunk, const CsrView& device, std::int64_t nnz)>;

  explicit DeviceChunks(DeviceResources& resources) : resources_(resources) {}

  // Resident: uploads `host` now as the next chunk (its labels and weights, which
  // the kernels do not read, should be null).
  void add_resident(const CsrView& host);

  // From `source`, one chunk per source chunk of shape shapes[c]: the chunks
  // plan.resident names are uploaded by the first pass and kept, the others go
  // through a ring of plan.slots slots of plan.slot_bytes on every pass. Views
  // get `n_features` (the global count). `source` must outlive every pass.
  void stream_from(ChunkSource& source, std::int32_t n_features, const std::vector<ChunkShape>& shapes,
                   const DeviceMemoryPlan& plan);

  std::size_t size() const { return chunks_.size(); }
  std::int64_t n_rows() const { return n_rows_; }
  // Chunk c's first row in the worker's per-row arrays.
  std::int64_t first_row(std::size_t c) const { return chunks_[c].first_row; }
  bool streams() const { return ring_ != nullptr; }
  const ChunkRing* ring() const { return ring_.get(); }

  // The chunks in the order of an epoch whose chunk order is keyed by `key`.
  std::vector<std::size_t> epoch_order(std::uint64_t key) const;
  // The chunks in an order for a pass that any order serves (initialise, the
  // gap), ending with the first streamed chunks of `next_epoch` (see above).
  std::vector<std::size_t> order_before(const std::vector<std::size_t>& next_epoch) const;

  // Calls queue for every chunk in `order` (a permutation of 0 .. size() - 1), with
  // the chunks the ring still holds first. Throws InvalidArgument when a chunk
  // of the source changed shape since stream_from, and whatever the source throws.
  void pass(std::vector<std::size_t> order, const QueueChunk& queue);

 private:
  struct Chunk {
    std::int64_t first_row = 0;
    ChunkShape shape;
    bool keep = true;                  // resident: uploaded once
    std::unique_ptr<DeviceCsr> device;  // the resident copy, once uploaded
  };
  // Every chunk has its resident copy: passes need no source.
  bool all_on_device() const { return on_device_ == chunks_.size(); }
  // Chunks come from next() in source order only.
  bool forward_only() const { return !all_on_device() && source_ != nullptr && !source_->resident(); }
  void visit(std::size_t c, const CsrView& host, const QueueChunk& queue);

  DeviceResources& resources_;
  std::vector<Chunk> chunks_;
  std::int64_t n_rows_ = 0;
  std::size_t on_device_ = 0;      // chunks with their resident copy
  ChunkSource* source_ = nullptr;  // set by stream_from
  std::int32_t n_features_ = 0;
  std::unique_ptr<ChunkRing> ring_;
};

}  // namespace snapml::cuda::detail
