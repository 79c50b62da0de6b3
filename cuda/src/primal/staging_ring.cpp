// The pinned rings and the team that packs and queues the staged copies
// (staging_ring.h).
#include "staging_ring.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "snapml/cuda/check.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/error.h"

namespace snapml::cuda::primal {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

StagingRing::StagingRing(int device_id, int slots, std::size_t slot_bytes)
    : device_id_(device_id),
      slots_(slots),
      slot_bytes_(slot_bytes),
      read_(static_cast<std::size_t>(std::max(slots, 0)), nullptr) {
  require(slots > 0 && slots <= kMaxSlots, "a staging ring of " + std::to_string(slots) + " slots (1 to " +
                                               std::to_string(kMaxSlots) + ")");
  ready_for_ = std::make_unique<std::atomic<std::int64_t>[]>(static_cast<std::size_t>(slots));
  for (int s = 0; s < slots; ++s) ready_for_[static_cast<std::size_t>(s)].store(s);
  DeviceGuard guard(device_id_);
  try {
    SNAPML_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&base_), static_cast<std::size_t>(slots) * slot_bytes_,
                                    cudaHostAllocDefault));
    for (cudaEvent_t& event : read_) SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  } catch (...) {
    for (cudaEvent_t event : read_)
      if (event) cudaEventDestroy(event);
    if (base_) cudaFreeHost(base_);
    throw;
  }
}

// Errors are ignored: this runs in destructors, possibly while a device error unwinds.
StagingRing::~StagingRing() {
  int previous = -1;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device_id_ &&
                        cudaSetDevice(device_id_) == cudaSuccess;
  for (cudaEvent_t event : read_)
    if (event) {
      cudaEventSynchronize(event);  // the slot's last copy has read it
      cudaEventDestroy(event);
    }
  if (base_) cudaFreeHost(base_);
  if (switched) cudaSetDevice(previous);
}

StagingRings::StagingRings(std::size_t slot_bytes) : slot_bytes_(slot_bytes) {
  require(slot_bytes_ >= 16 && slot_bytes_ % 16 == 0,
          "staging slots of " + std::to_string(slot_bytes_) + " bytes (a multiple of 16)");
}

StagingRing& StagingRings::on(int device_id, int slots) {
  slots = std::clamp(slots, 1, kMaxSlots);
  std::unique_ptr<StagingRing>& ring = rings_[device_id];
  if (!ring || ring->slots() < slots) {
    ring.reset();  // its copies end before its memory goes
    ring = std::make_unique<StagingRing>(device_id, slots, slot_bytes_);
  }
  return *ring;
}

std::size_t StagingRings::pinned_bytes() const {
  std::size_t bytes = 0;
  for (const auto& [device, ring] : rings_) bytes += static_cast<std::size_t>(ring->slots()) * slot_bytes_;
  return bytes;
}

StagedCopies::StagedCopies(StagingRings& rings, int threads) : rings_(rings), threads_(std::max(1, threads)) {}

void StagedCopies::add(StagedCopy copy) {
  require(copy.bytes > 0 && copy.bytes <= rings_.slot_bytes(), [&] {
    return "a staged copy of " + std::to_string(copy.bytes) + " bytes (1 to one slot, " +
           std::to_string(rings_.slot_bytes()) + ")";
  });
  require(copy.group >= -1, "a staged copy's group is -1 or an index");
  if (copy.group >= 0) {
    const auto g = static_cast<std::size_t>(copy.group);
    if (g >= groups_.size()) groups_.resize(g + 1);
    require(!groups_[g].closed,
            [&] { return "a staged copy added to group " + std::to_string(copy.group) + " after its close"; });
    ++groups_[g].left;
  }
  copies_.push_back(std::move(copy));
}

void StagedCopies::add_items(int device_id, cudaStream_t stream, void* destination, std::size_t item_bytes,
                             std::int64_t count, const PackItems& pack, int group) {
  require(item_bytes > 0 && 16 % item_bytes == 0,
          [&] { return "staged items of " + std::to_string(item_bytes) + " bytes"; });
  const auto per_slot = static_cast<std::int64_t>(rings_.slot_bytes() / item_bytes);
  for (std::int64_t first = 0; first < count; first += per_slot) {
    const std::int64_t n = std::min(per_slot, count - first);
    StagedCopy copy;
    copy.device_id = device_id;
    copy.stream = stream;
    copy.destination = static_cast<char*>(destination) + static_cast<std::size_t>(first) * item_bytes;
    copy.bytes = static_cast<std::size_t>(n) * item_bytes;
    copy.pack = [pack, first, n](void* out) { pack(first, n, out); };
    copy.group = group;
    add(std::move(copy));
  }
}

void StagedCopies::close(int group) {
  require(group >= 0 && static_cast<std::size_t>(group) < groups_.size() &&
              groups_[static_cast<std::size_t>(group)].left > 0 && !groups_[static_cast<std::size_t>(group)].closed,
          [&] { return "close of staged group " + std::to_string(group) + ", which has no copies planned or is closed"; });
  groups_[static_cast<std::size_t>(group)].closed = true;
}

std::int64_t StagedCopies::groups_open() const {
  std::int64_t open = 0;
  for (const Group& group : groups_) open += group.done ? 0 : 1;
  return open;
}

void StagedCopies::copy_one(StagedCopy& copy, std::int64_t sequence, StagingRing& ring, StagingTimings& timings) {
  const int s = static_cast<int>(sequence % ring.slots());
  std::atomic<std::int64_t>& ready = ring.ready_for_[static_cast<std::size_t>(s)];
  Clock::time_point start = Clock::now();
  while (ready.load(std::memory_order_acquire) != sequence) {  // copy `sequence - slots` is being packed
    if (failed_.load(std::memory_order_relaxed)) return;
    std::this_thread::yield();
  }
  SNAPML_CUDA_CHECK(cudaEventSynchronize(ring.read_[static_cast<std::size_t>(s)]));  // and read
  timings.slot_wait += seconds_since(start);
  start = Clock::now();
  copy.pack(ring.slot(s));
  timings.pack += seconds_since(start);
  start = Clock::now();
  {
    const std::lock_guard<std::mutex> lock(ring.queue_);
    DeviceGuard guard(ring.device_id());
    SNAPML_CUDA_CHECK(
        cudaMemcpyAsync(copy.destination, ring.slot(s), copy.bytes, cudaMemcpyHostToDevice, copy.stream));
    SNAPML_CUDA_CHECK(cudaEventRecord(ring.read_[static_cast<std::size_t>(s)], copy.stream));
    if (copy.group >= 0) {
      Group& group = groups_[static_cast<std::size_t>(copy.group)];
      if (--group.left == 0 && group.closed) {
        group.done = true;
        if (on_group_) on_group_(copy.group);
      }
    }
  }
  ready.store(sequence + ring.slots(), std::memory_order_release);
  timings.queue += seconds_since(start);
  timings.bytes += static_cast<std::int64_t>(copy.bytes);
  ++timings.copies;
}

void StagedCopies::run() {
  const Clock::time_point started = Clock::now();
  const std::size_t n = copies_.size();
  if (n == 0) return;
  const int threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), n));
  // Each device's ring: two slots a thread (one packed, one in flight), no more
  // than the copies it takes; its slots are all free at the start of a run (their
  // events still cover the copies of earlier runs).
  std::map<int, std::int64_t> per_device;
  for (const StagedCopy& copy : copies_) ++per_device[copy.device_id];
  std::map<int, StagingRing*> rings;
  const Clock::time_point making = Clock::now();
  for (const auto& [device, count] : per_device)
    rings[device] = &rings_.on(device, static_cast<int>(std::min<std::int64_t>(count, 2 * threads)));
  timings_.rings += seconds_since(making);
  for (auto& [device, ring] : rings)
    for (int s = 0; s < ring->slots(); ++s) ring->ready_for_[static_cast<std::size_t>(s)].store(s);
  std::vector<std::int64_t> sequence(n);
  std::vector<StagingRing*> ring_of(n);
  std::map<int, std::int64_t> next_sequence;
  for (std::size_t k = 0; k < n; ++k) {
    ring_of[k] = rings[copies_[k].device_id];
    sequence[k] = next_sequence[copies_[k].device_id]++;
  }

  failed_.store(false);
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_lock;
  auto work = [&](StagingTimings& timings) {
    try {
      for (;;) {
        const std::size_t k = next.fetch_add(1);  // handed out in list order
        if (k >= n || failed_.load(std::memory_order_relaxed)) break;
        copy_one(copies_[k], sequence[k], *ring_of[k], timings);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_lock);
      if (!error) error = std::current_exception();
      failed_.store(true);
    }
  };
#if defined(_OPENMP)
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    {
      StagingTimings mine;
      work(mine);
#pragma omp critical(snapml_staged_copies)
      {
        timings_.pack += mine.pack;
        timings_.slot_wait += mine.slot_wait;
        timings_.queue += mine.queue;
        timings_.bytes += mine.bytes;
        timings_.copies += mine.copies;
      }
    }
  } else {
    work(timings_);
  }
#else
  work(timings_);
#endif
  timings_.threads = threads;
  copies_.clear();
  timings_.wall += seconds_since(started);
  if (error) std::rethrow_exception(error);
}

void interleave_entries(const std::int32_t* columns, const float* values, std::int64_t count, void* out) {
  auto* pairs = static_cast<std::int32_t*>(out);  // column, value bits, column, ...
  std::int64_t k = 0;
#if defined(__SSE2__)
  if (reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
    auto* lines = static_cast<__m128i*>(out);
    for (; k + 4 <= count; k += 4) {
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(columns + k));
      const __m128i v = _mm_castps_si128(_mm_loadu_ps(values + k));
      _mm_stream_si128(lines + k / 2, _mm_unpacklo_epi32(c, v));      // pairs k, k + 1
      _mm_stream_si128(lines + k / 2 + 1, _mm_unpackhi_epi32(c, v));  // k + 2, k + 3
    }
    _mm_sfence();  // visible before the copy that reads them is queued
  }
#endif
  for (; k < count; ++k) {
    pairs[2 * k] = columns[k];
    std::memcpy(pairs + 2 * k + 1, values + k, sizeof(float));
  }
}

}  // namespace snapml::cuda::primal
