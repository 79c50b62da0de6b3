#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstdint>

#include "snapml/chunk_source.h"
#include "snapml/dataset.h"
#include "snapml/error.h"

namespace snapml {
namespace {

CsrChunk chunk_of(std::initializer_list<std::pair<double, std::vector<std::pair<int, float>>>> rows) {
  CsrChunk c;
  for (const auto& [label, entries] : rows) {
    std::vector<std::int32_t> idx;
    std::vector<float> val;
    for (auto [i, v] : entries) {
      idx.push_back(i);
      val.push_back(v);
    }
    c.add_row(label, idx.data(), val.data(), static_cast<std::int64_t>(idx.size()));
  }
  return c;
}

TEST(Dataset, CountsRowsNonZerosAndFirstRows) {
  std::vector<CsrChunk> chunks;
  chunks.push_back(chunk_of({{1, {{0, 1.f}, {3, 2.f}}}, {-1, {}}}));
  chunks.push_back(chunk_of({{1, {{2, 5.f}}}}));
  Dataset d(std::move(chunks), 4);
  EXPECT_EQ(d.n_rows(), 3);
  EXPECT_EQ(d.nnz(), 3);
  EXPECT_EQ(d.chunk(1).first_row, 2);
  EXPECT_EQ(d.view(1).first_row, 2);
  EXPECT_EQ(d.distinct_labels(), (std::vector<double>{-1, 1}));
}

TEST(Dataset, MergedKeepsRowsInOrderAndFillsMissingWeights) {
  std::vector<CsrChunk> chunks;
  chunks.push_back(chunk_of({{1, {{0, 1.f}}}}));
  chunks.push_back(chunk_of({{2, {{1, 2.f}, {2, 3.f}}}}));
  chunks[1].weights = {0.5f};
  Dataset m = Dataset(std::move(chunks), 3).merged();
  ASSERT_EQ(m.n_chunks(), 1u);
  CsrView v = m.view(0);
  EXPECT_EQ(v.n_rows, 2);
  EXPECT_EQ(v.row_offsets[2], 3);
  EXPECT_EQ(v.col_indices[2], 2);
  EXPECT_FLOAT_EQ(v.weight(0), 1.0f);
  EXPECT_FLOAT_EQ(v.weight(1), 0.5f);
}

TEST(Dataset, RefusesToLowerFeatureCount) {
  Dataset d({}, 10);
  EXPECT_THROW(d.set_n_features(5), InvalidArgument);
  d.set_n_features(20);
  EXPECT_EQ(d.n_features(), 20);
}

TEST(InMemorySource, VisitsEveryChunkThenResets) {
  std::vector<CsrChunk> chunks;
  chunks.push_back(chunk_of({{1, {{0, 1.f}}}}));
  chunks.push_back(chunk_of({{1, {{0, 1.f}}}, {1, {}}}));
  Dataset d(std::move(chunks), 1);
  InMemorySource source(d);
  CsrView v;
  int seen = 0;
  while (source.next(v)) ++seen;
  EXPECT_EQ(seen, 2);
  source.reset();
  ASSERT_TRUE(source.next(v));
  EXPECT_EQ(v.n_rows, 1);
}

// A view whose second row starts past 2^31 non-zeros: offsets and every row
// access are 64-bit. The arrays are an untouched MAP_NORESERVE mapping, so the
// kernel backs them with the shared zero page and the test needs no 16 GiB.
TEST(CsrView, RowsPastTwoToThe31NonZeros) {
  const std::int64_t first_row_nnz = (std::int64_t{1} << 31) + 5;
  const std::int64_t nnz = first_row_nnz + 2;
  const std::size_t bytes = static_cast<std::size_t>(nnz) * sizeof(float);
  void* values = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* indices = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (values == MAP_FAILED || indices == MAP_FAILED) GTEST_SKIP() << "cannot reserve address space";
  auto* vals = static_cast<float*>(values);
  auto* idx = static_cast<std::int32_t*>(indices);
  vals[first_row_nnz] = 2.0f;
  idx[first_row_nnz] = 1;
  vals[first_row_nnz + 1] = 3.0f;
  idx[first_row_nnz + 1] = 2;
  std::int64_t offsets[3] = {0, first_row_nnz, nnz};
  double labels[2] = {1, -1};
  CsrView v;
  v.n_rows = 2;
  v.n_features = 3;
  v.row_offsets = offsets;
  v.col_indices = idx;
  v.values = vals;
  v.labels = labels;
  EXPECT_EQ(v.nnz(), nnz);
  EXPECT_GT(v.row_begin(1), std::int64_t{INT32_MAX});
  const double w[3] = {0.0, 10.0, 100.0};
  EXPECT_DOUBLE_EQ(row_dot(v, 1, w), 2.0 * 10.0 + 3.0 * 100.0);
  EXPECT_DOUBLE_EQ(row_squared_norm(v, 1), 13.0);
  munmap(values, bytes);
  munmap(indices, bytes);
}

}  // namespace
}  // namespace snapml
