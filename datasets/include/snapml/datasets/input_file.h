// An input path opened once: the one descriptor every reader takes, and the
// file's first bytes for the format sniffer (format.h).
//
// Why once: on a pipe, a FIFO or a terminal the bytes can be read only once. A
// second open of /dev/stdin sees the same pipe with whatever the first reader
// buffered gone (8 KiB of an svmlight file silently lost), and a second open of a
// FIFO whose writer has finished waits forever. So the path is opened here, a
// stream is spooled whole into an anonymous memory file (memfd_create), and from
// then on every input is a regular file read through this descriptor: mapped,
// inflated, or mapped as binary, by offset, never by path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace snapml::datasets {

class InputFile {
 public:
  // The most bytes head() holds: enough for every magic the sniffer knows.
  static constexpr std::size_t kHeadBytes = 16;

  // Throws IoError when the path cannot be opened or read, or is a directory.
  // A stream is spooled up to `max_memory` bytes (--max-memory; 0: half the
  // memory available, spool_budget()), past which InputError names the path and
  // the budget: a pipe or device with no end (`/dev/zero`) grew until the kernel's
  // OOM killer fired, killing other processes first (issue 36, case 9).
  explicit InputFile(const std::string& path, std::uint64_t max_memory = 0);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  // A regular file: the path's own, or the memory file a stream was spooled into.
  // Readers address it by offset (mmap, pread), so its position stays 0.
  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  // True when the path was a pipe, FIFO, terminal or socket, now held in memory.
  bool spooled() const { return spooled_; }
  // The first min(kHeadBytes, size()) bytes.
  const std::string& head() const { return head_; }
  bool starts_with(const void* magic, std::size_t size) const;
  // Hands the descriptor to a reader that closes it (gzdopen); fd() is then -1.
  int release();
  // What tells this file from another without reading it all: its size and a
  // checksum of its first and last MiB ("3478238 bytes, ends 5f0c..."). The ranks
  // of one mpirun job compare it (rank_agreement.h, check_same_on_every_rank).
  std::string identity() const;

  // The most bytes a stream may hold in memory without a --max-memory: half of
  // what the machine has available (feature_memory.h's available_memory_bytes),
  // since the rows parsed from it need about as much again; 0 (no bound) where
  // the machine does not say.
  static std::uint64_t spool_budget();

 private:
  void spool(int stream, std::uint64_t limit, bool given);

  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  bool spooled_ = false;
  std::string head_;
};

}  // namespace snapml::datasets
