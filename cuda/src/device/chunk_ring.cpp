#include "snapml/cuda/chunk_ring.h"

#include <algorithm>
#include <cstring>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "snapml/cuda/check.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/error.h"

namespace snapml::cuda {

void copy_to_pinned(void* pinned, const void* source, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t{4} << 20;  // per task: large enough to stream
  constexpr int kMostThreads = 8;                       // beyond that, memory bandwidth is spent
  auto* to = static_cast<unsigned char*>(pinned);
  const auto* from = static_cast<const unsigned char*>(source);
#if defined(_OPENMP)
  if (bytes >= 2 * kPiece && !omp_in_parallel()) {
    const auto pieces = static_cast<std::int64_t>((bytes + kPiece - 1) / kPiece);
    const int threads = static_cast<int>(std::min<std::int64_t>({pieces, kMostThreads, omp_get_max_threads()}));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t piece = 0; piece < pieces; ++piece) {
      const std::size_t at = static_cast<std::size_t>(piece) * kPiece;
      std::memcpy(to + at, from + at, std::min(kPiece, bytes - at));
    }
    return;
  }
#endif
  std::memcpy(to, from, bytes);
}

ChunkRing::ChunkRing(DeviceResources& resources, std::size_t slots, std::uint64_t slot_bytes)
    : resources_(resources), slot_bytes_(slot_bytes) {
  require(slots >= 2, "a chunk ring needs at least 2 slots (double buffering), got " + std::to_string(slots));
  require(slot_bytes > 0, "a chunk ring needs slots of at least 1 byte");
  DeviceGuard guard(resources_.device_id());
  try {
    slots_.resize(slots);
    for (Slot& slot : slots_) {
      slot.memory = DeviceBuffer<std::byte>(static_cast<std::size_t>(slot_bytes));
      SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&slot.loaded, cudaEventDisableTiming));
      SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&slot.free, cudaEventDisableTiming));
    }
    staging_.resize(kStagingBuffers);
    for (Staging& staging : staging_) {
      SNAPML_CUDA_CHECK(cudaHostAlloc(&staging.memory, static_cast<std::size_t>(slot_bytes), cudaHostAllocDefault));
      SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&staging.free, cudaEventDisableTiming));
    }
  } catch (...) {
    release_all();
    throw;
  }
}

ChunkRing::~ChunkRing() { release_all(); }

// Waits for every copy and kernel that may still touch a slot or staging buffer,
// then frees them, ignoring errors: it runs in a destructor, possibly while an
// exception (a reader's error mid-pass, a sticky device error) unwinds.
void ChunkRing::release_all() noexcept {
  int previous = -1;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != resources_.device_id() &&
                        cudaSetDevice(resources_.device_id()) == cudaSuccess;
  cudaStreamSynchronize(resources_.copy_stream());
  cudaStreamSynchronize(resources_.compute_stream());
  for (Staging& staging : staging_) {
    if (staging.memory) cudaFreeHost(staging.memory);
    if (staging.free) cudaEventDestroy(staging.free);
  }
  for (Slot& slot : slots_) {
    if (slot.loaded) cudaEventDestroy(slot.loaded);
    if (slot.free) cudaEventDestroy(slot.free);
  }
  staging_.clear();
  slots_.clear();  // frees the device memory (DeviceBuffer)
  if (switched) cudaSetDevice(previous);
}

bool ChunkRing::holds(std::uint64_t id) const {
  for (const Slot& slot : slots_)
    if (slot.chunk == id) return true;
  return false;
}

CsrView ChunkRing::view_of(const Slot& slot, const CsrView& host) const {
  const ChunkLayout layout = chunk_layout(slot.shape);
  const std::byte* base = slot.memory.data();
  CsrView view;
  view.n_rows = slot.shape.n_rows;
  view.n_features = host.n_features;
  view.row_offsets = reinterpret_cast<const std::int64_t*>(base + layout.offsets_at);
  view.col_indices = reinterpret_cast<const std::int32_t*>(base + layout.indices_at);
  view.values = reinterpret_cast<const float*>(base + layout.values_at);
  view.first_row = host.first_row;
  return view;
}

CsrView ChunkRing::load(std::uint64_t id, const CsrView& host) {
  require(in_use_ == kNoSlot, "ChunkRing::load called again before release() of the chunk it returned");
  require(id != kNoChunk, "chunk id " + std::to_string(id) + " is reserved");
  DeviceGuard guard(resources_.device_id());
  const cudaStream_t copy = resources_.copy_stream();
  const cudaStream_t compute = resources_.compute_stream();
  const ChunkShape shape{host.n_rows, host.n_rows > 0 ? host.nnz() : 0};

  // Still in a slot from an earlier load: the compute stream already waited for
  // that upload (waiting again costs nothing), and no later upload replaced it.
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    Slot& slot = slots_[s];
    if (slot.chunk != id) continue;
    require(slot.shape.n_rows == shape.n_rows && slot.shape.nnz == shape.nnz,
            "chunk " + std::to_string(id) + " changed shape since it was loaded");
    SNAPML_CUDA_CHECK(cudaStreamWaitEvent(compute, slot.loaded, 0));
    in_use_ = s;
    return view_of(slot, host);
  }

  validate_csr_structure(host);
  const ChunkLayout layout = chunk_layout(shape);
  require(layout.bytes <= slot_bytes_, "chunk " + std::to_string(id) + " needs " + std::to_string(layout.bytes) +
                                           " device bytes but the ring's slots hold " +
                                           std::to_string(slot_bytes_));
  const std::size_t s = next_slot_;
  next_slot_ = (next_slot_ + 1) % slots_.size();
  Slot& slot = slots_[s];
  Staging& staging = staging_[next_staging_];
  next_staging_ = (next_staging_ + 1) % staging_.size();

  // Host: refill the staging buffer once the DMA that last read it is done.
  SNAPML_CUDA_CHECK(cudaEventSynchronize(staging.free));
  auto* pinned = static_cast<std::byte*>(staging.memory);
  const std::int64_t zero = 0;
  copy_to_pinned(pinned + layout.offsets_at, shape.n_rows > 0 ? host.row_offsets : &zero,
                 static_cast<std::size_t>(layout.indices_at - layout.offsets_at));
  if (shape.nnz > 0) {
    copy_to_pinned(pinned + layout.indices_at, host.col_indices,
                   static_cast<std::size_t>(layout.values_at - layout.indices_at));
    copy_to_pinned(pinned + layout.values_at, host.values, static_cast<std::size_t>(layout.bytes - layout.values_at));
  }

  // Copy stream: overwrite the slot only after the kernels that read its last chunk.
  slot.chunk = kNoChunk;
  SNAPML_CUDA_CHECK(cudaStreamWaitEvent(copy, slot.free, 0));
  SNAPML_CUDA_CHECK(cudaMemcpyAsync(slot.memory.data(), pinned, static_cast<std::size_t>(layout.bytes),
                                    cudaMemcpyHostToDevice, copy));
  SNAPML_CUDA_CHECK(cudaEventRecord(staging.free, copy));
  SNAPML_CUDA_CHECK(cudaEventRecord(slot.loaded, copy));
  // Compute stream: the chunk's kernels start after its upload.
  SNAPML_CUDA_CHECK(cudaStreamWaitEvent(compute, slot.loaded, 0));
  slot.chunk = id;
  slot.shape = shape;
  uploaded_bytes_ += layout.bytes;
  ++uploads_;
  in_use_ = s;
  return view_of(slot, host);
}

void ChunkRing::release() {
  require(in_use_ != kNoSlot, "ChunkRing::release without a loaded chunk");
  DeviceGuard guard(resources_.device_id());
  SNAPML_CUDA_CHECK(cudaEventRecord(slots_[in_use_].free, resources_.compute_stream()));
  in_use_ = kNoSlot;
}

}  // namespace snapml::cuda
