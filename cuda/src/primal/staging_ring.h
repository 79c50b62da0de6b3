// Host data to the devices through rings of pinned slots (docs/gpu.md, "Primal
// Newton on the GPU": the upload). A list of staged copies, each at most one
// slot, is packed by a team of host threads: each thread takes the next copy in
// list order, waits for its slot only while the copy that last read that slot
// is still in flight, packs its bytes into the slot (an interleave, a transform
// of row offsets, targets: whatever the copy's `pack` writes) and queues the
// slot's copy on the copy stream the copy names. Packing runs while earlier
// slots cross the link; no thread waits for the others (no barrier per slot),
// so a thread the system deschedules delays its own copy only.
//
// The rings are the session's (primal_rows_cache.h, PrimalRowsCache): pinned memory is
// allocated once per session and device, not per upload, and grown only when a
// later upload has more copies in flight.
//
// Slot order: the k-th copy through a ring in one run uses slot k mod R and
// waits until copy k - R has been queued (a flag) and read (its event). Copies
// are handed out in list order, so copy k - R was handed out first and its
// thread never waits on a later copy: no deadlock.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "upload_timings.h"

namespace snapml::cuda::primal {

// A slot: 2 MiB, a copy that runs near the link's rate (55 GB/s measured on an
// H100's host link: 38 us a slot) and small enough that a copy of a few slots
// keeps every thread busy.
constexpr std::size_t kSlotBytes = std::size_t{2} << 20;
// Slots a ring holds at most: two per packing thread (16 at most, rows_upload.cpp).
constexpr int kMaxSlots = 32;

class StagingRing {
 public:
  StagingRing(int device_id, int slots, std::size_t slot_bytes);
  ~StagingRing();  // waits for the copies that still read the slots
  StagingRing(const StagingRing&) = delete;
  StagingRing& operator=(const StagingRing&) = delete;

  int device_id() const { return device_id_; }
  int slots() const { return slots_; }
  char* slot(int s) { return base_ + static_cast<std::size_t>(s) * slot_bytes_; }

 private:
  friend class StagedCopies;
  int device_id_;
  int slots_;
  std::size_t slot_bytes_;
  char* base_ = nullptr;
  std::vector<cudaEvent_t> read_;             // per slot: recorded after the copy that last read it
  std::unique_ptr<std::atomic<std::int64_t>[]> ready_for_;  // per slot: the run's copy that may take it next
  std::mutex queue_;                          // copies and their events are queued under it
};

// One ring per device, kept by the session.
class StagingRings {
 public:
  // Slots of `slot_bytes` (a multiple of 16; tests take small ones, so that few
  // rows make many copies).
  explicit StagingRings(std::size_t slot_bytes = kSlotBytes);
  std::size_t slot_bytes() const { return slot_bytes_; }
  // The ring of `device_id` with at least `slots` slots (at most kMaxSlots): made,
  // or replaced by a larger one, here.
  StagingRing& on(int device_id, int slots);
  // Pinned bytes held over every ring.
  std::size_t pinned_bytes() const;

 private:
  std::size_t slot_bytes_;
  std::map<int, std::unique_ptr<StagingRing>> rings_;
};

// One copy of at most a slot: pack(out) writes its `bytes` into a pinned
// slot, then they are copied to `destination` (device memory of device_id) on
// `stream` (a copy stream of device_id). `group` (a tile; -1: none): once a
// closed group's last copy is queued, StagedCopies calls on_group(group) under
// the device's queue lock, with the device current; every copy of a group goes
// to one device.
struct StagedCopy {
  int device_id = 0;
  cudaStream_t stream = nullptr;
  void* destination = nullptr;
  std::size_t bytes = 0;
  std::function<void(void* out)> pack;
  int group = -1;
};

class StagedCopies {
 public:
  // pack(first, n, out): items [first, first + n) of a list into `out`.
  using PackItems = std::function<void(std::int64_t first, std::int64_t n, void* out)>;

  StagedCopies(StagingRings& rings, int threads);
  void on_group(std::function<void(int group)> call) { on_group_ = std::move(call); }

  // Plans a copy for the next run.
  void add(StagedCopy copy);
  // Plans `count` items of `item_bytes` (a divisor of 16) to `destination`, a
  // slot's worth a copy.
  void add_items(int device_id, cudaStream_t stream, void* destination, std::size_t item_bytes, std::int64_t count,
                 const PackItems& pack, int group = -1);
  // No copy of `group` follows: its call comes once the planned ones are queued
  // (in this run or a later one). The group must have copies planned.
  void close(int group);

  std::size_t planned() const { return copies_.size(); }
  // Packs and queues the planned copies with up to `threads` host threads and
  // forgets them: the host memory they read may change once run() returns (the
  // copies may still be in flight: work that reads their destinations waits on
  // the copy streams first, as the caller arranges). The first exception of any
  // thread is rethrown once every thread has stopped.
  void run();
  // Groups whose call has not come (0 after the last run of a complete plan).
  std::int64_t groups_open() const;
  const StagingTimings& timings() const { return timings_; }

 private:
  struct Group {
    std::int64_t left = 0;  // planned copies not yet queued; changed under the device's queue lock
    bool closed = false;
    bool done = false;
  };
  void copy_one(StagedCopy& copy, std::int64_t sequence, StagingRing& ring, StagingTimings& timings);

  StagingRings& rings_;
  int threads_;
  std::function<void(int)> on_group_;
  std::vector<Group> groups_;
  std::vector<StagedCopy> copies_;
  StagingTimings timings_;
  std::atomic<bool> failed_{false};
};

// Copies `count` columns and values into {int32 column, float value} pairs at
// `out` (kernels.h's Entry), with streaming stores where the host has them and
// `out` is 16-byte aligned (a slot is): it is written once and read by the copy
// engine only, so a plain loop's read for ownership of each line (a third of
// its memory traffic) is skipped.
void interleave_entries(const std::int32_t* columns, const float* values, std::int64_t count, void* out);

}  // namespace snapml::cuda::primal
