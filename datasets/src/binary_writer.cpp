// Writer of the binary chunked format (layout: binary_format.h, docs/formats.md).
//
// Two passes over the dataset: the first computes each chunk's checksum (the table,
// which comes before the chunks, holds them), the second writes. Both passes go
// through the same emit_chunk(), so the bytes hashed are the bytes written.
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "snapml/atomic_file.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/error.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary chunked format is little-endian; this writer needs a little-endian host"
#endif

namespace snapml::datasets {

namespace {

// Rows [begin, end) of one dataset chunk. A file chunk is one or more spans, so
// that the writer can re-cut the dataset into chunks of any size without a copy.
struct RowSpan {
  const CsrChunk* chunk;
  std::int64_t begin;
  std::int64_t end;
  std::int64_t nnz_begin() const { return chunk->row_offsets[static_cast<std::size_t>(begin)]; }
  std::int64_t nnz_end() const { return chunk->row_offsets[static_cast<std::size_t>(end)]; }
};

struct FileChunk {
  std::vector<RowSpan> spans;
  std::int64_t n_rows = 0;
  std::int64_t nnz = 0;
};

std::vector<FileChunk> plan_chunks(const Dataset& data, std::int64_t chunk_rows) {
  std::vector<FileChunk> plan;
  if (chunk_rows == 0) {  // keep the dataset's chunks, empty ones included
    for (const CsrChunk& c : data.chunks()) plan.push_back({{{&c, 0, c.n_rows()}}, c.n_rows(), c.nnz()});
    return plan;
  }
  for (const CsrChunk& c : data.chunks()) {
    std::int64_t row = 0;
    while (row < c.n_rows()) {
      if (plan.empty() || plan.back().n_rows == chunk_rows) plan.emplace_back();
      FileChunk& out = plan.back();
      std::int64_t take = std::min(chunk_rows - out.n_rows, c.n_rows() - row);
      RowSpan span{&c, row, row + take};
      out.spans.push_back(span);
      out.n_rows += take;
      out.nnz += span.nnz_end() - span.nnz_begin();
      row += take;
    }
  }
  return plan;
}

const unsigned char kZeros[8] = {};

// Writes one chunk's arrays, each padded to 8 bytes, to `sink.write(ptr, bytes)`.
template <typename Sink>
void emit_chunk(const FileChunk& chunk, bool has_weights, Sink& sink) {
  auto pad = [&](std::uint64_t bytes) { sink.write(kZeros, binary_padded(bytes) - bytes); };
  // Row offsets are rebased so the chunk's start at 0; staged through a buffer.
  std::vector<std::int64_t> buffer;
  buffer.reserve(4096);
  auto flush = [&] {
    sink.write(buffer.data(), buffer.size() * sizeof(std::int64_t));
    buffer.clear();
  };
  std::int64_t base = 0;
  buffer.push_back(0);
  for (const RowSpan& s : chunk.spans) {
    for (std::int64_t r = s.begin + 1; r <= s.end; ++r) {
      buffer.push_back(base + s.chunk->row_offsets[static_cast<std::size_t>(r)] - s.nnz_begin());
      if (buffer.size() == buffer.capacity()) flush();
    }
    base += s.nnz_end() - s.nnz_begin();
  }
  flush();

  for (const RowSpan& s : chunk.spans)
    sink.write(s.chunk->labels.data() + s.begin, static_cast<std::size_t>(s.end - s.begin) * sizeof(double));

  if (has_weights) {
    for (const RowSpan& s : chunk.spans) {
      if (s.chunk->weights.empty()) {  // a chunk without weights has weight 1 everywhere
        const std::vector<float> ones(static_cast<std::size_t>(s.end - s.begin), 1.0f);
        sink.write(ones.data(), ones.size() * sizeof(float));
      } else {
        sink.write(s.chunk->weights.data() + s.begin, static_cast<std::size_t>(s.end - s.begin) * sizeof(float));
      }
    }
    pad(4 * static_cast<std::uint64_t>(chunk.n_rows));
  }

  for (const RowSpan& s : chunk.spans)
    sink.write(s.chunk->col_indices.data() + s.nnz_begin(),
               static_cast<std::size_t>(s.nnz_end() - s.nnz_begin()) * sizeof(std::int32_t));
  pad(4 * static_cast<std::uint64_t>(chunk.nnz));
  for (const RowSpan& s : chunk.spans)
    sink.write(s.chunk->values.data() + s.nnz_begin(),
               static_cast<std::size_t>(s.nnz_end() - s.nnz_begin()) * sizeof(float));
  pad(4 * static_cast<std::uint64_t>(chunk.nnz));
}

struct HashSink {
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state{XXH3_createState(), XXH3_freeState};
  std::uint64_t bytes = 0;
  HashSink() {
    if (!state) throw std::bad_alloc();
    XXH3_64bits_reset(state.get());
  }
  void write(const void* data, std::size_t size) {
    XXH3_64bits_update(state.get(), data, size);
    bytes += size;
  }
  std::uint64_t digest() const { return XXH3_64bits_digest(state.get()); }
};

struct FileSink {
  AtomicFile& file;
  void write(const void* data, std::size_t size) { file.write(data, size); }
};

// The reader refuses a file whose chunks break these invariants (docs/formats.md,
// "Invariants"); checking them here reports the problem when it is made.
void check_writable(const Dataset& data) {
  for (std::size_t i = 0; i < data.n_chunks(); ++i) {
    const CsrChunk& c = data.chunk(i);
    const std::string which = "cannot write chunk " + std::to_string(i) + ": ";
    require(c.col_indices.size() == c.values.size() && c.row_offsets.front() == 0 &&
                c.row_offsets.back() == c.nnz(),
            which + "its row offsets, column indices and values disagree on the number of non-zeros");
    require(std::is_sorted(c.row_offsets.begin(), c.row_offsets.end()), which + "its row offsets decrease");
    for (std::int32_t column : c.col_indices)
      require(column >= 0 && column < data.n_features(), [&] {
        return which + "column index " + std::to_string(column) + " is outside [0, " +
               std::to_string(data.n_features()) + ")";
      });
  }
}

}  // namespace

void write_binary(const Dataset& data, const std::string& path, const BinaryWriteOptions& options) {
  require(options.chunk_rows >= 0,
          "chunk_rows must be 0 (keep the dataset's chunks) or positive, got " + std::to_string(options.chunk_rows));
  check_writable(data);
  const bool has_weights = std::any_of(data.chunks().begin(), data.chunks().end(),
                                       [](const CsrChunk& c) { return !c.weights.empty(); });
  const std::vector<FileChunk> plan = plan_chunks(data, options.chunk_rows);

  // Pass 1: the table (offsets follow from the sizes; checksums from hashing).
  std::vector<BinaryChunkEntry> table(plan.size());
  std::uint64_t offset = sizeof(BinaryHeader) + plan.size() * sizeof(BinaryChunkEntry);
  std::int64_t first_row = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    HashSink hash;
    emit_chunk(plan[i], has_weights, hash);
    const auto n_rows = static_cast<std::uint64_t>(plan[i].n_rows);
    const auto nnz = static_cast<std::uint64_t>(plan[i].nnz);
    if (hash.bytes != binary_chunk_bytes(n_rows, nnz, has_weights))  // a bug in emit_chunk
      throw Error("binary writer emitted " + std::to_string(hash.bytes) + " bytes for chunk " + std::to_string(i) +
                  ", expected " + std::to_string(binary_chunk_bytes(n_rows, nnz, has_weights)));
    table[i] = {offset, plan[i].n_rows, plan[i].nnz, first_row, hash.digest()};
    offset += hash.bytes;
    first_row += plan[i].n_rows;
  }

  BinaryHeader header{};
  std::memcpy(header.magic, kBinaryMagic, sizeof header.magic);
  header.version = kBinaryVersion;
  header.flags = has_weights ? kBinaryFlagWeights : 0;
  header.n_rows = data.n_rows();
  header.n_features = data.n_features();
  header.nnz = data.nnz();
  header.n_chunks = static_cast<std::int64_t>(plan.size());
  header.file_size = offset;
  HashSink header_hash;
  header_hash.write(&header, offsetof(BinaryHeader, header_checksum));
  header_hash.write(table.data(), table.size() * sizeof(BinaryChunkEntry));
  header.header_checksum = header_hash.digest();

  // Pass 2: write.
  AtomicFile file(path);
  file.write(&header, sizeof header);
  file.write(table.data(), table.size() * sizeof(BinaryChunkEntry));
  FileSink sink{file};
  for (const FileChunk& chunk : plan) emit_chunk(chunk, has_weights, sink);
  file.commit();
}

}  // namespace snapml::datasets
