// How the GPU SDCA solver fits one device's rows into a memory budget
// (SolverParameters::max_gpu_memory, snap-train --max-gpu-memory): all chunks
// resident, or a ring of device slots the chunks stream through while some stay
// resident (docs/out-of-core.md, "GPU"). Pure host arithmetic with no CUDA
// dependency, so CI tests it without a GPU (tests/gpu/test_stream_plan.cpp).
//
// What the device holds, counted exactly as the solver allocates it:
//
//   always   per row   32 bytes: target y_i, cost C_i, ||x_i||^2, alpha_i (doubles),
//                      40 with several CoCoA+ workers (alpha at the round's start:
//                      snapml/impl/cocoa.h may scale a round's alpha changes)
//            weights   2 x 8 (n_features + 1): v, and the start weights a warm start
//                      from weights uploads (counted always: an upper bound)
//            partials  16 KiB a chunk: the objective kernel's block sums
//   per chunk          8 (n_rows + 1) + 8 nnz: int64 row offsets, int32 column
//                      indices, float32 values (labels and sample weights stay on
//                      the host: the kernels read the targets and costs above)
//
// Streamed: the per-row state of every row stays resident (the dual variables
// are what SDCA updates; streaming them would move 32 bytes a row twice a pass),
// plus two ring slots, each the size of the largest chunk, plus the chunks that
// fit in what is left (they are uploaded once and never again).
//
// Why two slots, not three: two slots already overlap the upload of chunk k+1
// with the kernels of chunk k (chunk_ring.h draws the timeline). A third only
// helps when a chunk's kernels outlast its upload, and on a PCIe-attached GPU they
// should not: an epoch's kernels read a chunk at device-memory speed (HBM3 is
// about 3 TB/s, and gpu_sdca_bench's target is within 3x of that floor), over ten
// times the host link's 25-55 GB/s (PCIe 4 and 5 x16; gpu_stream_bench measures
// both). Budget beyond the two slots is worth more as resident chunks, each of
// which saves its upload on every pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace snapml::cuda {

// Per-row device state of the GPU dual solver (cuda/src/dual/worker.h): the packed
// row (alpha, cost, cold curvature, target) and six doubles of the hot step and the
// certificate (margin, direction, product, envelope curvature, paired alpha, the
// best certificate's alpha).
inline constexpr std::uint64_t kRowStateBytes = 10 * sizeof(double);
// With several CoCoA+ workers (devices or ranks): alpha at the round's start too.
inline constexpr std::uint64_t row_state_bytes(bool several_workers) {
  return kRowStateBytes + (several_workers ? sizeof(double) : 0);
}
// The row reductions' partials for one chunk (kRowBlocks x kRowValues doubles,
// cuda/src/dual/kernels.h; sdca_gpu_solver.cpp asserts the two agree).
inline constexpr std::uint64_t kObjectivePartialsBytes = 4 * 1024 * sizeof(double);
// Device ring slots of a streamed plan: double buffering (see above).
inline constexpr std::size_t kRingSlots = 2;

// A chunk's shape: what its device bytes depend on.
struct ChunkShape {
  std::int64_t n_rows = 0;
  std::int64_t nnz = 0;
};

// Where each array of a chunk lies in one contiguous device allocation (a ring
// slot) and in its pinned staging copy, so one cudaMemcpyAsync moves a chunk.
// Offsets first (8-byte aligned at 0), then the column indices and the values
// (4-byte types, 4-byte aligned after 8 (n_rows + 1) bytes of offsets).
struct ChunkLayout {
  std::uint64_t offsets_at = 0;
  std::uint64_t indices_at = 0;
  std::uint64_t values_at = 0;
  std::uint64_t bytes = 0;  // == device_chunk_bytes
};
ChunkLayout chunk_layout(const ChunkShape& shape);

// 8 (n_rows + 1) + 8 nnz: a chunk as the device stores it, resident (DeviceCsr
// without labels and weights) or in a ring slot (chunk_layout).
std::uint64_t device_chunk_bytes(const ChunkShape& shape);

// What a fit needs on one device besides the chunks.
struct DeviceMemoryNeeds {
  std::vector<std::uint64_t> chunk_bytes;  // device_chunk_bytes of each chunk, in source order
  std::uint64_t row_state_bytes = 0;       // row_state_bytes(several_workers) x rows
  std::uint64_t weight_bytes = 0;          // v and the start weights: 2 x 8 (n_features + 1)
  std::uint64_t partials_bytes = 0;        // kObjectivePartialsBytes x chunks
  // Resident whatever the plan: row state, weights and partials.
  std::uint64_t fixed_bytes() const { return row_state_bytes + weight_bytes + partials_bytes; }
};

// The needs of a fit on chunks of these shapes over n_features features.
DeviceMemoryNeeds device_memory_needs(const std::vector<ChunkShape>& chunks, std::int32_t n_features,
                                      bool several_workers = false);

// Device bytes of every chunk resident plus the fixed bytes, from the totals a
// ChunkSource reports without a pass: the chunks' bytes sum to 8 (n_rows +
// n_chunks) + 8 nnz. Equals what plan_device_memory compares with the budget.
std::uint64_t resident_device_bytes(std::int64_t n_rows, std::int64_t nnz, std::size_t n_chunks,
                                    std::int32_t n_features, bool several_workers = false);

struct DeviceMemoryPlan {
  bool streamed = false;
  std::size_t slots = 0;         // ring slots, 0 when not streamed
  std::uint64_t slot_bytes = 0;  // each slot: the largest chunk
  // Per chunk: uploaded once and kept on the device. All true when not streamed.
  std::vector<bool> resident;
  std::uint64_t device_bytes = 0;           // fixed + resident chunks + slots: within the budget
  std::uint64_t streamed_bytes_per_pass = 0;  // uploaded by every pass over the data
  std::size_t resident_chunks() const;
};

// Resident when there is no budget (0) or fixed + all chunks fit it. Else
// streamed: kRingSlots slots of the largest chunk, and chunks kept resident in
// source order while they fit what the budget leaves (first fit; choosing them by
// their share of the duality gap, as DuHL does, is future work). Throws
// InvalidArgument naming the bytes of each part when fixed + kRingSlots slots
// exceed the budget: raise it, or cut the data into smaller chunks
// (snap-convert --chunk-rows).
DeviceMemoryPlan plan_device_memory(const DeviceMemoryNeeds& needs, std::uint64_t budget);

// "123 bytes", or "1572864 bytes (1.5 MiB)" from 1 MiB on: how the plans' messages
// give sizes.
std::string bytes_text(std::uint64_t bytes);

}  // namespace snapml::cuda
