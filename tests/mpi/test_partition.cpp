// The partitioned readers (datasets/partition.h), under mpirun with the real MPI
// communicator: every rank reads its share, and the shares put together must be
// the whole file as read_svmlight reads it (rows, order, index base, features).
#include <gtest/gtest.h>

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/partition.h"
#include "snapml/error.h"
#include "snapml/mpi/mpi_communicator.h"

namespace snapml {
namespace {

mpi::MpiCommunicator* world = nullptr;

// Every row of `data` as text "label|j:v j:v", in row order.
std::vector<std::string> rows_of(ChunkSource& source) {
  std::vector<std::string> rows;
  CsrView x;
  source.reset();
  while (source.next(x)) {
    for (std::int64_t r = 0; r < x.n_rows; ++r) {
      std::string row = std::to_string(x.labels[r]) + "|";
      for (std::int64_t k = x.row_begin(r); k < x.row_end(r); ++k)
        row += std::to_string(x.col_indices[k]) + ":" + std::to_string(x.values[k]) + " ";
      rows.push_back(row);
    }
  }
  return rows;
}

// The rows of every rank, in rank order, on every rank: lengths and characters
// gathered by sums over zero-padded slots.
std::vector<std::string> gather(const std::vector<std::string>& mine) {
  const auto ranks = static_cast<std::size_t>(world->size());
  const auto rank = static_cast<std::size_t>(world->rank());
  std::string text;
  for (const std::string& row : mine) text += row + "\n";
  std::vector<std::int64_t> lengths(ranks, 0);
  lengths[rank] = static_cast<std::int64_t>(text.size());
  world->allreduce_sum(lengths.data(), lengths.size());
  std::vector<std::int64_t> offsets(ranks + 1, 0);
  for (std::size_t r = 0; r < ranks; ++r) offsets[r + 1] = offsets[r] + lengths[r];
  std::vector<std::int64_t> chars(static_cast<std::size_t>(offsets[ranks]), 0);
  for (std::size_t i = 0; i < text.size(); ++i)
    chars[static_cast<std::size_t>(offsets[rank]) + i] = static_cast<unsigned char>(text[i]);
  world->allreduce_sum(chars.data(), chars.size());
  std::vector<std::string> all;
  std::string row;
  for (std::int64_t c : chars) {
    if (c == '\n') {
      all.push_back(row);
      row.clear();
    } else {
      row += static_cast<char>(c);
    }
  }
  return all;
}

// A file every rank can read, written by rank 0.
std::string shared_file(const std::string& name, const std::string& content, bool gzip = false) {
  const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                           "/snapml_partition_" + std::to_string(world->size()) + "_" + name;
  if (world->is_root()) {
    if (gzip) {
      gzFile f = gzopen(path.c_str(), "wb");
      gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
      gzclose(f);
    } else {
      std::ofstream(path, std::ios::binary) << content;
    }
  }
  world->barrier();
  return path;
}

// Rows whose only index 0 is on the last line: a zero-based file that only the
// last rank can tell is zero-based.
std::string zero_based_text(int lines) {
  std::string text = "# a comment 0:1 that must not count\n";
  for (int i = 0; i < lines; ++i)
    text += std::to_string(i % 3) + " " + std::to_string(1 + i % 5) + ":1.5 " + std::to_string(7 + i % 11) + ":-2\n";
  text += "1 0:4 3:1\n";
  return text;
}

void expect_same_as_whole(const std::string& path) {
  const Dataset whole = datasets::read_svmlight(path);
  const Dataset share = datasets::read_svmlight_partition(path, *world);
  EXPECT_EQ(share.n_features(), whole.n_features());
  InMemorySource whole_source(whole), share_source(share);
  EXPECT_EQ(gather(rows_of(share_source)), rows_of(whole_source)) << path;
}

TEST(Partition, SvmlightSharesMakeTheWholeFileAndAgreeOnTheIndexBase) {
  expect_same_as_whole(shared_file("zero.svm", zero_based_text(50)));
  // One-based: no index 0 anywhere.
  expect_same_as_whole(shared_file("one.svm", "1 1:1 4:2\n\n-1 2:1\n# c\n1 3:5\n-1 9:1\n"));
}

TEST(Partition, GzipIsReadWholeAndSplitByRows) {
  expect_same_as_whole(shared_file("zero.svm.gz", zero_based_text(37), true));
}

TEST(Partition, MoreRanksThanLinesLeavesSomeRanksEmpty) {
  const std::string path = shared_file("two.svm", "1 1:1\n-1 2:1\n");
  const Dataset share = datasets::read_svmlight_partition(path, *world);
  std::int64_t rows = share.n_rows(), empty = share.n_rows() == 0 ? 1 : 0;
  world->allreduce_sum(&rows, 1);
  world->allreduce_sum(&empty, 1);
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(empty, std::max(0, world->size() - 2));
  EXPECT_EQ(share.n_features(), 2);
}

TEST(Partition, BinaryChunksAreSharedWhole) {
  const std::string text = zero_based_text(23);
  const std::string svm = shared_file("chunks.svm", text);
  const std::string snap = svm + ".snap";
  if (world->is_root()) {
    datasets::SvmlightOptions o;
    o.chunk_rows = 4;
    datasets::write_binary(datasets::read_svmlight(svm, o), snap);
  }
  world->barrier();
  datasets::MappedBinaryPartition share(datasets::MappedBinaryFile(snap), world->rank(), world->size());
  datasets::MappedBinarySource whole(snap);
  EXPECT_EQ(gather(rows_of(share)), rows_of(whole));
  // Chunks are never split: every rank's rows are a multiple of 4 but the last chunk's.
  EXPECT_TRUE(share.n_rows() % 4 == 0 || share.chunks().last == whole.n_chunks());
}

TEST(Partition, ErrorsNameTheLineInTheWholeFile) {
  // The only bad line is the last: one rank fails, the others would wait in the
  // next collective, so every rank checks the error on a pretend communicator of
  // one rank of K instead (collectives are no-ops on it).
  std::string text;
  for (int i = 0; i < 40; ++i) text += "1 1:1 2:2\n";
  text += "-1 3:1 2:1\n";  // line 41: indices not increasing
  struct Pretend final : Communicator {
    int r, k;
    Pretend(int rank, int size) : r(rank), k(size) {}
    int rank() const override { return r; }
    int size() const override { return k; }
    void allreduce_sum(double*, std::size_t) override {}
    void allreduce_sum(std::int64_t*, std::size_t) override {}
    void allreduce_max(std::int64_t*, std::size_t) override {}
    void broadcast(void*, std::size_t, int) override {}
    void barrier() override {}
    [[noreturn]] void abort(const std::string& m) override { throw Error(m); }
  };
  for (int k : {1, 2, 3, 7}) {
    Pretend last(k - 1, k);
    try {
      datasets::parse_svmlight_partition(text.data(), text.size(), "f.svm", last);
      ADD_FAILURE() << "no error with K=" << k;
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 41) << "K=" << k;
      EXPECT_EQ(e.column(), 8) << "K=" << k;
    }
    if (k > 1) {
      Pretend first(0, k);
      EXPECT_NO_THROW(datasets::parse_svmlight_partition(text.data(), text.size(), "f.svm", first));
    }
  }
}

TEST(Partition, IndexZeroScanFollowsTheGrammar) {
  auto scan = [](const std::string& s) { return datasets::has_index_zero(s.data(), s.size()); };
  EXPECT_TRUE(scan("1 0:1\n"));
  EXPECT_TRUE(scan("1 qid:3 00:1 4:2\n"));
  EXPECT_TRUE(scan("1\t0:1\n"));
  EXPECT_FALSE(scan("1 10:1 20:1\n"));
  EXPECT_FALSE(scan("1 qid:0 1:1\n"));
  EXPECT_FALSE(scan("1 1:1 # 0:1\n"));
  EXPECT_FALSE(scan("# 0:2\n1 3:1\n"));
}

}  // namespace
}  // namespace snapml

int main(int argc, char** argv) {
  snapml::mpi::MpiSession session(&argc, &argv);
  snapml::mpi::MpiCommunicator communicator;
  snapml::world = &communicator;
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 prints gtest's report; every rank runs every test.
  if (!communicator.is_root()) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS();
  std::int64_t any = failed ? 1 : 0;
  communicator.allreduce_max(&any, 1);
  return any ? 1 : 0;
}
