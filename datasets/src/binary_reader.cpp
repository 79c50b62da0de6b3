// Memory-mapped reader of the binary chunked format (layout: binary_format.h,
// docs/formats.md).
//
// Nothing in the file is trusted: opening checks every header and table field
// before any of them is used as an offset or a size, and each chunk's contents are
// checked on first use, so that a truncated, corrupted or crafted file is refused
// with an InputError instead of letting a solver read outside the map.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "snapml/datasets/binary_format.h"
#include "snapml/error.h"
#include "snapml/impl/huge_pages.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary chunked format is little-endian; this reader needs a little-endian host"
#endif

namespace snapml::datasets {

namespace {

constexpr std::uint64_t kHeaderBytes = sizeof(BinaryHeader);
constexpr std::uint64_t kEntryBytes = sizeof(BinaryChunkEntry);

std::string truncated(std::uint64_t expected, std::uint64_t actual, const char* what) {
  return "truncated: expected " + std::string(what) + std::to_string(expected) + " bytes, found " +
         std::to_string(actual) + " (an interrupted copy or write?)";
}

// XXH3-64 of the header's first 56 bytes followed by the chunk table: the
// checksum field itself sits between the two and is not covered.
std::uint64_t header_checksum(const unsigned char* header, const unsigned char* table, std::uint64_t n_chunks) {
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state{XXH3_createState(), XXH3_freeState};
  if (!state) throw std::bad_alloc();
  XXH3_64bits_reset(state.get());
  XXH3_64bits_update(state.get(), header, offsetof(BinaryHeader, header_checksum));
  XXH3_64bits_update(state.get(), table, n_chunks * kEntryBytes);
  return XXH3_64bits_digest(state.get());
}

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

MappedBinaryFile::MappedBinaryFile(const std::string& path, const BinaryOpenOptions& options)
    : MappedBinaryFile(InputFile(path), options) {}

MappedBinaryFile::MappedBinaryFile(const InputFile& input, const BinaryOpenOptions& options) : path_(input.path()) {
  const std::string& path = path_;
  const std::uint64_t actual_size = input.size();
  if (actual_size < kHeaderBytes) {
    // Too short to map a header; what there is tells a foreign file (bad magic)
    // from a truncated one.
    if (input.head().size() >= sizeof kBinaryMagic && !input.starts_with(kBinaryMagic, sizeof kBinaryMagic))
      throw InputError(path, 0, 0, "not a snapml binary file (bad magic; expected \"SNAPBIN\" at byte 0)");
    throw InputError(path, 0, 0, truncated(kHeaderBytes, actual_size, "a header of "));
  }
  // The mapping holds the file; the descriptor stays with `input`.
  void* map = ::mmap(nullptr, actual_size, PROT_READ, MAP_PRIVATE, input.fd(), 0);
  const std::string reason = errno_message();
  if (map == MAP_FAILED) throw IoError("cannot map " + path + ": " + reason);
  map_ = static_cast<const unsigned char*>(map);
  map_size_ = actual_size;
  try {
    validate_header(actual_size);
    validate_table();
    // Advice only: a failure here changes speed, never results.
    ::madvise(const_cast<unsigned char*>(map_), map_size_,
              options.access == BinaryAccess::Sequential ? MADV_SEQUENTIAL : MADV_RANDOM);
    verified_.reset(new std::atomic<bool>[table_.size()]());
    if (options.verify_all) verify_all();
  } catch (...) {
    unmap();
    throw;
  }
}

MappedBinaryFile::~MappedBinaryFile() { unmap(); }

MappedBinaryFile::MappedBinaryFile(MappedBinaryFile&& other) noexcept
    : path_(std::move(other.path_)),
      map_(std::exchange(other.map_, nullptr)),
      map_size_(std::exchange(other.map_size_, 0)),
      header_(other.header_),
      table_(std::move(other.table_)),
      verified_(std::move(other.verified_)) {}

MappedBinaryFile& MappedBinaryFile::operator=(MappedBinaryFile&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    map_ = std::exchange(other.map_, nullptr);
    map_size_ = std::exchange(other.map_size_, 0);
    header_ = other.header_;
    table_ = std::move(other.table_);
    verified_ = std::move(other.verified_);
  }
  return *this;
}

void MappedBinaryFile::unmap() noexcept {
  if (map_) ::munmap(const_cast<unsigned char*>(map_), map_size_);
  map_ = nullptr;
  map_size_ = 0;
}

void check_binary_header(const std::string& path, const BinaryHeader& header, std::uint64_t actual_size) {
  auto fail = [&](const std::string& problem) { throw InputError(path, 0, 0, problem); };
  if (std::memcmp(header.magic, kBinaryMagic, sizeof kBinaryMagic) != 0)
    fail("not a snapml binary file (bad magic; expected \"SNAPBIN\" at byte 0)");
  // The version comes before every other field: a later version may lay the
  // rest of the header out differently.
  if (header.version > kBinaryVersion)
    fail("binary format version " + std::to_string(header.version) + " is newer than this build reads (version " +
         std::to_string(kBinaryVersion) + "); upgrade snapml or convert the data again with this build's snap-convert");
  if (header.version != kBinaryVersion)
    fail("unsupported binary format version " + std::to_string(header.version) + " (this build reads version " +
         std::to_string(kBinaryVersion) + ")");
  if (header.flags & ~kBinaryKnownFlags)
    fail("unknown header flags " + std::to_string(header.flags) + " (written by a newer snapml?)");
  if (actual_size < header.file_size) fail(truncated(header.file_size, actual_size, ""));
  if (actual_size > header.file_size)
    fail(std::to_string(actual_size - header.file_size) + " unexpected bytes after the end of the data (the header says " +
         std::to_string(header.file_size) + " bytes; file corrupted)");
  // Bound n_chunks by the file size before it sizes anything (a corrupt count
  // must not make the checksum read past the table).
  if (header.n_chunks < 0 ||
      static_cast<std::uint64_t>(header.n_chunks) > (header.file_size - kHeaderBytes) / kEntryBytes)
    fail("header corrupted: " + std::to_string(header.n_chunks) + " chunks do not fit in the file");
}

std::vector<BinaryChunkEntry> check_binary_table(const std::string& path, const BinaryHeader& header,
                                                 const unsigned char* table_bytes) {
  auto fail_header = [&](const std::string& problem) { throw InputError(path, 0, 0, problem); };
  const auto n_chunks = static_cast<std::size_t>(header.n_chunks);
  if (header_checksum(reinterpret_cast<const unsigned char*>(&header), table_bytes, n_chunks) != header.header_checksum)
    fail_header("header checksum mismatch (file corrupted)");
  // The checksum guards against accidents; these guard against a crafted file.
  if (header.n_rows < 0 || header.nnz < 0 || header.n_features < 0 ||
      header.n_features > std::numeric_limits<std::int32_t>::max())
    fail_header("header corrupted: n_rows " + std::to_string(header.n_rows) + ", n_features " +
                std::to_string(header.n_features) + ", nnz " + std::to_string(header.nnz));
  const bool has_weights = (header.flags & kBinaryFlagWeights) != 0;
  std::vector<BinaryChunkEntry> table(n_chunks);
  if (n_chunks) std::memcpy(table.data(), table_bytes, n_chunks * kEntryBytes);
  // Chunks follow the table back to back, in row order, and end the file. With
  // that invariant a chunk's bounds follow from the counts alone.
  std::uint64_t expected_offset = kHeaderBytes + n_chunks * kEntryBytes;
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  const std::uint64_t file_size = header.file_size;
  for (std::size_t i = 0; i < n_chunks; ++i) {
    const BinaryChunkEntry& e = table[i];
    auto fail = [&](const std::string& problem) {
      throw InputError(path, 0, 0, "chunk table corrupted: chunk " + std::to_string(i) + " " + problem);
    };
    if (e.offset != expected_offset)
      fail("starts at byte " + std::to_string(e.offset) + ", expected " + std::to_string(expected_offset));
    // Bounding the counts by the remaining bytes first keeps binary_chunk_bytes()
    // from overflowing (a row takes at least 16 bytes, a non-zero 8).
    const std::uint64_t remaining = file_size - e.offset;
    if (e.n_rows < 0 || e.nnz < 0 || static_cast<std::uint64_t>(e.n_rows) > remaining / 16 ||
        static_cast<std::uint64_t>(e.nnz) > remaining / 8)
      fail("has " + std::to_string(e.n_rows) + " rows and " + std::to_string(e.nnz) +
           " non-zeros, more than the file holds");
    const std::uint64_t bytes =
        binary_chunk_bytes(static_cast<std::uint64_t>(e.n_rows), static_cast<std::uint64_t>(e.nnz), has_weights);
    if (bytes > remaining) fail("ends past the end of the file");
    if (e.first_row != rows)
      fail("starts at row " + std::to_string(e.first_row) + ", expected " + std::to_string(rows));
    expected_offset += bytes;
    rows += e.n_rows;
    nnz += e.nnz;
  }
  auto fail = [&](const std::string& problem) {
    throw InputError(path, 0, 0, "chunk table corrupted: " + problem);
  };
  if (expected_offset != file_size)
    fail("the chunks end at byte " + std::to_string(expected_offset) + ", the file at " + std::to_string(file_size));
  if (rows != header.n_rows || nnz != header.nnz)
    fail("the chunks hold " + std::to_string(rows) + " rows and " + std::to_string(nnz) + " non-zeros, the header says " +
         std::to_string(header.n_rows) + " and " + std::to_string(header.nnz));
  return table;
}

void MappedBinaryFile::validate_header(std::uint64_t actual_size) {
  std::memcpy(&header_, map_, kHeaderBytes);
  check_binary_header(path_, header_, actual_size);
}

void MappedBinaryFile::validate_table() { table_ = check_binary_table(path_, header_, map_ + kHeaderBytes); }

void verify_binary_chunk(const std::string& path, std::size_t index, const BinaryChunkEntry& e,
                         std::int32_t n_features, bool has_weights, const unsigned char* bytes, bool checksum) {
  auto fail = [&](const std::string& problem) {
    throw InputError(path, 0, 0, "chunk " + std::to_string(index) + " " + problem);
  };
  const std::uint64_t size =
      binary_chunk_bytes(static_cast<std::uint64_t>(e.n_rows), static_cast<std::uint64_t>(e.nnz), has_weights);
  if (checksum && XXH3_64bits(bytes, size) != e.checksum) fail("checksum mismatch (file corrupted)");
  // A matching checksum proves the bytes are those written, not that the writer
  // was sound; these are the invariants a solver relies on to stay in bounds.
  const CsrView v = binary_chunk_view(e, n_features, has_weights, bytes);
  if (v.row_offsets[0] != 0) fail("is malformed: row_offsets[0] is " + std::to_string(v.row_offsets[0]) + ", not 0");
  // A streamed source checks every chunk on every pass, so the scans below are
  // branch-free reductions (they vectorise) and only a failure looks for where.
  bool decreasing = false;
  for (std::int64_t r = 0; r < v.n_rows; ++r) decreasing |= v.row_offsets[r + 1] < v.row_offsets[r];
  if (decreasing)
    for (std::int64_t r = 0; r < v.n_rows; ++r)
      if (v.row_offsets[r + 1] < v.row_offsets[r])
        fail("is malformed: row offsets decrease at row " + std::to_string(r));
  if (v.row_offsets[v.n_rows] != e.nnz)
    fail("is malformed: last row offset " + std::to_string(v.row_offsets[v.n_rows]) + " is not nnz " +
         std::to_string(e.nnz));
  // One unsigned comparison catches negative indices too.
  const auto limit = static_cast<std::uint32_t>(v.n_features);
  std::uint32_t outside = 0;
  for (std::int64_t k = 0; k < e.nnz; ++k) outside |= static_cast<std::uint32_t>(v.col_indices[k]) >= limit;
  if (outside != 0)
    for (std::int64_t k = 0; k < e.nnz; ++k)
      if (v.col_indices[k] < 0 || v.col_indices[k] >= v.n_features)
        fail("is malformed: column index " + std::to_string(v.col_indices[k]) + " outside [0, " +
             std::to_string(v.n_features) + ")");
  // NaN and infinities pass a checksum but poison every weight they touch (the
  // text reader refuses them too): the same branch-free scan, |x| <= max being
  // false for NaN.
  auto finite = [](const auto* x, std::int64_t n, auto largest) {
    bool all = true;
    for (std::int64_t k = 0; k < n; ++k) all &= std::fabs(x[k]) <= largest;
    return all;
  };
  auto row_of = [&](std::int64_t k) {
    return static_cast<std::int64_t>(std::upper_bound(v.row_offsets, v.row_offsets + v.n_rows + 1, k) -
                                     v.row_offsets) - 1;
  };
  auto fail_row = [&](std::int64_t row, const std::string& what, double value) {
    fail("row " + std::to_string(row) + " (row " + std::to_string(v.first_row + row + 1) + " of the file) has " +
         what + " " + std::to_string(value) + ", not a finite number");
  };
  if (!finite(v.labels, v.n_rows, std::numeric_limits<double>::max()))
    for (std::int64_t r = 0; r < v.n_rows; ++r)
      if (!std::isfinite(v.labels[r])) fail_row(r, "the label", v.labels[r]);
  if (v.weights && !finite(v.weights, v.n_rows, std::numeric_limits<float>::max()))
    for (std::int64_t r = 0; r < v.n_rows; ++r)
      if (!std::isfinite(v.weights[r])) fail_row(r, "the sample weight", v.weights[r]);
  if (!finite(v.values, e.nnz, std::numeric_limits<float>::max()))
    for (std::int64_t k = 0; k < e.nnz; ++k)
      if (!std::isfinite(v.values[k]))
        fail_row(row_of(k), "the value of feature " + std::to_string(v.col_indices[k]), v.values[k]);
}

void MappedBinaryFile::verify_chunk(std::size_t i) const {
  verify_binary_chunk(path_, i, table_[i], n_features(), has_weights(), chunk_bytes(i));
  verified_[i].store(true, std::memory_order_release);
}

CsrView MappedBinaryFile::chunk(std::size_t i) const {
  if (i >= table_.size())
    throw InvalidArgument("chunk " + std::to_string(i) + " requested from " + path_ + ", which has " +
                          std::to_string(table_.size()) + " chunks");
  if (!verified_[i].load(std::memory_order_acquire)) verify_chunk(i);
  return unchecked_view(i);
}

CsrView binary_chunk_view(const BinaryChunkEntry& e, std::int32_t n_features, bool has_weights,
                          const unsigned char* bytes) {
  const auto n_rows = static_cast<std::uint64_t>(e.n_rows);
  const auto nnz = static_cast<std::uint64_t>(e.nnz);
  // Every array starts on an 8-byte boundary of an 8-byte aligned chunk (a
  // page-aligned map, or a buffer of 64-bit words), so the pointers are aligned
  // for their types.
  const unsigned char* p = bytes;
  CsrView v;
  v.n_rows = e.n_rows;
  v.n_features = n_features;
  v.first_row = e.first_row;
  v.row_offsets = reinterpret_cast<const std::int64_t*>(p);
  p += 8 * (n_rows + 1);
  v.labels = reinterpret_cast<const double*>(p);
  p += 8 * n_rows;
  if (has_weights) {
    v.weights = reinterpret_cast<const float*>(p);
    p += binary_padded(4 * n_rows);
  }
  v.col_indices = reinterpret_cast<const std::int32_t*>(p);
  p += binary_padded(4 * nnz);
  v.values = reinterpret_cast<const float*>(p);
  return v;
}

CsrView MappedBinaryFile::unchecked_view(std::size_t i) const {
  return binary_chunk_view(table_[i], n_features(), has_weights(), chunk_bytes(i));
}

void MappedBinaryFile::verify_all() const {
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (!verified_[i].load(std::memory_order_acquire)) verify_chunk(i);
}

void MappedBinaryFile::prefetch(std::size_t i) const {
  if (i >= table_.size()) return;
  const BinaryChunkEntry& e = table_[i];
  const std::uint64_t bytes =
      binary_chunk_bytes(static_cast<std::uint64_t>(e.n_rows), static_cast<std::uint64_t>(e.nnz), has_weights());
  // madvise wants a page-aligned start.
  const std::uint64_t start = e.offset - e.offset % page_size();
  ::madvise(const_cast<unsigned char*>(map_) + start, e.offset + bytes - start, MADV_WILLNEED);
}

Dataset load_binary(const std::string& path) { return load_binary(InputFile(path)); }

Dataset load_binary(const InputFile& input) {
  BinaryOpenOptions options;
  options.verify_all = true;
  const MappedBinaryFile file(input, options);
  std::vector<CsrChunk> chunks(file.n_chunks());
  for (std::size_t i = 0; i < file.n_chunks(); ++i) {
    const CsrView v = file.chunk(i);
    CsrChunk& c = chunks[i];
    const auto n_rows = static_cast<std::size_t>(v.n_rows);
    const auto nnz = static_cast<std::size_t>(v.nnz());
    // Solvers read the rows in a random order (snapml/impl/huge_pages.h).
    reserve_huge_pages(c.row_offsets, n_rows + 1);
    reserve_huge_pages(c.labels, n_rows);
    reserve_huge_pages(c.col_indices, nnz);
    reserve_huge_pages(c.values, nnz);
    if (v.weights) reserve_huge_pages(c.weights, n_rows);
    c.row_offsets.assign(v.row_offsets, v.row_offsets + n_rows + 1);
    c.labels.assign(v.labels, v.labels + n_rows);
    if (v.weights) c.weights.assign(v.weights, v.weights + n_rows);
    c.col_indices.assign(v.col_indices, v.col_indices + nnz);
    c.values.assign(v.values, v.values + nnz);
  }
  return Dataset(std::move(chunks), file.n_features());
}

MappedBinarySource::MappedBinarySource(const std::string& path, const BinaryOpenOptions& options)
    : file_(path, options) {}

MappedBinarySource::MappedBinarySource(MappedBinaryFile file) : file_(std::move(file)) {}

bool MappedBinarySource::next(CsrView& chunk) {
  if (!ResidentSource::next(chunk)) return false;
  file_.prefetch(position());  // read the next chunk while the caller works on this one
  return true;
}

}  // namespace snapml::datasets
