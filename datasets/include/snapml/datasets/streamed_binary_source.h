// Out-of-core reading of the binary chunked format (docs/out-of-core.md).
//
// StreamedBinarySource reads the chunks of a `.snap` file with pread into a
// bounded ring of buffers, each as large as the file's largest chunk, filled by
// one background thread while the solver trains on the chunk before. The ring is
// the only data memory it holds: unlike a memory map, whose touched pages count
// towards the process's resident set until the kernel reclaims them, the
// process's data memory stays at `buffers` chunks whatever the file's size.
//
// plan_binary_source() is the selection both snap-train (--max-memory) and the
// Python estimators (max_memory) use: the whole file when it fits the budget, else
// a ring sized to it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/datasets/binary_format.h"

namespace snapml::datasets {

// The validated header and chunk table of a binary file, read with pread (no map).
// Throws what MappedBinaryFile's constructor throws for the same file.
//
// A rank's share under mpirun (layout_share in partition.h) keeps a contiguous run
// of the table: `first_chunk` is the file's index of table[0] (chunks are named by
// their index in the file), and header.n_rows and header.nnz count the share's.
struct BinaryFileLayout {
  std::string path;
  BinaryHeader header{};
  std::vector<BinaryChunkEntry> table;
  std::size_t first_chunk = 0;
  bool has_weights() const { return (header.flags & kBinaryFlagWeights) != 0; }
  std::uint64_t chunk_bytes(std::size_t i) const;
  std::uint64_t largest_chunk_bytes() const;
  // The bytes the data occupies: the file, or a share's chunks.
  std::uint64_t data_bytes() const;
};
BinaryFileLayout read_binary_layout(const std::string& path);
// The layout of an input opened by the format seam (format.h). Streaming reads
// the file by its path again, so a pipe or FIFO (held in memory by InputFile)
// cannot stream: InvalidArgument naming it and asking for a regular file.
BinaryFileLayout read_binary_layout(const InputFile& input);

// The chunks of a binary file in file order (or a given order: reset_in_order),
// read ahead by a background thread
// into `buffers` (>= 2) ring buffers. Not resident: a view from next() is valid
// until the following next() or reset(), or with hold(k) until k more next()
// calls or reset(). A chunk's checksum is verified the first
// time this source reads it, as the memory-mapped reader does (the file must not be
// rewritten in place while training: a file renamed over it is not seen, the
// descriptor keeps the old one); the invariants that keep a solver in bounds are
// checked every time it is read (the file is read again every pass). A reader error (a
// chunk that fails its checks, a file truncated or unreadable after opening) is
// thrown from the next() call that would have returned that chunk, as InputError
// or IoError naming the file and the chunk. The thread is stopped and joined by
// reset() (unless a pass has just ended, see below) and by the destructor.
//
// After the last chunk the reader goes on with chunk 0 of the next pass into the
// free buffers, since a solver calls reset() and starts again: reset() right
// after a complete pass (or before any next()) keeps what is read ahead.
class StreamedBinarySource final : public ChunkSource {
 public:
  explicit StreamedBinarySource(const std::string& path, std::size_t buffers = 2);
  explicit StreamedBinarySource(BinaryFileLayout layout, std::size_t buffers = 2);
  ~StreamedBinarySource() override;
  StreamedBinarySource(const StreamedBinarySource&) = delete;
  StreamedBinarySource& operator=(const StreamedBinarySource&) = delete;

  bool next(CsrView& chunk) override;
  void reset() override;
  // A pass in `order` (validated: a permutation of the chunks). The reader reads
  // ahead in the order of the pass it is in, into the next pass too: a following
  // pass in the same order keeps what was read ahead, another order re-reads.
  bool reset_in_order(const std::vector<std::size_t>& order) override;
  // Up to every buffer of the ring; the reader reads ahead into the buffers not
  // held (none when all are: next() then waits for each read).
  std::size_t max_held() const override { return slots_.size(); }
  void hold(std::size_t count) override;
  std::int32_t n_features() const override { return static_cast<std::int32_t>(layout_.header.n_features); }
  std::int64_t n_rows() const override { return layout_.header.n_rows; }
  std::int64_t nnz() const override { return layout_.header.nnz; }
  std::size_t n_chunks() const override { return layout_.table.size(); }
  bool resident() const override { return false; }

  const BinaryFileLayout& layout() const { return layout_; }
  // Bytes of data memory the ring holds: buffers x the largest chunk.
  std::uint64_t ring_bytes() const { return static_cast<std::uint64_t>(slots_.size()) * slot_words_ * 8; }

 private:
  struct Slot {
    std::unique_ptr<std::uint64_t[]> words;  // 8-byte aligned, as binary_chunk_view needs
    std::size_t chunk = 0;
  };
  void start_reader();
  void stop_reader();
  // A new pass in the current order, keeping what the reader read ahead when it
  // is at a pass boundary.
  void rewind();
  void read_ahead();
  void read_chunk(std::size_t index, unsigned char* into) const;

  BinaryFileLayout layout_;
  int fd_ = -1;
  std::size_t slot_words_ = 0;
  std::vector<Slot> slots_;

  std::mutex mutex_;
  std::condition_variable changed_;  // every state change below wakes every waiter
  std::thread reader_;
  bool stop_ = false;
  // Slots are used in ring order: from head_, `held_` slots whose views next()
  // returned (oldest first), then `filled_` slots read ahead; the reader fills
  // slot (head_ + held_ + filled_) % size. next() gives up the oldest held slot
  // when `hold_` are held (hold()).
  std::size_t head_ = 0;
  std::size_t filled_ = 0;
  std::size_t held_ = 0;
  std::size_t hold_ = 1;
  std::exception_ptr error_;  // the reader's failure on the chunk after the filled ones
  std::size_t position_ = 0;  // chunks next() has returned in this pass
  // The pass's chunk order; empty: file order. Changed only while the reader is
  // stopped (it reads it without the lock).
  std::vector<std::size_t> order_;
  // Per chunk: its checksum was verified. Used by the reader thread only.
  mutable std::vector<unsigned char> checksummed_;  // written by read_chunk() (const: it reads)
};

// What plan_binary_source() decided.
struct BinarySourcePlan {
  bool stream = false;         // false: the whole file resident (memory-mapped or loaded)
  std::size_t buffers = 0;     // ring buffers when streaming
  std::uint64_t data_bytes = 0;   // the file, or the ring
  std::uint64_t state_bytes = 0;  // per-row solver state and the weights
};

// Bytes of solver state besides the data: alpha and the cached norm (8 bytes
// each a row) and the weight vector (8 bytes a feature, plus the intercept).
std::uint64_t solver_state_bytes(std::int64_t n_rows, std::int64_t n_features);

// What the solver keeps besides resident data: the above, the epoch's permutation
// of all rows (8 bytes a row), for the hinge and squared hinge the shrinking lists
// and the gap pass's margin bounds (25 bytes a row), and one copy of alpha (8: the
// hinge's averaged iterate, a smooth loss's best certified one; cocoa_round.h):
// 57 bytes a row at most, counted as 64 (room for the allocator). The data stays resident only when it
// fits with this beside it.
std::uint64_t resident_state_bytes(std::int64_t n_rows, std::int64_t n_features);

// The bytes the SDCA epoch keeps for each chunk of its window besides the chunk:
// the random order of its rows, 8 bytes a row of the largest chunk.
std::uint64_t window_row_bytes(const BinaryFileLayout& layout);

// The ring buffers `left` bytes (the budget less the state) hold: 2 of the largest
// chunk at least (fewer: the budget is too small); each one beyond them also
// holds `window_bytes`, since it widens the solver's window of chunks mixed
// (sdca_cpu.cpp; the first chunk's order is the few MB of slack of
// docs/out-of-core.md); at most chunks + 1 (a window of every chunk and one
// read ahead).
std::uint64_t stream_buffers(std::uint64_t left, std::uint64_t largest, std::uint64_t window_bytes, std::size_t chunks);

// The source a memory budget of `max_memory` bytes allows (0: no budget): the
// whole file when file + state fits, else a ring of as many buffers of the
// largest chunk as fit (stream_buffers; at least 2). The SDCA solver keeps all
// but one of them as its window of chunks mixed in one permutation
// (docs/out-of-core.md, "Convergence"). Throws InvalidArgument, naming what does
// not fit and by how much, when even 2 buffers + state exceed the budget.
BinarySourcePlan plan_binary_source(const BinaryFileLayout& layout, std::uint64_t max_memory);

// "4GB", "512MB", "1.5G", "100k", "123456" (bytes): binary units (k = 1024), an
// optional B/iB suffix, case-insensitive. Throws InvalidArgument on anything else,
// on zero and on sizes beyond 2^63.
std::uint64_t parse_memory_size(const std::string& text);

}  // namespace snapml::datasets
