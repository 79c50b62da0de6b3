// Criteo TSV reader (criteo.h) and the Criteo-like generator (criteo_generator.h).
#include <gtest/gtest.h>
#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "snapml/datasets/criteo.h"
#include "snapml/datasets/criteo_generator.h"
#include "snapml/error.h"
#include "test_data.h"

namespace snapml::datasets {
namespace {

// One row as (label, sorted (index, value) pairs), whatever chunk it sits in.
struct Row {
  double label;
  std::vector<std::pair<std::int32_t, float>> entries;
  bool operator==(const Row& o) const { return label == o.label && entries == o.entries; }
};

std::vector<Row> rows_of(const Dataset& data) {
  std::vector<Row> rows;
  for (const CsrChunk& chunk : data.chunks())
    for (std::int64_t r = 0; r < chunk.n_rows(); ++r) {
      Row row{chunk.labels[static_cast<std::size_t>(r)], {}};
      for (std::int64_t k = chunk.row_offsets[static_cast<std::size_t>(r)];
           k < chunk.row_offsets[static_cast<std::size_t>(r) + 1]; ++k)
        row.entries.emplace_back(chunk.col_indices[static_cast<std::size_t>(k)],
                                 chunk.values[static_cast<std::size_t>(k)]);
      rows.push_back(std::move(row));
    }
  return rows;
}

template <typename T>
void append_le(std::string& bytes, T value) {
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) bits |= std::uint64_t{raw[i]} << (8 * i);  // host order ...
  for (std::size_t i = 0; i < sizeof(T); ++i) bytes += static_cast<char>(bits >> (8 * i));  // ... to little-endian
}

// XXH3 of every row as (double label, int64 nnz, then int32 index, float value
// per entry), little-endian: the same on every platform.
std::uint64_t checksum(const Dataset& data) {
  std::string bytes;
  for (const Row& row : rows_of(data)) {
    append_le(bytes, row.label);
    append_le(bytes, static_cast<std::int64_t>(row.entries.size()));
    for (auto [index, value] : row.entries) {
      append_le(bytes, index);
      append_le(bytes, value);
    }
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

// A well-formed line from its 40 fields.
std::string join(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? "\t" : "") + fields[i];
  return line;
}

std::vector<std::string> good_fields() {
  std::vector<std::string> f{"1", "0", "-1", "", "5", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  for (int c = 0; c < kCriteoCategoricalColumns; ++c) f.push_back(c == 3 ? "" : "68fd1e6" + std::to_string(c % 10));
  return f;
}

CriteoData parse(const std::string& text, CriteoOptions options = {}) {
  return parse_criteo(text.data(), text.size(), "mem.tsv", options);
}

std::string generate_text(const CriteoGeneratorOptions& options, CriteoGeneratorStats* stats = nullptr) {
  std::string text;
  CriteoGeneratorStats s = generate_criteo(options, [&](const char* data, std::size_t size) { text.append(data, size); });
  if (stats) *stats = s;
  return text;
}

// ---- reader: the real sample ---------------------------------------------------

TEST(CriteoReader, RealSampleShapeAndLabels) {
  SNAPML_REQUIRE_DATASET(path, "criteo/criteo_raw_sample1000.tsv");
  CriteoData data = read_criteo(path);
  EXPECT_EQ(data.skipped_lines, 0);
  EXPECT_EQ(data.dataset.n_rows(), 1000);
  EXPECT_EQ(data.dataset.n_features(), 39 + (1 << 20));
  EXPECT_EQ(data.dataset.nnz(), 34145);  // counted by an independent Python script
  std::int64_t clicks = 0;
  for (const Row& row : rows_of(data.dataset)) {
    EXPECT_TRUE(row.label == 0.0 || row.label == 1.0);
    clicks += row.label == 1.0;
    EXPECT_LE(row.entries.size(), 39u);
    for (std::size_t k = 1; k < row.entries.size(); ++k) EXPECT_LT(row.entries[k - 1].first, row.entries[k].first);
  }
  EXPECT_EQ(clicks, 205);  // awk -F'\t' '$1 == 1' criteo_raw_sample1000.tsv | wc -l
}

// Golden values: XXH3-64 of the 16-byte key (column, value), as the Python
// package xxhash computes it; any change of the hashing breaks saved models.
TEST(CriteoReader, GoldenCategoricalIndices) {
  EXPECT_EQ(criteo_categorical_index(0, 0x68fd1e64), 177781);
  EXPECT_EQ(criteo_categorical_index(1, 0x80e26c9b), 247650);
  EXPECT_EQ(criteo_categorical_index(4, 0x25c83c98), 261228);
  EXPECT_EQ(criteo_categorical_index(8, 0xa73ee510), 504017);
  EXPECT_EQ(criteo_categorical_index(25, 0x9727dd16), 359003);
  CriteoOptions other;
  other.seed = 7;
  other.hash_bits = 24;
  EXPECT_EQ(criteo_categorical_index(0, 0x68fd1e64, other), 11888977);
  EXPECT_EQ(criteo_categorical_index(25, 0x9727dd16, other), 7763166);
  EXPECT_EQ(criteo_n_features(other), 39 + (1 << 24));
}

TEST(CriteoReader, RealSampleChecksumIsStable) {
  SNAPML_REQUIRE_DATASET(path, "criteo/criteo_raw_sample1000.tsv");
  // The same XXH3 over the rows computed by an independent Python reading.
  EXPECT_EQ(checksum(read_criteo(path).dataset), 0xc1d6143dd757e09fULL);
}

TEST(CriteoReader, GzipGivesTheSameRows) {
  SNAPML_REQUIRE_DATASET(path, "criteo/criteo_raw_sample1000.tsv");
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string gz_path = testing::scratch_dir() + "/sample.tsv.gz";
  gzFile gz = gzopen(gz_path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(gz), Z_OK);
  EXPECT_EQ(checksum(read_criteo(gz_path).dataset), 0xc1d6143dd757e09fULL);
}

TEST(CriteoReader, ParallelParseEqualsSingleThread) {
  CriteoGeneratorOptions gen;
  gen.rows = 30000;
  const std::string text = generate_text(gen);
  CriteoOptions one;
  one.threads = 1;
  CriteoOptions many;
  many.threads = 7;
  many.chunk_rows = 1000;  // chunks cut across the threads' ranges
  CriteoData a = parse(text, one);
  CriteoData b = parse(text, many);
  EXPECT_EQ(b.dataset.n_chunks(), 30u);
  EXPECT_EQ(rows_of(a.dataset), rows_of(b.dataset));
  EXPECT_EQ(checksum(a.dataset), checksum(b.dataset));
}

// ---- reader: the feature mapping -------------------------------------------------

TEST(CriteoReader, IntegerSlotsAndMissingCategorical) {
  std::vector<std::string> f = good_fields();
  CriteoData data = parse(join(f) + "\n");
  ASSERT_EQ(data.dataset.n_rows(), 1);
  const Row row = rows_of(data.dataset)[0];
  EXPECT_EQ(row.label, 1.0);
  std::map<std::int32_t, float> got(row.entries.begin(), row.entries.end());
  EXPECT_EQ(got.count(0), 0u);           // I1 = 0: log(1) = 0, not stored
  EXPECT_EQ(got.count(1), 0u);           // ... and not missing
  EXPECT_EQ(got.at(5), 1.0f);            // I2 = -1: negative slot 3*1+2
  EXPECT_EQ(got.at(7), 1.0f);            // I3 empty: missing slot 3*2+1
  EXPECT_FLOAT_EQ(got.at(9), std::log(6.0f));  // I4 = 5: log(1 + 5) at 3*3
  EXPECT_FLOAT_EQ(got.at(36), std::log(10.0f));  // I13 = 9
  // 13 integer slots minus the zero, 26 categoricals minus the empty C4.
  EXPECT_EQ(row.entries.size(), 12u + 25u);
  for (int c = 0; c < kCriteoCategoricalColumns; ++c) {
    if (c == 3) continue;
    std::uint64_t value = 0x68fd1e60 + static_cast<std::uint64_t>(c % 10);
    EXPECT_EQ(got.at(criteo_categorical_index(c, value)), 1.0f) << "C" << c + 1;
  }
}

TEST(CriteoReader, HexValuesIgnoreCaseAndLeadingZeros) {
  std::vector<std::string> a = good_fields(), b = good_fields();
  a[14] = "abcdef";
  b[14] = "000ABCDEF";
  CriteoData data = parse(join(a) + "\n" + join(b) + "\n");
  auto rows = rows_of(data.dataset);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], rows[1]);
}

TEST(CriteoReader, CollidingBucketsAddUp) {
  CriteoOptions options;
  options.hash_bits = 1;  // 26 categoricals into 2 buckets
  std::vector<std::string> f = good_fields();
  const Row row = rows_of(parse(join(f), options).dataset)[0];
  float categorical_sum = 0;
  std::int64_t categorical_entries = 0;
  for (std::size_t k = 0; k < row.entries.size(); ++k) {
    if (k) {
      EXPECT_LT(row.entries[k - 1].first, row.entries[k].first);
    }
    if (row.entries[k].first >= kCriteoIntegerFeatures) {
      EXPECT_LT(row.entries[k].first, kCriteoIntegerFeatures + 2);
      categorical_sum += row.entries[k].second;
      ++categorical_entries;
    }
  }
  EXPECT_LE(categorical_entries, 2);
  EXPECT_EQ(categorical_sum, 25.0f);  // every non-empty categorical counted once
}

TEST(CriteoReader, CrlfEmptyLinesAndNoFinalNewline) {
  const std::string line = join(good_fields());
  CriteoData data = parse(line + "\r\n\n" + line + "\r\n\r\n" + line);
  EXPECT_EQ(data.dataset.n_rows(), 3);
  auto rows = rows_of(data.dataset);
  EXPECT_EQ(rows[0], rows[2]);
}

// ---- reader: errors ------------------------------------------------------------

struct BadLine {
  std::string name;
  int field;            // which field to replace, or -1 to use `line` as is
  std::string value;
  std::int64_t column;  // expected 1-based byte column, 0: do not check
  std::string message;  // expected part of the problem
};

std::string bad_line(const BadLine& c) {
  std::vector<std::string> f = good_fields();
  if (c.name == "too few fields") f.pop_back();
  if (c.name == "too many fields") f.push_back("aa");
  if (c.field >= 0) f[static_cast<std::size_t>(c.field)] = c.value;
  return join(f);
}

const std::vector<BadLine>& bad_lines() {
  static const std::vector<BadLine> cases = {
      {"too few fields", -1, "", 0, "expected 40 tab-separated fields, found 39"},
      {"too many fields", -1, "", 0, "expected 40 tab-separated fields, found 41"},
      {"non-hex categorical", 20, "68fd1x64", 0, "field C7: '68fd1x64' is not a hexadecimal value"},
      {"long categorical", 20, "0123456789abcdef0", 0, "more than 16 hexadecimal digits"},
      {"decimal integer", 5, "1.5", 0, "field I5: '1.5' is not an integer"},
      {"word integer", 1, "abc", 3, "field I1: 'abc' is not an integer"},
      {"lone minus", 13, "-", 0, "field I13: '-' is not an integer"},
      {"label 2", 0, "2", 1, "field label: label must be 0 or 1, got '2'"},
      {"label -1", 0, "-1", 1, "label must be 0 or 1"},
      {"empty label", 0, "", 1, "label must be 0 or 1, got ''"},
  };
  return cases;
}

TEST(CriteoReader, EachBadLineNamesFileLineAndField) {
  const std::string good = join(good_fields());
  for (const BadLine& c : bad_lines()) {
    SCOPED_TRACE(c.name);
    const std::string text = good + "\n" + good + "\n" + bad_line(c) + "\n" + good + "\n";
    try {
      parse(text);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "mem.tsv");
      EXPECT_EQ(e.line(), 3);
      if (c.column) {
        EXPECT_EQ(e.column(), c.column);
      }
      EXPECT_NE(e.problem().find(c.message), std::string::npos) << e.what();
    }
  }
}

TEST(CriteoReader, SkipBadLinesCountsThem) {
  const std::string good = join(good_fields());
  std::string text;
  for (const BadLine& c : bad_lines()) text += good + "\n" + bad_line(c) + "\n";
  CriteoOptions options;
  options.skip_bad_lines = true;
  options.threads = 3;
  CriteoData data = parse(text, options);
  EXPECT_EQ(data.dataset.n_rows(), static_cast<std::int64_t>(bad_lines().size()));
  EXPECT_EQ(data.skipped_lines, static_cast<std::int64_t>(bad_lines().size()));
  EXPECT_NE(data.first_skipped.find("mem.tsv:2:"), std::string::npos) << data.first_skipped;
  for (const Row& row : rows_of(data.dataset)) EXPECT_EQ(row.entries.size(), 37u);  // no partial rows
}

TEST(CriteoReader, ErrorLineIsRightWithManyThreads) {
  CriteoGeneratorOptions gen;
  gen.rows = 20000;
  std::string text = generate_text(gen);
  // Break line 17001 by turning its first categorical into non-hex.
  std::size_t at = 0;
  for (int line = 1; line < 17001; ++line) at = text.find('\n', at) + 1;
  std::size_t field = at;
  for (int tab = 0; tab < 14; ++tab) field = text.find('\t', field) + 1;
  text[field] = 'z';
  CriteoOptions options;
  options.threads = 5;
  try {
    parse(text, options);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 17001);
    EXPECT_EQ(e.column(), static_cast<std::int64_t>(field - at) + 1);
  }
}

TEST(CriteoReader, EmptyInputAndAllBadAreErrors) {
  EXPECT_THROW(parse(""), InputError);
  EXPECT_THROW(parse("\n\n"), InputError);
  CriteoOptions options;
  options.skip_bad_lines = true;
  EXPECT_THROW(parse("2\tx\n", options), InputError);
}

TEST(CriteoReader, RejectsBadOptions) {
  CriteoOptions options;
  options.hash_bits = 0;
  EXPECT_THROW(parse(join(good_fields()), options), InvalidArgument);
  options.hash_bits = 31;
  EXPECT_THROW(parse(join(good_fields()), options), InvalidArgument);
  options = {};
  options.chunk_rows = 0;
  EXPECT_THROW(parse(join(good_fields()), options), InvalidArgument);
  EXPECT_THROW(criteo_categorical_index(26, 1), InvalidArgument);
  EXPECT_THROW(read_criteo(testing::scratch_dir() + "/no-such-file.tsv"), IoError);
}

// ---- generator -------------------------------------------------------------------

TEST(CriteoGenerator, SameSeedSameBytesDifferentSeedDifferent) {
  CriteoGeneratorOptions options;
  options.rows = 20000;
  options.threads = 1;
  const std::string a = generate_text(options);
  options.threads = 3;  // the bytes do not depend on the threads
  const std::string b = generate_text(options);
  options.seed = 2;
  const std::string c = generate_text(options);
  EXPECT_EQ(XXH3_64bits(a.data(), a.size()), XXH3_64bits(b.data(), b.size()));
  EXPECT_NE(XXH3_64bits(a.data(), a.size()), XXH3_64bits(c.data(), c.size()));
}

TEST(CriteoGenerator, FirstRowContinuesTheStream) {
  CriteoGeneratorOptions options;
  options.rows = 12000;
  const std::string whole = generate_text(options);
  options.rows = 9000;
  std::string parts = generate_text(options);
  options.first_row = 9000;
  options.rows = 3000;
  parts += generate_text(options);
  EXPECT_EQ(whole, parts);
}

TEST(CriteoGenerator, FileOutputParsesWithTheReader) {
  CriteoGeneratorOptions options;
  options.rows = 50000;
  const std::string path = testing::scratch_dir() + "/generated.tsv";
  const CriteoGeneratorStats stats = generate_criteo_file(options, path);
  CriteoData data = read_criteo(path);
  ASSERT_EQ(data.dataset.n_rows(), 50000);
  std::int64_t clicks = 0;
  for (double label : data.dataset.labels()) clicks += label == 1.0;
  EXPECT_EQ(clicks, stats.clicks);
  EXPECT_EQ(stats.rows, 50000);
}

// Column statistics of 200k generated rows against the documented distribution.
TEST(CriteoGenerator, ColumnDistributions) {
  CriteoGeneratorOptions options;
  options.rows = 200000;
  std::istringstream text(generate_text(options));
  std::vector<std::map<std::string, std::int64_t>> counts(kCriteoFields);
  std::string line;
  while (std::getline(text, line)) {
    std::size_t start = 0;
    for (int f = 0; f < kCriteoFields; ++f) {
      std::size_t end = std::min(line.find('\t', start), line.size());
      std::string value = line.substr(start, end - start);
      if (f == 0 || f > kCriteoIntegerColumns || value.empty() || value[0] == '-') ++counts[f][value];
      start = end + 1;
    }
  }
  const double n = 200000;
  for (int j = 1; j <= kCriteoIntegerColumns; ++j) {
    const double missing = static_cast<double>(counts[j][""]) / n;
    EXPECT_GT(missing, 0.18) << "I" << j;
    EXPECT_LT(missing, 0.42) << "I" << j;
  }
  EXPECT_GT(counts[2]["-1"], 0);  // I2 holds -1, as in the real log
  // C1 has 4 values with Zipf(1.1) frequencies: the first has 1 / sum_k k^-1.1.
  const auto& c1 = counts[kCriteoIntegerColumns + 1];
  ASSERT_EQ(c1.size(), 4u);
  std::int64_t top = 0;
  for (const auto& [value, count] : c1) top = std::max(top, count);
  const double zipf_top = 1.0 / (1.0 + std::pow(2.0, -1.1) + std::pow(3.0, -1.1) + std::pow(4.0, -1.1));
  EXPECT_NEAR(static_cast<double>(top) / n, zipf_top, 0.005);
  // C26 draws from millions of values: most rows see a new one.
  EXPECT_GT(counts[kCriteoFields - 1].size(), 10000u);
  for (const auto& [value, count] : counts[kCriteoFields - 1]) {
    if (!value.empty()) {
      EXPECT_EQ(value.size(), 8u);
    }
  }
}

// The Bayes logloss of the default world (seed 1), documented in docs/datasets.md:
// the mean entropy H(p) over 2,000,000 rows.
constexpr double kDocumentedBayesLogloss = 0.0962;

TEST(CriteoGenerator, ClickRateAndPlantedModelLogloss) {
  CriteoGeneratorOptions options;
  options.rows = 200000;
  options.first_row = 1'000'000'000;  // a test set, disjoint from any training rows
  CriteoGeneratorStats stats;
  const std::string text = generate_text(options, &stats);
  EXPECT_EQ(stats.rows, 200000);
  EXPECT_NEAR(stats.mean_probability, 0.03, 0.0015);
  // Binomial standard error of 200k draws at 3% is 0.0004.
  EXPECT_NEAR(stats.click_rate(), stats.mean_probability, 0.0016);
  EXPECT_NEAR(stats.click_rate(), 0.03, 0.003);
  // The expected logloss of the planted model on these rows is the documented one.
  EXPECT_NEAR(stats.bayes_logloss, kDocumentedBayesLogloss, 0.01 * kDocumentedBayesLogloss);
  // Its realised logloss on the drawn labels: at a 3% click rate one standard
  // error on 200k rows is itself about 1%, so allow four.
  EXPECT_LT(stats.logloss_standard_error, 0.012 * stats.bayes_logloss);
  EXPECT_NEAR(stats.logloss, stats.bayes_logloss, 4 * stats.logloss_standard_error);
  // The always-3% model does clearly worse: the features carry signal.
  const double constant_logloss = -(0.03 * std::log(0.03) + 0.97 * std::log(0.97));
  EXPECT_LT(stats.bayes_logloss, 0.8 * constant_logloss);
  // The labels written are the labels counted.
  std::int64_t clicks = 0;
  for (double label : parse(text).dataset.labels()) clicks += label == 1.0;
  EXPECT_EQ(clicks, stats.clicks);
}

TEST(CriteoGenerator, RejectsBadOptions) {
  CriteoGeneratorOptions options;
  options.click_rate = 0;
  EXPECT_THROW(generate_text(options), InvalidArgument);
  options = {};
  options.max_cardinality = 3;
  EXPECT_THROW(generate_text(options), InvalidArgument);
  options = {};
  options.rows = -1;
  EXPECT_THROW(generate_text(options), InvalidArgument);
}

}  // namespace
}  // namespace snapml::datasets
