// The svmlight reader on the shared real datasets and on the accepted dialect:
// counts against the datasets' README, values against scikit-learn, parallel
// parses against the single-thread parse, .gz against plain, index bases.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dataset_compare.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "test_data.h"

namespace snapml {
namespace {

using datasets::IndexBase;
using datasets::read_svmlight;
using datasets::SvmlightOptions;
using testing::expect_same_dataset;
using testing::parse_text;

// README.md of the shared datasets; the fingerprints (sum of the float32 bit
// patterns of all values, sum of the zero-based column indices, sum of labels)
// come from scikit-learn 1.9.1: load_svmlight_file(f), then
// X.data.astype(float32).view(uint32).sum(), X.indices.sum(), y.sum().
struct RealFile {
  const char* name;
  std::int64_t rows;
  std::int32_t max_index;  // one-based, as written in the file
  std::int64_t nnz;
  std::vector<double> labels;
  std::uint64_t value_bits_sum;
  std::int64_t column_sum;
  double label_sum;
};

// Test names show the file, not the struct's bytes.
void PrintTo(const RealFile& file, std::ostream* out) { *out << file.name; }

std::vector<double> one_to(int n) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

const std::vector<RealFile>& real_files() {
  static const std::vector<RealFile> files = {
      {"heart_scale", 270, 13, 3378, {-1, 1}, 8104440407091ull, 19819, -30},
      {"a9a", 32561, 123, 451592, {-1, 1}, 481104989519872ull, 22061765, -16879},
      {"a9a.t", 16281, 122, 225731, {-1, 1}, 240483246800896ull, 11029069, -8589},
      {"w8a", 49749, 300, 579586, {-1, 1}, 617463809048576ull, 87496141, -46791},
      {"mushrooms", 8124, 112, 170604, {1, 2}, 181753520062464ull, 9266112, 12332},
      {"news20.multiclass", 15935, 62061, 1272569, one_to(20), 1358890576789504ull, 12875999166ll, 167542},
  };
  return files;
}

class SvmlightRealDataset : public ::testing::TestWithParam<RealFile> {};

TEST_P(SvmlightRealDataset, MatchesReadmeAndScikitLearn) {
  const RealFile& f = GetParam();
  SNAPML_REQUIRE_DATASET(path, f.name);
  Dataset data = read_svmlight(path);
  EXPECT_EQ(data.n_rows(), f.rows);
  EXPECT_EQ(data.n_features(), f.max_index);  // one-based: n_features is the largest index
  EXPECT_EQ(data.nnz(), f.nnz);
  EXPECT_EQ(data.distinct_labels(), f.labels);

  std::uint64_t value_bits = 0;
  std::int64_t columns = 0;
  double labels = 0;
  for (const CsrChunk& c : data.chunks()) {
    for (float v : c.values) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      value_bits += bits;
    }
    for (std::int32_t j : c.col_indices) columns += j;
    for (double y : c.labels) labels += y;
  }
  EXPECT_EQ(value_bits, f.value_bits_sum);
  EXPECT_EQ(columns, f.column_sum);
  EXPECT_EQ(labels, f.label_sum);
}

TEST_P(SvmlightRealDataset, ParallelParseEqualsSingleThread) {
  const RealFile& f = GetParam();
  SNAPML_REQUIRE_DATASET(path, f.name);
  for (std::int64_t chunk_rows : {std::int64_t{97}, std::int64_t{4096}}) {
    SvmlightOptions one;
    one.threads = 1;
    one.chunk_rows = chunk_rows;
    Dataset expected = read_svmlight(path, one);
    ASSERT_EQ(expected.n_chunks(), static_cast<std::size_t>((f.rows + chunk_rows - 1) / chunk_rows));
    for (int threads : {2, 3, 4, 7}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", chunk_rows " + std::to_string(chunk_rows));
      SvmlightOptions many = one;
      many.threads = threads;
      expect_same_dataset(expected, read_svmlight(path, many));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedDatasets, SvmlightRealDataset, ::testing::ValuesIn(real_files()),
                         [](const ::testing::TestParamInfo<RealFile>& info) {
                           std::string name = info.param.name;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST(SvmlightRead, FirstRowOfHeartScale) {
  SNAPML_REQUIRE_DATASET(path, "heart_scale");
  Dataset data = read_svmlight(path);
  const CsrChunk& c = data.chunk(0);
  // "+1 1:0.708333 2:1 3:1 4:-0.320755 ... 12:1 13:-1"
  EXPECT_EQ(c.labels[0], 1.0);
  EXPECT_EQ(c.col_indices[0], 0);
  EXPECT_EQ(c.values[0], 0.708333f);
  EXPECT_EQ(c.values[3], -0.320755f);
  EXPECT_EQ(c.row_offsets[1], 12);  // index 11 is absent from the first row
  EXPECT_EQ(c.col_indices[11], 12);
}

TEST(SvmlightRead, TestSetWithTrainingFeatureCount) {
  SNAPML_REQUIRE_DATASET(path, "a9a.t");
  SvmlightOptions options;
  options.n_features = 123;  // a9a.t never uses feature 123
  Dataset data = read_svmlight(path, options);
  EXPECT_EQ(data.n_features(), 123);
  EXPECT_EQ(data.nnz(), 225731);
}

// The first line of `path` with an index above `limit`, found without the reader.
std::int64_t first_line_with_index_above(const std::string& path, std::int64_t limit) {
  std::ifstream in(path);
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string field;
    fields >> field;  // the label
    while (fields >> field)
      if (std::stoll(field.substr(0, field.find(':'))) > limit) return number;
  }
  return -1;
}

TEST(SvmlightRead, FeatureCountBelowTheLargestIndexFails) {
  SNAPML_REQUIRE_DATASET(path, "a9a.t");
  SvmlightOptions options;
  options.n_features = 100;
  options.threads = 3;
  try {
    read_svmlight(path, options);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), first_line_with_index_above(path, 100));
    EXPECT_NE(e.problem().find("out of range for n_features=100"), std::string::npos) << e.what();
  }
}

// ---- gzip input ----

void write_gzip(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(SvmlightRead, GzipEqualsPlain) {
  SNAPML_REQUIRE_DATASET(path, "a9a");
  // Recognised by its magic bytes, so the name need not end in .gz.
  for (const char* name : {"/a9a.gz", "/a9a-compressed"}) {
    const std::string gz = testing::scratch_dir() + name;
    write_gzip(gz, file_text(path));
    SvmlightOptions options;
    options.chunk_rows = 5000;
    expect_same_dataset(read_svmlight(path, options), read_svmlight(gz, options));
  }
}

TEST(SvmlightRead, GzipErrorsNameTheLine) {
  const std::string gz = testing::scratch_dir() + "/bad.svm.gz";
  write_gzip(gz, "1 1:1\n-1 2:1\n1 3:oops\n");
  try {
    read_svmlight(gz);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.column(), 5);
  }
}

TEST(SvmlightRead, TruncatedGzipFails) {
  const std::string gz = testing::scratch_dir() + "/truncated.svm.gz";
  std::string text;
  for (int i = 0; i < 2000; ++i) text += std::to_string(i % 2 ? 1 : -1) + " 1:" + std::to_string(i) + " 7:0.5\n";
  write_gzip(gz, text);
  std::string bytes = file_text(gz);
  std::ofstream(gz, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  try {
    read_svmlight(gz);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(e.problem().find("corrupt gzip"), std::string::npos) << e.what();
  }
}

// As zcat: concatenated members are one text, zero padding after the last is
// ignored, anything else after it is an error (zlib's gzread dropped it silently).
TEST(SvmlightRead, GzipMembersConcatenateAndTrailingGarbageFails) {
  const std::string dir = testing::scratch_dir();
  write_gzip(dir + "/first.gz", "1 1:1\n-1 2:1\n");
  write_gzip(dir + "/second.gz", "1 3:1\n");
  const std::string first = file_text(dir + "/first.gz"), second = file_text(dir + "/second.gz");
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + name, std::ios::binary | std::ios::trunc).write(bytes.data(),
                                                                      static_cast<std::streamsize>(bytes.size()));
    return dir + name;
  };
  EXPECT_EQ(read_svmlight(write("/two.gz", first + second)).n_rows(), 3);
  EXPECT_EQ(read_svmlight(write("/padded.gz", first + second + std::string(512, '\0'))).n_rows(), 3);
  for (const std::string& tail : {std::string("garbage\n"), std::string(3, '\0') + "x"}) {
    const std::string path = write("/garbage.gz", first + tail);
    try {
      read_svmlight(path);
      FAIL() << "expected an InputError";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_NE(e.problem().find("trailing data after the gzip stream at byte " + std::to_string(first.size())),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(SvmlightRead, EmptyFileOnDisk) {
  const std::string path = testing::scratch_dir() + "/empty.svm";
  std::ofstream{path};
  try {
    read_svmlight(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.problem().find("no examples"), std::string::npos) << e.what();
  }
}

TEST(SvmlightRead, PipeIsReadToItsEnd) {
  const std::string fifo = testing::scratch_dir() + "/pipe.svm";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "1 2:0.5 9:" + std::to_string(i) + "\n";  // more than a pipe buffer
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  Dataset data = read_svmlight(fifo);
  writer.join();
  testing::expect_same_dataset(parse_text(text), data);
}

TEST(SvmlightRead, MissingFileIsAnIoError) {
  EXPECT_THROW(read_svmlight(testing::scratch_dir() + "/no-such-file"), IoError);
  EXPECT_THROW(read_svmlight(testing::scratch_dir()), IoError);  // a directory
}

// ---- the dialect ----

TEST(SvmlightDialect, CommentsBlankLinesQidCrlfTabsAndSigns) {
  const std::string text =
      "# a header comment\n"
      "\n"
      "+1 qid:3 1:0.5 4:-2 # trailing comment\r\n"
      "   \t\n"
      "-1\t2:1e-3\t3:+7\r\n"
      "2.5 1:0 5:3#comment right after a value\n"
      "0\n"                     // a row without features
      "-0.25 2:.5 3:1. 4:1E2";  // no final newline
  Dataset data = parse_text(text);
  ASSERT_EQ(data.n_rows(), 5);
  EXPECT_EQ(data.n_features(), 5);
  const CsrChunk& c = data.chunk(0);
  EXPECT_EQ(c.labels, (std::vector<double>{1, -1, 2.5, 0, -0.25}));
  EXPECT_EQ(c.row_offsets, (std::vector<std::int64_t>{0, 2, 4, 6, 6, 9}));
  EXPECT_EQ(c.col_indices, (std::vector<std::int32_t>{0, 3, 1, 2, 0, 4, 1, 2, 3}));
  EXPECT_EQ(c.values, (std::vector<float>{0.5f, -2, 1e-3f, 7, 0, 3, 0.5f, 1, 100}));
}

TEST(SvmlightDialect, ExplicitZerosAreKept) {
  Dataset data = parse_text("1 1:0 2:0.0 3:-0\n");
  EXPECT_EQ(data.nnz(), 3);
  EXPECT_TRUE(std::signbit(data.chunk(0).values[2]));
}

TEST(SvmlightDialect, ValuesAreRoundedOnceFromDouble) {
  // 1.00000005960464477539062500001 lies just above the midpoint between 1 and
  // the next float: rounded once from the exact decimal it is 1 + 2^-23; parsed
  // to double first (as scikit-learn does), the double is the midpoint itself
  // and rounds to even, 1. We match scikit-learn's float64 load cast to float32.
  Dataset data = parse_text("1 1:1.00000005960464477539062500001\n");
  EXPECT_EQ(data.chunk(0).values[0], 1.0f);
}

// The reader's own fast path for plain decimals and fast_float for the rest must
// both give strtod's correctly rounded double, for labels and (then rounded to
// float) for values.
TEST(SvmlightDialect, NumbersMatchStrtod) {
  std::mt19937_64 rng(3);
  auto digits = [&](int count) {
    std::string s;
    for (int i = 0; i < count; ++i) s += static_cast<char>('0' + rng() % 10);
    return s;
  };
  std::vector<std::string> numbers = {"0", "-0", "+5", "1.", ".25", "-.5", "9007199254740993", "0.1",
                                      "123456789012345678901234567890", "1e-320", "2.5E+3", "-7e-1",
                                      "0.000000000000000000000000001", "4.9e-324", "3.4028235e38"};
  for (int i = 0; i < 20000; ++i) {
    std::string n = (rng() % 2 ? "-" : "") + digits(1 + static_cast<int>(rng() % 12));
    if (rng() % 4) n += "." + digits(static_cast<int>(rng() % 20));
    if (rng() % 8 == 0) n += "e" + std::to_string(static_cast<int>(rng() % 56) - 30);
    numbers.push_back(n);
  }
  std::string text;
  for (const std::string& n : numbers) text += n + " 1:" + n + "\n";
  Dataset data = parse_text(text);
  const CsrChunk& c = data.chunk(0);
  ASSERT_EQ(c.labels.size(), numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const double expected = std::strtod(numbers[i].c_str(), nullptr);
    ASSERT_EQ(std::memcmp(&c.labels[i], &expected, 8), 0) << numbers[i];
    const float expected_value = static_cast<float>(expected);
    ASSERT_EQ(std::memcmp(&c.values[i], &expected_value, 4), 0) << numbers[i];
  }
}

TEST(SvmlightIndexBase, AutoIsOneBasedWithoutIndexZero) {
  Dataset data = parse_text("1 1:1 3:2\n-1 2:1\n");
  EXPECT_EQ(data.n_features(), 3);
  EXPECT_EQ(data.chunk(0).col_indices, (std::vector<std::int32_t>{0, 2, 1}));
}

TEST(SvmlightIndexBase, AutoIsZeroBasedWithIndexZero) {
  Dataset data = parse_text("1 1:1 3:2\n-1 0:1\n");
  EXPECT_EQ(data.n_features(), 4);
  EXPECT_EQ(data.chunk(0).col_indices, (std::vector<std::int32_t>{1, 3, 0}));
}

TEST(SvmlightIndexBase, AutoSeesIndexZeroInAnyThreadsRange) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "1 1:1 7:2\n";
  text += "-1 0:1\n";  // only the last line, in the last thread's range, has index 0
  for (int threads : {1, 2, 4}) {
    SvmlightOptions options;
    options.threads = threads;
    options.chunk_rows = 1000;
    Dataset data = parse_text(text, options);
    EXPECT_EQ(data.n_features(), 8);
    EXPECT_EQ(data.chunk(0).col_indices[0], 1);
    EXPECT_EQ(data.chunk(5).col_indices.back(), 0);
  }
}

TEST(SvmlightIndexBase, ForcedZeroKeepsIndices) {
  SvmlightOptions options;
  options.index_base = IndexBase::Zero;
  Dataset data = parse_text("1 1:1 3:2\n", options);
  EXPECT_EQ(data.n_features(), 4);
  EXPECT_EQ(data.chunk(0).col_indices, (std::vector<std::int32_t>{1, 3}));
}

TEST(SvmlightIndexBase, ForcedOneShiftsIndices) {
  SvmlightOptions options;
  options.index_base = IndexBase::One;
  Dataset data = parse_text("1 1:1 3:2\n", options);
  EXPECT_EQ(data.n_features(), 3);
  EXPECT_EQ(data.chunk(0).col_indices, (std::vector<std::int32_t>{0, 2}));
}

TEST(SvmlightIndexBase, FeatureCountOverrideWithEachBase) {
  SvmlightOptions options;
  options.n_features = 5;
  EXPECT_EQ(parse_text("1 1:1 5:2\n", options).n_features(), 5);  // auto, one-based: 5 is column 4
  options.index_base = IndexBase::Zero;
  EXPECT_EQ(parse_text("1 1:1 4:2\n", options).n_features(), 5);
  EXPECT_THROW(parse_text("1 1:1 5:2\n", options), InputError);
  options.index_base = IndexBase::One;
  EXPECT_EQ(parse_text("1 1:1 5:2\n", options).n_features(), 5);
  EXPECT_THROW(parse_text("1 1:1 6:2\n", options), InputError);
}

TEST(SvmlightOptions, InvalidOptionsAreRejected) {
  SvmlightOptions options;
  options.chunk_rows = 0;
  EXPECT_THROW(parse_text("1 1:1\n", options), InvalidArgument);
  options = {};
  options.n_features = -1;
  EXPECT_THROW(parse_text("1 1:1\n", options), InvalidArgument);
  options = {};
  options.threads = -2;
  EXPECT_THROW(parse_text("1 1:1\n", options), InvalidArgument);
}

}  // namespace
}  // namespace snapml
