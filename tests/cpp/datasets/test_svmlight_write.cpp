// The svmlight writer: exact text, bit-exact write -> read round trips, atomicity.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "dataset_compare.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"
#include "test_data.h"

namespace snapml {
namespace {

using datasets::IndexBase;
using datasets::read_svmlight;
using datasets::SvmlightOptions;
using datasets::write_svmlight;
using testing::expect_same_rows;

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Dataset small_dataset() {
  CsrChunk chunk;
  const std::int32_t columns[] = {0, 2, 6};
  const float values[] = {0.1f, 1e-5f, 123456.7f};
  chunk.add_row(1.0, columns, values, 3);
  chunk.add_row(-0.125, columns, values, 0);
  const std::int32_t last_column[] = {6};
  const float last_value[] = {-3.0f};
  chunk.add_row(0.1, last_column, last_value, 1);
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), 7);
}

TEST(SvmlightWrite, ShortestTextOneBased) {
  const std::string path = testing::scratch_dir() + "/small.svm";
  write_svmlight(small_dataset(), path);
  EXPECT_EQ(file_text(path), "1 1:0.1 3:1e-05 7:123456.7\n-0.125\n0.1 7:-3\n");
}

TEST(SvmlightWrite, ZeroBased) {
  const std::string path = testing::scratch_dir() + "/small0.svm";
  write_svmlight(small_dataset(), path, /*zero_based=*/true);
  EXPECT_EQ(file_text(path), "1 0:0.1 2:1e-05 6:123456.7\n-0.125\n0.1 6:-3\n");
  expect_same_rows(small_dataset(), read_svmlight(path));
}

TEST(SvmlightWrite, RoundTripOfRealDataset) {
  SNAPML_REQUIRE_DATASET(source, "heart_scale");
  const std::string path = testing::scratch_dir() + "/heart_scale.svm";
  Dataset original = read_svmlight(source);
  write_svmlight(original, path);
  expect_same_rows(original, read_svmlight(path));
}

// Every finite float (subnormals included) and every finite double label must
// come back bit for bit, though values go through a double on the way in.
TEST(SvmlightWrite, RoundTripIsBitExactForRandomBitPatterns) {
  std::mt19937_64 rng(42);
  const std::int32_t n_features = 1000;
  std::vector<CsrChunk> chunks(3);
  std::vector<std::int32_t> columns(n_features);
  for (std::int32_t j = 0; j < n_features; ++j) columns[static_cast<std::size_t>(j)] = j;
  std::vector<float> values(n_features);
  for (CsrChunk& chunk : chunks) {
    for (int row = 0; row < 200; ++row) {
      for (float& v : values) {
        do {
          auto bits = static_cast<std::uint32_t>(rng());
          std::memcpy(&v, &bits, 4);
        } while (!std::isfinite(v));
      }
      double label;
      do {
        std::uint64_t bits = rng();
        std::memcpy(&label, &bits, 8);
      } while (!std::isfinite(label));
      chunk.add_row(label, columns.data(), values.data(), n_features);
    }
  }
  Dataset original(std::move(chunks), n_features);
  const std::string path = testing::scratch_dir() + "/bits.svm";
  write_svmlight(original, path);
  SvmlightOptions options;
  options.threads = 2;
  expect_same_rows(original, read_svmlight(path, options));
}

TEST(SvmlightWrite, RoundTripOfSyntheticRegression) {
  datasets::SyntheticOptions o;
  o.rows = 3000;
  o.features = 500;
  o.nnz_per_row = 20;
  o.task = datasets::SyntheticTask::Regression;
  o.chunk_rows = 1000;
  Dataset original = make_synthetic(o);
  const std::string path = testing::scratch_dir() + "/synthetic.svm";
  write_svmlight(original, path);
  SvmlightOptions options;
  options.n_features = o.features;
  options.index_base = IndexBase::One;
  options.chunk_rows = 1000;
  testing::expect_same_dataset(original, read_svmlight(path, options));
}

TEST(SvmlightWrite, NonFiniteValueIsRejectedAndNothingIsWritten) {
  CsrChunk chunk;
  const std::int32_t column[] = {3};
  const float value[] = {std::numeric_limits<float>::quiet_NaN()};
  chunk.add_row(1.0, column, value, 1);
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  Dataset bad(std::move(chunks), 4);
  const std::string path = testing::scratch_dir() + "/nan.svm";
  try {
    write_svmlight(bad, path);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("row 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NaN or infinite"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& entry : std::filesystem::directory_iterator(testing::scratch_dir()))
    EXPECT_EQ(entry.path().filename().string().find("nan.svm.tmp"), std::string::npos) << "temporary file left";
}

TEST(SvmlightWrite, ReplacesAnExistingFile) {
  const std::string path = testing::scratch_dir() + "/replace.svm";
  std::ofstream(path) << "old contents\n";
  write_svmlight(small_dataset(), path);
  expect_same_rows(small_dataset(), read_svmlight(path));
}

TEST(SvmlightWrite, UnwritableTargetIsAnIoError) {
  EXPECT_THROW(write_svmlight(small_dataset(), testing::scratch_dir() + "/no/such/dir/x.svm"), IoError);
}

}  // namespace
}  // namespace snapml
