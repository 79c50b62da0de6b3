// The streamed (pread, ring-buffered) source of the binary format: the same chunks
// as the mapped source, training to the same model, reader errors surfacing on the
// consumer naming file and chunk, clean shutdown mid-stream; the memory-size
// parser and the budget plan.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "snapml/communicator.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/partition.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"
#include "snapml/train.h"
#include "test_data.h"

namespace snapml::datasets {
namespace {

std::string scratch(const std::string& name) { return testing::scratch_dir() + "/" + name; }

// 4,000 rows in 16 chunks of 250: enough chunks that a 2-buffer ring wraps many
// times in a pass.
std::string write_file(const std::string& name, std::int64_t rows = 4000, std::int64_t chunk_rows = 250) {
  SyntheticOptions options;
  options.rows = rows;
  options.features = 300;
  options.nnz_per_row = 12;
  options.seed = 5;
  const Dataset data = make_synthetic(options);
  BinaryWriteOptions write;
  write.chunk_rows = chunk_rows;
  const std::string path = scratch(name);
  write_binary(data, path, write);
  return path;
}

void expect_same_view(const CsrView& a, const CsrView& b) {
  ASSERT_EQ(a.n_rows, b.n_rows);
  ASSERT_EQ(a.first_row, b.first_row);
  ASSERT_EQ(a.n_features, b.n_features);
  const auto rows = static_cast<std::size_t>(a.n_rows);
  ASSERT_EQ(0, std::memcmp(a.row_offsets, b.row_offsets, 8 * (rows + 1)));
  ASSERT_EQ(0, std::memcmp(a.labels, b.labels, 8 * rows));
  ASSERT_EQ(a.weights == nullptr, b.weights == nullptr);
  if (a.weights) {
    ASSERT_EQ(0, std::memcmp(a.weights, b.weights, 4 * rows));
  }
  const auto nnz = static_cast<std::size_t>(a.nnz());
  ASSERT_EQ(0, std::memcmp(a.col_indices, b.col_indices, 4 * nnz));
  ASSERT_EQ(0, std::memcmp(a.values, b.values, 4 * nnz));
}

// One full pass of `streamed` against the mapped file.
void expect_pass_matches(StreamedBinarySource& streamed, const MappedBinaryFile& mapped) {
  CsrView x;
  std::size_t i = 0;
  while (streamed.next(x)) {
    ASSERT_LT(i, mapped.n_chunks());
    expect_same_view(x, mapped.chunk(i));
    ++i;
  }
  EXPECT_EQ(i, mapped.n_chunks());
  EXPECT_FALSE(streamed.next(x));  // stays at the end until reset()
}

TEST(StreamedBinarySource, YieldsTheMappedChunksPassAfterPass) {
  const std::string path = write_file("streamed_same.snap");
  const MappedBinaryFile mapped(path);
  for (std::size_t buffers : {2u, 3u, 5u}) {
    SCOPED_TRACE("buffers " + std::to_string(buffers));
    StreamedBinarySource streamed(path, buffers);
    EXPECT_FALSE(streamed.resident());
    EXPECT_EQ(streamed.n_rows(), mapped.n_rows());
    EXPECT_EQ(streamed.nnz(), mapped.nnz());
    EXPECT_EQ(streamed.n_chunks(), mapped.n_chunks());
    EXPECT_EQ(streamed.n_features(), mapped.n_features());
    EXPECT_EQ(streamed.ring_bytes(), buffers * streamed.layout().largest_chunk_bytes());
    for (int pass = 0; pass < 3; ++pass) {
      streamed.reset();
      expect_pass_matches(streamed, mapped);
    }
    // reset() mid-pass restarts the reader at chunk 0.
    streamed.reset();
    CsrView x;
    ASSERT_TRUE(streamed.next(x));
    ASSERT_TRUE(streamed.next(x));
    ASSERT_TRUE(streamed.next(x));
    streamed.reset();
    expect_pass_matches(streamed, mapped);
  }
}

TEST(StreamedBinarySource, PassesInAGivenChunkOrder) {
  const std::string path = write_file("streamed_order.snap");
  const MappedBinaryFile mapped(path);
  StreamedBinarySource streamed(path, 3);
  const std::size_t n = mapped.n_chunks();
  std::vector<std::size_t> reversed(n), rotated(n), identity(n);
  for (std::size_t i = 0; i < n; ++i) {
    reversed[i] = n - 1 - i;
    rotated[i] = (i + 5) % n;
    identity[i] = i;
  }
  auto expect_pass_in = [&](const std::vector<std::size_t>& order) {
    CsrView x;
    for (const std::size_t c : order) {
      ASSERT_TRUE(streamed.next(x));
      expect_same_view(x, mapped.chunk(c));
    }
    EXPECT_FALSE(streamed.next(x));
  };
  // A pass in an order, the same order again (kept read-ahead), another order,
  // file order by reset(), and a given identity order.
  for (const auto* order : {&reversed, &reversed, &rotated}) {
    ASSERT_TRUE(streamed.reset_in_order(*order));
    expect_pass_in(*order);
  }
  streamed.reset();
  expect_pass_in(identity);
  ASSERT_TRUE(streamed.reset_in_order(identity));
  expect_pass_in(identity);
  // A new order mid-pass restarts the reader in it.
  ASSERT_TRUE(streamed.reset_in_order(rotated));
  CsrView x;
  ASSERT_TRUE(streamed.next(x));
  ASSERT_TRUE(streamed.reset_in_order(reversed));
  expect_pass_in(reversed);
  // Not a permutation of the chunks.
  std::vector<std::size_t> repeated = identity;
  repeated[1] = 0;
  EXPECT_THROW(streamed.reset_in_order(repeated), InvalidArgument);
  EXPECT_THROW(streamed.reset_in_order({0, 1}), InvalidArgument);
  std::vector<std::size_t> outside = identity;
  outside[0] = n;
  EXPECT_THROW(streamed.reset_in_order(outside), InvalidArgument);
}

TEST(StreamedBinarySource, HoldKeepsTheLastViewsValid) {
  // hold(k): the views of the last k chunks stay valid while the reader refills
  // the buffers not held, pass after pass, in a given order too.
  const std::string path = write_file("streamed_hold.snap");
  const MappedBinaryFile mapped(path);
  const std::size_t n = mapped.n_chunks();
  for (std::size_t buffers : {3u, 4u}) {
    for (std::size_t held = 1; held <= buffers; ++held) {
      SCOPED_TRACE("buffers " + std::to_string(buffers) + ", held " + std::to_string(held));
      StreamedBinarySource streamed(path, buffers);
      EXPECT_EQ(streamed.max_held(), buffers);
      streamed.hold(held);
      std::vector<std::size_t> order(n);
      for (std::size_t i = 0; i < n; ++i) order[i] = (7 * i + 3) % n;  // 7 is prime to 16
      for (int pass = 0; pass < 2; ++pass) {
        ASSERT_TRUE(streamed.reset_in_order(order));
        std::vector<CsrView> views;
        CsrView x;
        for (std::size_t k = 0; k < n; ++k) {
          ASSERT_TRUE(streamed.next(x));
          views.push_back(x);
          // Every view of the last `held` chunks still shows its chunk.
          for (std::size_t j = views.size() - std::min(held, views.size()); j < views.size(); ++j)
            expect_same_view(views[j], mapped.chunk(order[j]));
        }
      }
    }
    StreamedBinarySource streamed(path, buffers);
    EXPECT_THROW(streamed.hold(0), InvalidArgument);
    EXPECT_THROW(streamed.hold(buffers + 1), InvalidArgument);
  }
}

TEST(StreamedBinarySource, MixedWindowNeedsAtMostOneAndAHalfTimesTheResidentEpochs) {
  // a9a in chunks of 1,000 rows (file order, which is not random), logistic
  // regression at the default C and tolerance, one thread and a fixed seed. A
  // resident epoch permutes all 32,561 rows; a streamed one used to permute only
  // within a chunk and needed 91 epochs against 13. A budget that holds 6 chunks
  // (a window of 5 mixed in one permutation, one read ahead: stream_window.h,
  // streamed_epoch) brings the streamed fit within 1.5x the resident epochs
  // (docs/benchmarks/out-of-core.md).
  SNAPML_REQUIRE_DATASET(svm, "a9a");
  const std::string path = scratch("a9a_window.snap");
  BinaryWriteOptions write;
  write.chunk_rows = 1000;
  write_binary(read_svmlight(svm), path, write);
  TrainParameters p;
  p.threads = 1;
  p.seed = 3;
  MappedBinarySource mapped{MappedBinaryFile(path)};
  LocalCommunicator local;
  const TrainResult resident = train(mapped, local, p);
  const BinaryFileLayout layout = read_binary_layout(path);
  const std::uint64_t state = solver_state_bytes(layout.header.n_rows, layout.header.n_features);
  const std::uint64_t budget = state + 6 * layout.largest_chunk_bytes() + 4 * window_row_bytes(layout);
  const BinarySourcePlan plan = plan_binary_source(layout, budget);
  ASSERT_TRUE(plan.stream);
  ASSERT_EQ(plan.buffers, 6u);
  StreamedBinarySource streamed(layout, plan.buffers);
  const TrainResult out_of_core = train(streamed, local, p);
  ASSERT_TRUE(resident.fits[0].converged);
  ASSERT_TRUE(out_of_core.fits[0].converged);
  const int resident_epochs = resident.fits[0].epochs;
  const int streamed_epochs = out_of_core.fits[0].epochs;
  EXPECT_LE(2 * streamed_epochs, 3 * resident_epochs)
      << "streamed " << streamed_epochs << " epochs, resident " << resident_epochs;
  // The certificate holds whatever the order: the gap is exact.
  const EpochRecord& last = out_of_core.fits[0].history.back();
  EXPECT_LE(last.gap, p.tol * last.primal);
}

TEST(StreamedBinarySource, TrainsTheInMemoryModel) {
  // Chunks of 1,000 rows: the streamed epoch permutes rows only within a chunk,
  // which costs epochs, not the optimum. With C = 1 on these 300 features a chunk
  // alone nearly determines w and chunk-ordered visiting zig-zags between the
  // chunks' optima (relative gap 1e-3 after 1,000 epochs; docs/out-of-core.md);
  // C = 0.1 converges in a few hundred.
  const std::string path = write_file("streamed_train.snap", 4000, 1000);
  const Dataset data = load_binary(path);
  TrainParameters p;
  p.tol = 1e-5;
  p.threads = 2;
  p.C = 0.1;
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    SCOPED_TRACE(loss == LossKind::Logistic ? "logistic" : "squared hinge");
    p.loss = loss;
    const TrainResult resident = train(data, p);
    StreamedBinarySource streamed(path, 2);
    LocalCommunicator local;
    const TrainResult out_of_core = train(streamed, local, p);
    ASSERT_EQ(out_of_core.fits.size(), 1u);
    const EpochRecord& last = out_of_core.fits[0].history.back();
    const EpochRecord& reference = resident.fits[0].history.back();
    // The duality gap certifies the streamed solution on its own ...
    EXPECT_TRUE(out_of_core.fits[0].converged);
    EXPECT_LE(last.gap, p.tol * last.primal);
    // ... and both are within tol * P of the same optimum P*, so of each other.
    EXPECT_NEAR(last.primal, reference.primal, p.tol * std::max(last.primal, reference.primal));
    const std::vector<double> a = resident.model.decision_function(data, 1);
    const std::vector<double> b = out_of_core.model.decision_function(data, 1);
    std::size_t disagree = 0;
    for (std::size_t i = 0; i < a.size(); ++i) disagree += (a[i] > 0) != (b[i] > 0);
    EXPECT_LE(disagree, a.size() / 200) << "predictions of the two models differ on " << disagree << " rows";
  }
}

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Runs training and returns the InputError's message ("" when none is thrown).
std::string training_error(ChunkSource& source) {
  TrainParameters p;
  p.threads = 1;
  LocalCommunicator local;
  try {
    train(source, local, p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(StreamedBinarySource, BitFlipMidStreamFailsNamingFileAndChunk) {
  const std::string path = write_file("streamed_flip.snap");
  const BinaryFileLayout layout = read_binary_layout(path);
  std::vector<unsigned char> bytes = read_bytes(path);
  bytes[layout.table[9].offset + layout.chunk_bytes(9) / 2] ^= 0x10;  // inside chunk 9
  write_bytes(path, bytes);
  StreamedBinarySource streamed(path, 2);  // the header and table are intact
  const std::string message = training_error(streamed);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("chunk 9 checksum mismatch"), std::string::npos) << message;
  // The chunks before the damaged one are handed out first.
  streamed.reset();
  CsrView x;
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(streamed.next(x)) << i;
  EXPECT_THROW(streamed.next(x), InputError);
  EXPECT_THROW(streamed.next(x), InputError);  // stays failed until reset()
}

// A chunk's checksum is verified on its first read only (as the mapped reader's),
// but the invariants that keep a solver in bounds are checked on every read: a
// column index rewritten in place after the first pass is refused on the next.
TEST(StreamedBinarySource, EveryPassChecksTheIndicesAChecksumIsVerifiedOnce) {
  const std::string path = write_file("streamed_rewritten.snap");
  const BinaryFileLayout layout = read_binary_layout(path);
  StreamedBinarySource streamed(path, 2);
  CsrView x;
  std::size_t chunks = 0;
  while (streamed.next(x)) ++chunks;  // a whole pass: every checksum verified
  ASSERT_EQ(chunks, layout.table.size());
  std::vector<unsigned char> bytes = read_bytes(path);
  const BinaryChunkEntry& e = layout.table[3];
  const std::uint64_t first_index = e.offset + 8 * (static_cast<std::uint64_t>(e.n_rows) + 1) + 8 * e.n_rows;
  const std::int32_t outside = 1 << 30;
  std::memcpy(bytes.data() + first_index, &outside, sizeof outside);
  write_bytes(path, bytes);  // in place: the open descriptor sees it
  streamed.reset();
  try {
    while (streamed.next(x)) {
    }
    ADD_FAILURE() << "a column index beyond n_features was handed out";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("chunk 3 is malformed: column index 1073741824"), std::string::npos) << message;
  }
}

TEST(StreamedBinarySource, StreamsARanksShareOfTheChunks) {
  const std::string path = write_file("streamed_share.snap", 4000, 300);  // 14 chunks
  const MappedBinaryFile mapped(path);
  const BinaryFileLayout whole = read_binary_layout(path);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    std::int64_t rows = 0;
    std::size_t next_chunk = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      SCOPED_TRACE("rank " + std::to_string(rank) + " of " + std::to_string(ranks));
      const BinaryFileLayout share = layout_share(whole, rank, ranks);
      const ChunkRange range = chunk_share(mapped, rank, ranks);
      EXPECT_EQ(share.first_chunk, range.first);
      EXPECT_EQ(share.first_chunk, next_chunk);  // the shares tile the file in order
      ASSERT_EQ(share.table.size(), range.last - range.first);
      next_chunk = range.last;
      StreamedBinarySource streamed(share, 2);
      EXPECT_EQ(streamed.n_chunks(), share.table.size());
      CsrView x;
      std::int64_t share_rows = 0, share_nnz = 0;
      for (std::size_t i = 0; i < share.table.size(); ++i) {
        ASSERT_TRUE(streamed.next(x));
        expect_same_view(x, mapped.chunk(range.first + i));
        share_rows += x.n_rows;
        share_nnz += x.nnz();
      }
      EXPECT_FALSE(streamed.next(x));
      EXPECT_EQ(streamed.n_rows(), share_rows);
      EXPECT_EQ(streamed.nnz(), share_nnz);
      rows += share_rows;
    }
    EXPECT_EQ(rows, mapped.n_rows());
    EXPECT_EQ(next_chunk, mapped.n_chunks());
  }
  // A damaged chunk in a share is named by its index in the whole file.
  const BinaryFileLayout last = layout_share(whole, 1, 2);
  const std::size_t damaged = last.first_chunk + 2;
  std::vector<unsigned char> bytes = read_bytes(path);
  bytes[whole.table[damaged].offset + whole.chunk_bytes(damaged) / 2] ^= 0x10;
  write_bytes(path, bytes);
  StreamedBinarySource streamed(last, 2);
  CsrView x;
  ASSERT_TRUE(streamed.next(x));
  ASSERT_TRUE(streamed.next(x));
  try {
    streamed.next(x);
    FAIL() << "the damaged chunk must fail";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("chunk " + std::to_string(damaged) + " checksum mismatch"),
              std::string::npos)
        << e.what();
  }
}

TEST(StreamedBinarySource, FileCutShortAfterOpeningFailsNamingFileAndChunk) {
  const std::string path = write_file("streamed_truncated.snap");
  StreamedBinarySource streamed(path, 2);
  const BinaryFileLayout& layout = streamed.layout();
  // Cut inside chunk 6: the opened source only finds out when it reads there.
  ASSERT_EQ(0, ::truncate(path.c_str(), static_cast<off_t>(layout.table[6].offset + 100)));
  const std::string message = training_error(streamed);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("chunk 6 truncated"), std::string::npos) << message;
}

TEST(StreamedBinarySource, OpeningRefusesWhatTheMappedReaderRefuses) {
  const std::string path = write_file("streamed_open.snap", 1000, 250);
  std::vector<unsigned char> bytes = read_bytes(path);
  bytes.resize(bytes.size() - 1);
  write_bytes(path, bytes);
  std::string mapped_message;
  try {
    MappedBinaryFile file(path);
  } catch (const InputError& e) {
    mapped_message = e.what();
  }
  ASSERT_FALSE(mapped_message.empty());
  try {
    StreamedBinarySource source(path);
    ADD_FAILURE() << "a truncated file opened";
  } catch (const InputError& e) {
    EXPECT_EQ(mapped_message, e.what());
  }
}

TEST(StreamedBinarySource, DestroyedOrResetMidStreamJoinsTheReader) {
  const std::string path = write_file("streamed_stop.snap", 8000, 100);  // 80 chunks
  const MappedBinaryFile mapped(path);
  for (int round = 0; round < 50; ++round) {
    StreamedBinarySource streamed(path, 2);
    CsrView x;
    for (int i = 0; i < round % 7; ++i) ASSERT_TRUE(streamed.next(x));
    if (round % 2) {
      streamed.reset();
      ASSERT_TRUE(streamed.next(x));
      expect_same_view(x, mapped.chunk(0));
    }
    // The destructor stops a reader that is blocked on a full ring.
  }
}

TEST(MemorySize, ParsesBytesAndUnits) {
  EXPECT_EQ(parse_memory_size("123456"), 123456u);
  EXPECT_EQ(parse_memory_size("1k"), 1024u);
  EXPECT_EQ(parse_memory_size("512MB"), 512u << 20);
  EXPECT_EQ(parse_memory_size("4GB"), 4ull << 30);
  EXPECT_EQ(parse_memory_size("4gib"), 4ull << 30);
  EXPECT_EQ(parse_memory_size("1.5G"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("100B"), 100u);
  EXPECT_EQ(parse_memory_size("2T"), 2ull << 40);
  for (const char* bad : {"", "GB", "-1G", "1.2.3G", "4XB", "0", "0.1", "4 GB", "1e9", "99999999999T"})
    EXPECT_THROW(parse_memory_size(bad), InvalidArgument) << bad;
}

TEST(MemoryBudget, PlansResidentOrARingThatFits) {
  const std::string path = write_file("streamed_plan.snap");
  const BinaryFileLayout layout = read_binary_layout(path);
  const std::uint64_t state = solver_state_bytes(layout.header.n_rows, layout.header.n_features);
  EXPECT_EQ(state, 16u * 4000 + 8u * 301);
  // Resident, the solver also keeps the epoch's permutation and the SVM losses'
  // shrinking and margin-bound state: the data stays resident only beside those.
  const std::uint64_t resident = resident_state_bytes(layout.header.n_rows, layout.header.n_features);
  EXPECT_EQ(resident, 64u * 4000 + 8u * 301);
  const std::uint64_t largest = layout.largest_chunk_bytes();
  EXPECT_FALSE(plan_binary_source(layout, 0).stream);
  EXPECT_FALSE(plan_binary_source(layout, layout.header.file_size + resident).stream);
  EXPECT_TRUE(plan_binary_source(layout, layout.header.file_size + state).stream);
  BinarySourcePlan plan = plan_binary_source(layout, layout.header.file_size + resident - 1);
  EXPECT_TRUE(plan.stream);
  // As many buffers as fit, each beyond 2 with its window order, at most a
  // window of every chunk and one read ahead.
  const std::uint64_t window = window_row_bytes(layout);
  EXPECT_EQ(window, 8u * 250);
  EXPECT_EQ(plan.buffers, layout.table.size() + 1);
  EXPECT_EQ(plan.data_bytes, plan.buffers * largest);
  plan = plan_binary_source(layout, state + 5 * largest + 3 * window);
  EXPECT_EQ(plan.buffers, 5u);
  plan = plan_binary_source(layout, state + 5 * largest + 3 * window - 1);
  EXPECT_EQ(plan.buffers, 4u);
  plan = plan_binary_source(layout, state + 2 * largest);
  EXPECT_TRUE(plan.stream);
  EXPECT_EQ(plan.buffers, 2u);
  EXPECT_EQ(plan.data_bytes, 2 * largest);
  try {
    plan_binary_source(layout, state + 2 * largest - 1);
    ADD_FAILURE() << "a budget below 2 buffers + state was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("too small to stream"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snapml::datasets
