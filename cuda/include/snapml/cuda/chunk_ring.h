// The ring of device slots through which out-of-core GPU training streams its
// chunks (docs/out-of-core.md, "GPU"): chunk k+1 uploads on the copy stream while
// chunk k trains on the compute stream (DESIGN.md's out-of-core plan).
//
// A chunk goes host -> pinned staging buffer (copy_to_pinned on the calling
// thread: cudaMemcpyAsync from pageable memory would be synchronous) -> device
// slot (one cudaMemcpyAsync on the copy stream; the arrays lie in one block,
// chunk_layout in stream_plan.h) -> the caller's kernels on the compute stream.
// Two events per slot and one per staging buffer order it, and the host waits on
// the GPU only before refilling a staging buffer:
//
//   loaded[s]        copy -> compute   "upload done: the chunk's kernels may start"
//   free[s]          compute -> copy   "kernels done: slot s may be overwritten"
//   staging_free[p]  copy -> host      "the DMA has read staging buffer p: refill it"
//
// With two slots S0, S1 and two staging buffers P0, P1 (upload k uses S and P k
// mod 2), when an upload takes longer than a chunk's kernels (the usual case: PCIe is
// far slower than device memory) the copy engine never idles and the kernels hide
// under the uploads:
//
//   time ------------------------------------------------------------------------->
//   host     |fill P0|fill P1|   |fill P0 (c2)|     |fill P1 (c3)|
//            | (c0)  | (c1)  |   ^ waits staging_free[P0]: the DMA of c0 read it
//   copy             |== c0: P0->S0 ==|== c1: P1->S1 ==|== c2: P0->S0 ==|== c3 ...
//   compute                           |train c0|       |train c1|       |train c2|
//                                     ^ loaded[S0]     ^ loaded[S1]     ^ loaded[S0]
//                                              ^ free[S0]: already recorded when the
//                                                DMA of c2 into S0 reaches the engine
//
// When the kernels are the slower side the roles swap: the uploads hide under
// them, and the DMA of c2 waits on free[S0] (the end of train c0). Either way the
// host fill of chunk k+2 overlaps the DMA of k+1 and the kernels of k: three
// stages at once, with two slots and two staging buffers.
//
// A slot remembers which chunk it holds. load() of a chunk still in a slot (from
// the previous pass, not overwritten since) uploads nothing: a pass that starts
// with the chunks the previous pass ended on saves `slots` uploads.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/stream_plan.h"

namespace snapml::cuda {

// The ring's fill stage: memcpy of `bytes` from pageable memory into pinned
// memory, split over up to 8 OpenMP threads from 8 MiB on. One thread's memcpy
// (typically 5-15 GB/s) can be slower than a PCIe 5 x16 link (up to about 50 GB/s)
// and would starve the copy engine; a few threads reach the host's memory
// bandwidth. Inside an active parallel region it runs on the calling thread.
void copy_to_pinned(void* pinned, const void* source, std::size_t bytes);

class ChunkRing {
 public:
  // Pinned staging buffers: one refills while the other's DMA runs.
  static constexpr std::size_t kStagingBuffers = 2;

  // `slots` (>= 2) device slots of `slot_bytes` each on resources' device, and
  // kStagingBuffers pinned host buffers of the same size. The ring uses resources'
  // copy and compute streams; `resources` must outlive it.
  ChunkRing(DeviceResources& resources, std::size_t slots, std::uint64_t slot_bytes);
  ~ChunkRing();
  ChunkRing(const ChunkRing&) = delete;
  ChunkRing& operator=(const ChunkRing&) = delete;

  // The device view of chunk `id` (the caller's name for it; equal ids must mean
  // equal data), whose host copy is `host` (row offsets, column indices and values;
  // labels and weights are not uploaded and are null in the view). The compute
  // stream waits for the upload; queue the chunk's kernels on it, then release().
  // Blocks the calling thread only until a staging buffer is free. Throws
  // InvalidArgument when the chunk is larger than a slot or not a valid CSR chunk.
  CsrView load(std::uint64_t id, const CsrView& host);
  // Marks the end of the work queued so far on the compute stream as the last use
  // of the chunk load() returned: its slot may be overwritten after it.
  void release();
  // True when a slot holds chunk `id`, so load(id, ...) will upload nothing.
  bool holds(std::uint64_t id) const;

  std::size_t slots() const { return slots_.size(); }
  std::uint64_t slot_bytes() const { return slot_bytes_; }
  // Bytes and chunks uploaded so far (held chunks reused are not counted).
  std::uint64_t uploaded_bytes() const { return uploaded_bytes_; }
  std::uint64_t uploads() const { return uploads_; }

 private:
  static constexpr std::uint64_t kNoChunk = ~std::uint64_t{0};
  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  struct Slot {
    DeviceBuffer<std::byte> memory;
    cudaEvent_t loaded = nullptr;
    cudaEvent_t free = nullptr;
    std::uint64_t chunk = kNoChunk;
    ChunkShape shape;
  };
  struct Staging {
    void* memory = nullptr;  // pinned (cudaHostAlloc)
    cudaEvent_t free = nullptr;
  };
  CsrView view_of(const Slot& slot, const CsrView& host) const;
  void release_all() noexcept;

  DeviceResources& resources_;
  std::uint64_t slot_bytes_;
  std::vector<Slot> slots_;
  std::vector<Staging> staging_;
  std::size_t next_slot_ = 0;
  std::size_t next_staging_ = 0;
  std::size_t in_use_ = kNoSlot;  // the slot load() returned, until release()
  std::uint64_t uploaded_bytes_ = 0;
  std::uint64_t uploads_ = 0;
};

}  // namespace snapml::cuda
