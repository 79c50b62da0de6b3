// The binary chunked format: round trips, the mapped chunk source, and refusal
// of truncated, corrupted, foreign, future and crafted files.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "test_data.h"

namespace snapml::datasets {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const Bytes& bytes, std::size_t count) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(count));
}

std::string scratch(const std::string& name) { return testing::scratch_dir() + "/" + name; }

// Chunks of the given row counts; about a quarter of the rows are empty, values
// include the bit patterns a decimal round trip could lose (-0, denormals).
Dataset make_dataset(const std::vector<std::int64_t>& chunk_rows, bool weights, std::uint32_t seed = 7) {
  const std::int32_t n_features = 50;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  const float specials[] = {-0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                            1e-30f};
  std::vector<CsrChunk> chunks;
  for (std::int64_t rows : chunk_rows) {
    CsrChunk c;
    for (std::int64_t r = 0; r < rows; ++r) {
      std::vector<std::int32_t> indices;
      std::vector<float> values;
      if (rng() % 4 != 0) {
        for (std::int32_t j = 0; j < n_features; ++j) {
          if (rng() % 5 != 0) continue;
          indices.push_back(j);
          values.push_back(rng() % 7 == 0 ? specials[rng() % 4] : value(rng));
        }
      }
      c.add_row(static_cast<double>(rng() % 5) / 3.0 - 0.5, indices.data(), values.data(),
                static_cast<std::int64_t>(indices.size()));
      if (weights) c.weights.push_back(0.5f + static_cast<float>(rng() % 100) / 10.0f);
    }
    chunks.push_back(std::move(c));
  }
  return Dataset(std::move(chunks), n_features);
}

template <typename T>
bool same_bits(const std::vector<T>& a, const T* b, std::size_t n) {
  return a.size() == n && (n == 0 || std::memcmp(a.data(), b, n * sizeof(T)) == 0);
}

void expect_same_chunk(const CsrChunk& c, const CsrView& v) {
  const auto rows = static_cast<std::size_t>(v.n_rows);
  const auto nnz = static_cast<std::size_t>(v.nnz());
  EXPECT_EQ(c.first_row, v.first_row);
  EXPECT_TRUE(same_bits(c.row_offsets, v.row_offsets, rows + 1));
  EXPECT_TRUE(same_bits(c.labels, v.labels, rows));
  EXPECT_TRUE(same_bits(c.col_indices, v.col_indices, nnz));
  EXPECT_TRUE(same_bits(c.values, v.values, nnz));
  if (c.weights.empty()) {
    // An empty chunk of a weighted file has no weights to compare.
    if (rows > 0) {
      EXPECT_EQ(v.weights, nullptr);
    }
  } else {
    EXPECT_TRUE(same_bits(c.weights, v.weights, rows));
  }
}

void expect_same_dataset(const Dataset& a, const Dataset& b) {
  ASSERT_EQ(a.n_features(), b.n_features());
  ASSERT_EQ(a.n_rows(), b.n_rows());
  ASSERT_EQ(a.nnz(), b.nnz());
  ASSERT_EQ(a.n_chunks(), b.n_chunks());
  for (std::size_t i = 0; i < a.n_chunks(); ++i) {
    SCOPED_TRACE("chunk " + std::to_string(i));
    expect_same_chunk(a.chunk(i), b.view(i));
  }
}

// Runs `body`, expecting an InputError whose message contains every fragment.
template <typename Body>
void expect_input_error(Body body, const std::vector<std::string>& fragments) {
  try {
    body();
    ADD_FAILURE() << "no InputError thrown; expected one mentioning \"" << fragments.front() << "\"";
  } catch (const InputError& e) {
    for (const auto& f : fragments) EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
  }
}

BinaryHeader header_of(const Bytes& file) {
  BinaryHeader h;
  std::memcpy(&h, file.data(), sizeof h);
  return h;
}

BinaryChunkEntry entry_of(const Bytes& file, std::size_t i) {
  BinaryChunkEntry e;
  std::memcpy(&e, file.data() + sizeof(BinaryHeader) + i * sizeof(BinaryChunkEntry), sizeof e);
  return e;
}

// Recomputes every checksum after a test edits the bytes: what a deliberate
// attacker (rather than a flipped bit) would do.
void reseal(Bytes& file) {
  BinaryHeader h = header_of(file);
  const auto n_chunks = static_cast<std::size_t>(h.n_chunks);
  for (std::size_t i = 0; i < n_chunks; ++i) {
    BinaryChunkEntry e = entry_of(file, i);
    const auto bytes = binary_chunk_bytes(static_cast<std::uint64_t>(e.n_rows), static_cast<std::uint64_t>(e.nnz),
                                          (h.flags & kBinaryFlagWeights) != 0);
    e.checksum = XXH3_64bits(file.data() + e.offset, bytes);
    std::memcpy(file.data() + sizeof(BinaryHeader) + i * sizeof(BinaryChunkEntry), &e, sizeof e);
  }
  Bytes covered(file.begin(), file.begin() + offsetof(BinaryHeader, header_checksum));
  covered.insert(covered.end(), file.begin() + sizeof(BinaryHeader),
                 file.begin() + static_cast<std::ptrdiff_t>(sizeof(BinaryHeader) + n_chunks * sizeof(BinaryChunkEntry)));
  h.header_checksum = XXH3_64bits(covered.data(), covered.size());
  std::memcpy(file.data(), &h, sizeof h);
}

// ---- round trips ----

TEST(BinaryFormat, RoundTripWithoutWeightsIsBitExact) {
  const Dataset data = make_dataset({17, 0, 33, 1, 8}, /*weights=*/false);
  const std::string path = scratch("plain.snap");
  write_binary(data, path);
  expect_same_dataset(data, load_binary(path));
}

TEST(BinaryFormat, RoundTripWithWeightsIsBitExact) {
  const Dataset data = make_dataset({9, 12, 0, 5}, /*weights=*/true);
  const std::string path = scratch("weighted.snap");
  write_binary(data, path);
  const Dataset back = load_binary(path);
  expect_same_dataset(data, back);
  EXPECT_TRUE(MappedBinaryFile(path).has_weights());
}

TEST(BinaryFormat, DatasetWithoutRowsRoundTrips) {
  const std::string none = scratch("no-chunks.snap");
  write_binary(Dataset({}, 5), none);
  const MappedBinaryFile file(none);
  EXPECT_EQ(file.n_rows(), 0);
  EXPECT_EQ(file.n_chunks(), 0u);
  EXPECT_EQ(file.n_features(), 5);
  EXPECT_EQ(file.file_size(), sizeof(BinaryHeader));

  const std::string empty_chunk = scratch("empty-chunk.snap");
  const Dataset one_empty = make_dataset({0}, false);
  write_binary(one_empty, empty_chunk);
  expect_same_dataset(one_empty, load_binary(empty_chunk));
}

TEST(BinaryFormat, RechunkingKeepsTheRowsInOrder) {
  // Weights on one chunk only: the others are written as ones.
  Dataset data = make_dataset({5, 0, 7, 3}, false);
  std::vector<CsrChunk> chunks = data.chunks();
  chunks[2].weights.assign(7, 2.5f);
  data = Dataset(std::move(chunks), data.n_features());

  const std::string path = scratch("rechunked.snap");
  BinaryWriteOptions options;
  options.chunk_rows = 4;
  write_binary(data, path, options);
  const Dataset back = load_binary(path);
  ASSERT_EQ(back.n_chunks(), 4u);  // 15 rows: 4 + 4 + 4 + 3
  EXPECT_EQ(back.chunk(3).n_rows(), 3);
  EXPECT_EQ(back.chunk(2).first_row, 8);
  expect_same_dataset(data.merged(), back.merged());
}

TEST(BinaryFormat, NegativeChunkRowsIsRefused) {
  BinaryWriteOptions options;
  options.chunk_rows = -1;
  EXPECT_THROW(write_binary(make_dataset({3}, false), scratch("never.snap"), options), InvalidArgument);
}

TEST(BinaryFormat, WriterRefusesAFileTheReaderWouldRefuse) {
  CsrChunk c;
  const std::int32_t columns[] = {1, 9};
  const float values[] = {0.5f, 2.0f};
  c.add_row(1.0, columns, values, 2);
  std::vector<CsrChunk> chunks{c};
  const std::string path = scratch("refused.snap");
  try {
    write_binary(Dataset(chunks, 5), path);
    ADD_FAILURE() << "a column index past n_features was written";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("column index 9 is outside [0, 5)"), std::string::npos) << e.what();
  }
  chunks[0].row_offsets = {0, 3};  // 3 offsets' worth of entries, 2 values
  EXPECT_THROW(write_binary(Dataset(chunks, 10), path), InvalidArgument);
  EXPECT_FALSE(std::ifstream(path).good()) << "a refused write left a file behind";
}

// ---- the mapped chunk source ----

TEST(MappedBinarySource, VisitsEveryChunkInOrderWithoutCopying) {
  const Dataset data = make_dataset({10, 0, 4, 21}, true);
  const std::string path = scratch("source.snap");
  write_binary(data, path);
  MappedBinarySource source(path);
  EXPECT_EQ(source.n_rows(), data.n_rows());
  EXPECT_EQ(source.nnz(), data.nnz());
  EXPECT_EQ(source.n_features(), data.n_features());
  ASSERT_EQ(source.n_chunks(), data.n_chunks());

  std::vector<const float*> first_pass;
  CsrView v;
  std::size_t i = 0;
  for (; source.next(v); ++i) {
    ASSERT_LT(i, data.n_chunks());
    SCOPED_TRACE("chunk " + std::to_string(i));
    expect_same_chunk(data.chunk(i), v);
    // Zero copy means the arrays sit in the map, each on an 8-byte boundary.
    for (const void* p : {static_cast<const void*>(v.row_offsets), static_cast<const void*>(v.labels),
                          static_cast<const void*>(v.weights), static_cast<const void*>(v.col_indices),
                          static_cast<const void*>(v.values)})
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 8, 0u);
    first_pass.push_back(v.values);
  }
  EXPECT_EQ(i, data.n_chunks());
  EXPECT_FALSE(source.next(v));

  source.reset();
  for (std::size_t k = 0; source.next(v); ++k) EXPECT_EQ(v.values, first_pass[k]) << "chunk " << k << " was copied";
}

// ---- refused files ----

class BinaryFileDamage : public ::testing::Test {
 protected:
  void SetUp() override {
    write_binary(make_dataset({6, 6, 6, 6, 6}, false), path_);
    file_ = read_bytes(path_);
  }
  std::string damaged(const std::string& name, const Bytes& bytes, std::size_t count) {
    const std::string p = scratch(name);
    write_bytes(p, bytes, count);
    return p;
  }
  std::string damaged(const std::string& name, const Bytes& bytes) { return damaged(name, bytes, bytes.size()); }

  const std::string path_ = scratch("intact.snap");
  Bytes file_;
};

TEST_F(BinaryFileDamage, TruncatedFilesAreRefusedWithTheSizes) {
  const std::size_t table_end = sizeof(BinaryHeader) + 5 * sizeof(BinaryChunkEntry);
  const std::size_t chunk3 = entry_of(file_, 3).offset;
  const std::string size = std::to_string(file_.size());
  struct Cut {
    std::size_t at;
    std::string expected;
  };
  for (const Cut& cut : {Cut{0, "64"}, Cut{5, "64"}, Cut{40, "64"},       // inside the header
                         Cut{table_end - 12, size},                       // inside the table
                         Cut{chunk3 + 20, size}, Cut{file_.size() - 1, size}}) {  // inside chunks
    SCOPED_TRACE("cut at byte " + std::to_string(cut.at));
    const std::string p = damaged("cut-" + std::to_string(cut.at) + ".snap", file_, cut.at);
    expect_input_error([&] { MappedBinaryFile f(p); },
                       {p, "truncated", "expected", cut.expected, "found " + std::to_string(cut.at)});
  }
}

TEST_F(BinaryFileDamage, FlippedBitInAChunkNamesTheChunk) {
  Bytes bad = file_;
  const BinaryChunkEntry e = entry_of(file_, 3);
  bad[e.offset + binary_chunk_bytes(static_cast<std::uint64_t>(e.n_rows), static_cast<std::uint64_t>(e.nnz), false) -
      5] ^= 0x10;  // inside the chunk's values
  const std::string p = damaged("flipped.snap", bad);

  const MappedBinaryFile lazy(p);  // opens: chunks are verified on first use
  EXPECT_NO_THROW(lazy.chunk(2));
  expect_input_error([&] { lazy.chunk(3); }, {p, "chunk 3 checksum mismatch (file corrupted)"});
  expect_input_error([&] { lazy.chunk(3); }, {"chunk 3 checksum mismatch"});  // refused every time

  BinaryOpenOptions eager;
  eager.verify_all = true;
  expect_input_error([&] { MappedBinaryFile f(p, eager); }, {"chunk 3 checksum mismatch"});
  expect_input_error([&] { load_binary(p); }, {"chunk 3 checksum mismatch"});
  MappedBinarySource source(p);
  CsrView v;
  expect_input_error(
      [&] {
        while (source.next(v)) {
        }
      },
      {"chunk 3 checksum mismatch"});
}

TEST(BinaryFormat, EveryFlippedByteIsRefused) {
  // Whatever byte a bad disk flips (header, table, array or padding), opening with
  // verify_all refuses the file instead of returning different data.
  const std::string path = scratch("small.snap");
  write_binary(make_dataset({2, 0, 1}, true), path);
  const Bytes file = read_bytes(path);
  const std::string p = scratch("small-flipped.snap");
  BinaryOpenOptions eager;
  eager.verify_all = true;
  for (std::size_t at = 0; at < file.size(); ++at) {
    Bytes bad = file;
    bad[at] ^= 0x04;
    write_bytes(p, bad, bad.size());
    EXPECT_THROW(MappedBinaryFile(p, eager), InputError) << "flipped byte " << at << " of " << file.size();
  }
}

TEST_F(BinaryFileDamage, FlippedBitInTheHeaderIsACorruption) {
  Bytes bad = file_;
  bad[offsetof(BinaryHeader, n_rows)] ^= 0x01;
  const std::string p = damaged("header-flip.snap", bad);
  expect_input_error([&] { MappedBinaryFile f(p); }, {p, "header checksum mismatch"});
}

TEST_F(BinaryFileDamage, BadMagicIsNotABinaryFile) {
  for (std::size_t size : {file_.size(), std::size_t{20}}) {
    Bytes bad = file_;
    bad[0] = '+';
    const std::string p = damaged("magic-" + std::to_string(size) + ".snap", bad, size);
    expect_input_error([&] { MappedBinaryFile f(p); }, {p, "not a snapml binary file", "magic"});
  }
}

TEST_F(BinaryFileDamage, FutureVersionIsRefusedNamingTheVersion) {
  Bytes bad = file_;
  const std::uint32_t future = kBinaryVersion + 1;
  std::memcpy(bad.data() + offsetof(BinaryHeader, version), &future, sizeof future);
  const std::string p = damaged("future.snap", bad);
  expect_input_error([&] { MappedBinaryFile f(p); }, {p, "version " + std::to_string(future), "newer"});

  const std::uint32_t zero = 0;
  std::memcpy(bad.data() + offsetof(BinaryHeader, version), &zero, sizeof zero);
  expect_input_error([&] { MappedBinaryFile f(damaged("zero.snap", bad)); }, {"unsupported", "version 0"});
}

TEST_F(BinaryFileDamage, UnknownFlagsAreRefused) {
  Bytes bad = file_;
  const std::uint32_t flags = 1u << 7;
  std::memcpy(bad.data() + offsetof(BinaryHeader, flags), &flags, sizeof flags);
  reseal(bad);
  expect_input_error([&] { MappedBinaryFile f(damaged("flags.snap", bad)); }, {"unknown header flags"});
}

TEST_F(BinaryFileDamage, TrailingBytesAreRefused) {
  Bytes bad = file_;
  bad.push_back(0);
  expect_input_error([&] { MappedBinaryFile f(damaged("trailing.snap", bad)); }, {"1 unexpected bytes"});
}

TEST_F(BinaryFileDamage, MissingFileIsAnIoError) {
  EXPECT_THROW(MappedBinaryFile(scratch("does-not-exist.snap")), IoError);
  EXPECT_THROW(MappedBinaryFile(testing::scratch_dir()), IoError);
}

// A file whose checksums all match but whose contents would send a solver out of
// bounds: the structural checks, not the checksums, must refuse it.
TEST_F(BinaryFileDamage, CraftedColumnIndexOutOfRangeIsRefused) {
  Bytes bad = file_;
  const BinaryChunkEntry e = entry_of(file_, 1);
  ASSERT_GT(e.nnz, 0);
  const std::size_t cols = e.offset + 16 * static_cast<std::size_t>(e.n_rows) + 8;
  const std::int32_t huge = 1 << 30;
  std::memcpy(bad.data() + cols + 4 * static_cast<std::size_t>(e.nnz - 1), &huge, sizeof huge);
  reseal(bad);
  const MappedBinaryFile f(damaged("crafted-column.snap", bad));
  expect_input_error([&] { f.chunk(1); }, {"chunk 1 is malformed", "column index 1073741824 outside [0, 50)"});
}

TEST_F(BinaryFileDamage, CraftedRowOffsetsAreRefused) {
  const BinaryChunkEntry e = entry_of(file_, 2);
  ASSERT_GT(e.nnz, 2);
  auto with_offset = [&](std::size_t row, std::int64_t offset) {
    Bytes bad = file_;
    std::memcpy(bad.data() + e.offset + 8 * row, &offset, sizeof offset);
    reseal(bad);
    return bad;
  };
  const auto last = static_cast<std::size_t>(e.n_rows);
  const MappedBinaryFile decreasing(damaged("crafted-decreasing.snap", with_offset(last - 1, e.nnz + 1)));
  expect_input_error([&] { decreasing.chunk(2); }, {"chunk 2 is malformed", "row offsets decrease"});
  const MappedBinaryFile long_end(damaged("crafted-end.snap", with_offset(last, e.nnz + 1)));
  expect_input_error([&] { long_end.chunk(2); }, {"chunk 2 is malformed", "last row offset"});
  const MappedBinaryFile nonzero_start(damaged("crafted-start.snap", with_offset(0, 1)));
  expect_input_error([&] { nonzero_start.chunk(2); }, {"chunk 2 is malformed", "row_offsets[0]"});
}

TEST_F(BinaryFileDamage, CraftedChunkTableIsRefused) {
  auto with_entry = [&](std::size_t i, auto edit) {
    Bytes bad = file_;
    BinaryChunkEntry e = entry_of(file_, i);
    edit(e);
    std::memcpy(bad.data() + sizeof(BinaryHeader) + i * sizeof(BinaryChunkEntry), &e, sizeof e);
    reseal(bad);
    return bad;
  };
  const auto huge = std::numeric_limits<std::int64_t>::max() / 2;
  const Bytes big_nnz = with_entry(4, [&](BinaryChunkEntry& e) { e.nnz = huge; });
  expect_input_error([&] { MappedBinaryFile f(damaged("table-nnz.snap", big_nnz)); },
                     {"chunk table corrupted: chunk 4", "more than the file holds"});
  const Bytes moved = with_entry(1, [](BinaryChunkEntry& e) { e.offset += 8; });
  expect_input_error([&] { MappedBinaryFile f(damaged("table-offset.snap", moved)); },
                     {"chunk table corrupted: chunk 1 starts at byte"});
  const Bytes first_row = with_entry(2, [](BinaryChunkEntry& e) { e.first_row = 0; });
  expect_input_error([&] { MappedBinaryFile f(damaged("table-first-row.snap", first_row)); },
                     {"chunk table corrupted: chunk 2 starts at row 0, expected 12"});
  const Bytes many_chunks = [&] {
    Bytes bad = file_;
    const std::int64_t n = huge;
    std::memcpy(bad.data() + offsetof(BinaryHeader, n_chunks), &n, sizeof n);
    return bad;  // not resealed: the count must be bounded before it sizes the checksum
  }();
  expect_input_error([&] { MappedBinaryFile f(damaged("many-chunks.snap", many_chunks)); },
                     {"header corrupted", "chunks do not fit"});
}

// ---- real data: svmlight -> binary -> svmlight ----

void expect_svmlight_round_trip(const std::string& original, const std::string& name) {
  SvmlightOptions options;
  options.chunk_rows = 100;  // several chunks even for heart_scale's 270 rows
  const Dataset text = read_svmlight(original, options);
  ASSERT_GT(text.n_rows(), 0);
  const std::string binary = scratch(name + ".snap");
  write_binary(text, binary);
  const Dataset loaded = load_binary(binary);
  expect_same_dataset(text, loaded);

  // Back to text and parsed again: the shortest-decimal writer must give the
  // same float bits, chunk by chunk.
  const std::string again = scratch(name + ".svm");
  write_svmlight(loaded, again);
  SvmlightOptions reread = options;
  reread.n_features = text.n_features();
  expect_same_dataset(text, read_svmlight(again, reread));
}

TEST(BinaryFormatRealData, HeartScaleSurvivesSvmlightBinarySvmlight) {
  SNAPML_REQUIRE_DATASET(path, "heart_scale");
  expect_svmlight_round_trip(path, "heart_scale");
}

TEST(BinaryFormatRealData, A9aSurvivesSvmlightBinarySvmlight) {
  SNAPML_REQUIRE_DATASET(path, "a9a");
  expect_svmlight_round_trip(path, "a9a");
  const MappedBinaryFile file(scratch("a9a.snap"));
  EXPECT_EQ(file.n_rows(), 32561);
  EXPECT_EQ(file.nnz(), 451592);
  EXPECT_EQ(file.n_chunks(), 326u);  // 325 full chunks of 100 rows and one of 61
}

}  // namespace
}  // namespace snapml::datasets
