// The binary chunked format: writer, memory-mapped reader, chunk source.
//
// A file is a 64-byte header, a chunk table, then the CSR chunks, each laid out so
// that it maps onto a snapml::CsrView with no copy (docs/formats.md, "Binary
// chunked format", has the byte-by-byte table):
//
//   header     magic "SNAPBIN\0", version, flags, n_rows, n_features, nnz,
//              n_chunks, file_size, XXH3-64 of (header bytes 0..55 + table)
//   table      per chunk: file offset, n_rows, nnz, first_row, XXH3-64 of the chunk
//   chunk      row_offsets i64[n+1] | labels f64[n] | weights f32[n] (flag) |
//              col_indices i32[nnz] | values f32[nnz]; every array starts on an
//              8-byte boundary, padding bytes are zero and covered by the checksum
//
// All integers and floats are little-endian; the sources refuse to compile on a
// big-endian host rather than silently write a different format. The extension
// snap-convert recognises is `.snap`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/csr_view.h"
#include "snapml/dataset.h"
#include "snapml/datasets/input_file.h"

namespace snapml::datasets {

// ---- layout (the format's definition; changing any of it bumps the version) ----

inline constexpr char kBinaryMagic[8] = {'S', 'N', 'A', 'P', 'B', 'I', 'N', '\0'};
inline constexpr std::uint32_t kBinaryVersion = 1;
inline constexpr std::uint32_t kBinaryFlagWeights = 1u << 0;  // chunks carry f32 weights
inline constexpr std::uint32_t kBinaryKnownFlags = kBinaryFlagWeights;
inline constexpr const char* kBinaryExtension = ".snap";

struct BinaryHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t flags;
  std::int64_t n_rows;
  std::int64_t n_features;
  std::int64_t nnz;
  std::int64_t n_chunks;
  std::uint64_t file_size;        // total bytes; a shorter file is truncated
  std::uint64_t header_checksum;  // XXH3-64 of bytes [0, 56) followed by the table
};
static_assert(sizeof(BinaryHeader) == 64, "the header is 64 bytes on disk");

struct BinaryChunkEntry {
  std::uint64_t offset;  // file offset of the chunk's row_offsets array
  std::int64_t n_rows;
  std::int64_t nnz;
  std::int64_t first_row;   // global index of the chunk's row 0
  std::uint64_t checksum;   // XXH3-64 of the chunk's binary_chunk_bytes() bytes
};
static_assert(sizeof(BinaryChunkEntry) == 40, "a table entry is 40 bytes on disk");

// Bytes an array of `bytes` occupies once padded to the next 8-byte boundary.
constexpr std::uint64_t binary_padded(std::uint64_t bytes) { return (bytes + 7) & ~std::uint64_t{7}; }

// Bytes of one chunk on disk, padding included.
constexpr std::uint64_t binary_chunk_bytes(std::uint64_t n_rows, std::uint64_t nnz, bool has_weights) {
  return 8 * (n_rows + 1) + 8 * n_rows + (has_weights ? binary_padded(4 * n_rows) : 0) +
         2 * binary_padded(4 * nnz);
}

// ---- writer ----

struct BinaryWriteOptions {
  // Rows per chunk in the file; 0 keeps the dataset's own chunks.
  std::int64_t chunk_rows = 0;
};

// Writes `data` atomically (snapml::AtomicFile): the target appears complete or
// not at all. Weights are stored when any chunk has them (ones for the others).
// Throws IoError when the file cannot be written.
void write_binary(const Dataset& data, const std::string& path, const BinaryWriteOptions& options = {});

// ---- reader ----

enum class BinaryAccess {
  Sequential,  // chunks streamed in order (epochs of a solver): MADV_SEQUENTIAL
  Random,      // chunks visited in any order: MADV_RANDOM, no read-ahead waste
};

struct BinaryOpenOptions {
  // Verify every chunk's checksum and structure on open instead of on first use.
  bool verify_all = false;
  BinaryAccess access = BinaryAccess::Sequential;
};

// The checks every reader of the format applies, shared by the memory-mapped
// reader below and the pread-based streamed one (streamed_binary_source.h), so
// that both refuse the same files with the same messages. Each throws InputError
// naming `path`.
//
// The header fields that can be checked before the table is read: magic,
// version, flags, file size against `actual_size`, and a chunk count that fits.
void check_binary_header(const std::string& path, const BinaryHeader& header, std::uint64_t actual_size);
// The header checksum (over `header` and the n_chunks table entries at
// `table_bytes`), the header's counts, and a table of contiguous chunks that end
// the file. Returns the table.
std::vector<BinaryChunkEntry> check_binary_table(const std::string& path, const BinaryHeader& header,
                                                 const unsigned char* table_bytes);
// The view of a chunk whose binary_chunk_bytes() bytes start at `bytes` (8-byte
// aligned), not verified.
CsrView binary_chunk_view(const BinaryChunkEntry& entry, std::int32_t n_features, bool has_weights,
                          const unsigned char* bytes);
// The chunk's checksum (unless `checksum` is false) and the invariants a solver
// relies on to stay in bounds (offsets monotonic, last offset == nnz, column
// indices < n_features); the error names chunk `index`.
void verify_binary_chunk(const std::string& path, std::size_t index, const BinaryChunkEntry& entry,
                         std::int32_t n_features, bool has_weights, const unsigned char* bytes,
                         bool checksum = true);

// A read-only memory map of a binary file. Opening validates the magic, version,
// flags, header checksum and that the chunk table describes contiguous chunks that
// fit in the file; each chunk is checksummed and structurally checked (offsets
// monotonic, last offset == nnz, column indices < n_features) once, the first
// time it is requested, so a crafted file cannot make a solver read out of
// bounds. Errors: InputError naming the file (truncated, corrupted, bad magic,
// unsupported version), IoError when the file cannot be opened or mapped.
// Thread-safe for concurrent chunk() calls.
class MappedBinaryFile {
 public:
  explicit MappedBinaryFile(const std::string& path, const BinaryOpenOptions& options = {});
  // Maps an input already opened (and sniffed, format.h); a stream spooled into
  // memory maps as well as a file.
  explicit MappedBinaryFile(const InputFile& input, const BinaryOpenOptions& options = {});
  ~MappedBinaryFile();
  MappedBinaryFile(MappedBinaryFile&& other) noexcept;
  MappedBinaryFile& operator=(MappedBinaryFile&& other) noexcept;
  MappedBinaryFile(const MappedBinaryFile&) = delete;
  MappedBinaryFile& operator=(const MappedBinaryFile&) = delete;

  const std::string& path() const { return path_; }
  std::int64_t n_rows() const { return header_.n_rows; }
  std::int32_t n_features() const { return static_cast<std::int32_t>(header_.n_features); }
  std::int64_t nnz() const { return header_.nnz; }
  std::size_t n_chunks() const { return table_.size(); }
  bool has_weights() const { return (header_.flags & kBinaryFlagWeights) != 0; }
  std::uint64_t file_size() const { return header_.file_size; }
  const BinaryChunkEntry& chunk_entry(std::size_t i) const { return table_.at(i); }

  // A view of chunk `i` pointing into the map, valid while this object lives.
  // Verifies the chunk on its first request; throws InputError if it is corrupt.
  CsrView chunk(std::size_t i) const;
  // Verifies every chunk not verified yet.
  void verify_all() const;
  // Asks the kernel to start reading chunk `i` now (MADV_WILLNEED).
  void prefetch(std::size_t i) const;

 private:
  void validate_header(std::uint64_t actual_size);
  void validate_table();
  void verify_chunk(std::size_t i) const;
  // The view of chunk `i` without verification (the table is already validated,
  // so the pointers lie inside the map; the contents may not be checked yet).
  CsrView unchecked_view(std::size_t i) const;
  const unsigned char* chunk_bytes(std::size_t i) const { return map_ + table_[i].offset; }
  void unmap() noexcept;

  std::string path_;
  const unsigned char* map_ = nullptr;
  std::size_t map_size_ = 0;
  BinaryHeader header_{};
  std::vector<BinaryChunkEntry> table_;
  // verified_[i]: chunk i passed verify_chunk. Two threads may both verify the
  // same chunk at once; that only repeats work.
  std::unique_ptr<std::atomic<bool>[]> verified_;
};

// Reads a whole binary file into an owning Dataset (every chunk verified).
Dataset load_binary(const std::string& path);
Dataset load_binary(const InputFile& input);

// The chunks of a mapped binary file in order, with no copy; asks the kernel to
// read chunk k+1 ahead while chunk k is in use.
class MappedBinarySource final : public ResidentSource {
 public:
  explicit MappedBinarySource(const std::string& path, const BinaryOpenOptions& options = {});
  explicit MappedBinarySource(MappedBinaryFile file);

  bool next(CsrView& chunk) override;
  std::int32_t n_features() const override { return file_.n_features(); }
  std::int64_t n_rows() const override { return file_.n_rows(); }
  std::int64_t nnz() const override { return file_.nnz(); }
  std::size_t n_chunks() const override { return file_.n_chunks(); }
  // The mapping lives as long as the source: every chunk is reachable at once.
  CsrView chunk(std::size_t index) const override { return file_.chunk(index); }
  const MappedBinaryFile& file() const { return file_; }

 private:
  MappedBinaryFile file_;
};

}  // namespace snapml::datasets
