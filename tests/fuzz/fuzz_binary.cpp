// libFuzzer harness: the .snap reader, memory-mapped (load_binary, what
// snap-train reads a file that fits with) and streamed (StreamedBinarySource, what
// --max-memory falls back to). Each input is read as it is, then once more with
// its header's file size and every checksum it can reach rewritten to match: a
// random mutation almost never passes XXH3, and the structural checks behind the
// checksums (binary_reader.cpp) are what keeps a crafted file from sending a
// solver out of bounds. Properties: every failure is a snapml::Error; the two
// readers accept the same files and return the same rows, which keep the
// solver's invariants.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/error.h"

namespace {

using namespace snapml::datasets;

// The file as it would be had the writer produced its header and table: file
// size, header checksum and the checksum of every chunk the table places inside
// the file. Anything else stays as the fuzzer made it.
std::vector<std::uint8_t> with_checksums(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint8_t> file(data, data + size);
  if (size < sizeof(BinaryHeader)) return file;
  BinaryHeader header;
  std::memcpy(&header, file.data(), sizeof header);
  header.file_size = size;
  const std::uint64_t table_room = (size - sizeof header) / sizeof(BinaryChunkEntry);
  if (header.n_chunks >= 0 && static_cast<std::uint64_t>(header.n_chunks) <= table_room) {
    const auto n_chunks = static_cast<std::size_t>(header.n_chunks);
    unsigned char* table = file.data() + sizeof header;
    const bool weights = (header.flags & kBinaryFlagWeights) != 0;
    for (std::size_t i = 0; i < n_chunks; ++i) {
      BinaryChunkEntry entry;
      std::memcpy(&entry, table + i * sizeof entry, sizeof entry);
      if (entry.n_rows < 0 || entry.nnz < 0 || entry.offset > size) continue;
      if (static_cast<std::uint64_t>(entry.n_rows) > size || static_cast<std::uint64_t>(entry.nnz) > size) continue;
      const std::uint64_t bytes = binary_chunk_bytes(static_cast<std::uint64_t>(entry.n_rows),
                                                     static_cast<std::uint64_t>(entry.nnz), weights);
      if (bytes > size - entry.offset) continue;
      entry.checksum = XXH3_64bits(file.data() + entry.offset, bytes);
      std::memcpy(table + i * sizeof entry, &entry, sizeof entry);
    }
    XXH3_state_t* state = XXH3_createState();
    XXH3_64bits_reset(state);
    XXH3_64bits_update(state, &header, offsetof(BinaryHeader, header_checksum));
    XXH3_64bits_update(state, table, n_chunks * sizeof(BinaryChunkEntry));
    header.header_checksum = XXH3_64bits_digest(state);
    XXH3_freeState(state);
  }
  std::memcpy(file.data(), &header, sizeof header);
  return file;
}

// Every chunk of a streamed pass, copied (a view lives until the next next()).
struct Streamed {
  std::vector<snapml::CsrChunk> chunks;
  std::string error;
};

Streamed stream(const std::string& path) {
  Streamed out;
  try {
    StreamedBinarySource source(path, 2);
    snapml::CsrView v;
    // Two passes: the second reuses what the reader read ahead after the first.
    for (int pass = 0; pass < 2; ++pass) {
      out.chunks.clear();
      while (source.next(v)) {
        snapml::fuzz::check_view(v, false);
        snapml::CsrChunk c;
        c.first_row = v.first_row;
        c.row_offsets.assign(v.row_offsets, v.row_offsets + v.n_rows + 1);
        c.labels.assign(v.labels, v.labels + v.n_rows);
        if (v.weights) c.weights.assign(v.weights, v.weights + v.n_rows);
        c.col_indices.assign(v.col_indices, v.col_indices + v.nnz());
        c.values.assign(v.values, v.values + v.nnz());
        out.chunks.push_back(std::move(c));
      }
      source.reset();
    }
  } catch (const snapml::Error& e) {
    out.error = e.what();
  }
  return out;
}

void read_both(const std::uint8_t* data, std::size_t size) {
  const std::string& path = snapml::fuzz::write_input(data, size);
  bool mapped_ok = false;
  snapml::Dataset mapped;
  try {
    mapped = load_binary(path);
    mapped_ok = true;
  } catch (const snapml::Error&) {
  }
  const Streamed streamed = stream(path);
  if (mapped_ok != streamed.error.empty())
    snapml::fuzz::violated(mapped_ok ? "the streamed reader refuses what load_binary accepts: " + streamed.error
                                     : "the streamed reader accepts what load_binary refuses");
  if (!mapped_ok) return;
  snapml::fuzz::check_dataset(mapped, false);
  snapml::fuzz::check(streamed.chunks.size() == mapped.n_chunks(), "the readers see different chunk counts");
  for (std::size_t c = 0; c < mapped.n_chunks(); ++c)
    snapml::fuzz::check(snapml::fuzz::same_view(mapped.view(c), streamed.chunks[c].view(mapped.n_features())),
                        "the readers return different rows");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_both(data, size);
  const std::vector<std::uint8_t> repaired = with_checksums(data, size);
  read_both(repaired.data(), repaired.size());
  return 0;
}
