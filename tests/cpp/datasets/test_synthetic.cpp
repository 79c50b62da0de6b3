// The synthetic generator: determinism, thread independence, shape and balance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "dataset_compare.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"

namespace snapml {
namespace {

using datasets::make_synthetic;
using datasets::SyntheticOptions;
using datasets::SyntheticTask;
using testing::expect_same_dataset;

SyntheticOptions small_options() {
  SyntheticOptions o;
  o.rows = 5000;
  o.features = 300;
  o.nnz_per_row = 12;
  o.seed = 7;
  o.chunk_rows = 1024;
  return o;
}

TEST(Synthetic, SameSeedSameData) {
  expect_same_dataset(make_synthetic(small_options()), make_synthetic(small_options()));
}

TEST(Synthetic, DifferentSeedDifferentData) {
  SyntheticOptions other = small_options();
  other.seed = 8;
  const Dataset a = make_synthetic(small_options()).merged();
  const Dataset b = make_synthetic(other).merged();
  EXPECT_NE(a.chunk(0).col_indices, b.chunk(0).col_indices);
}

TEST(Synthetic, IndependentOfThreadCount) {
  for (SyntheticTask task : {SyntheticTask::Binary, SyntheticTask::Regression}) {
    SyntheticOptions o = small_options();
    o.task = task;
    o.threads = 1;
    Dataset expected = make_synthetic(o);
    for (int threads : {2, 3, 8}) {
      o.threads = threads;
      expect_same_dataset(expected, make_synthetic(o));
    }
  }
}

TEST(Synthetic, RowsDoNotDependOnChunkSize) {
  SyntheticOptions o = small_options();
  Dataset expected = make_synthetic(o);
  o.chunk_rows = 333;
  Dataset rechunked = make_synthetic(o);
  EXPECT_EQ(rechunked.n_chunks(), 16u);
  testing::expect_same_rows(expected, rechunked);
}

TEST(Synthetic, ShapeIsExact) {
  SyntheticOptions o = small_options();
  Dataset data = make_synthetic(o);
  EXPECT_EQ(data.n_rows(), o.rows);
  EXPECT_EQ(data.n_features(), o.features);
  EXPECT_EQ(data.nnz(), o.rows * o.nnz_per_row);
  for (const CsrChunk& c : data.chunks()) {
    EXPECT_LE(c.n_rows(), o.chunk_rows);
    for (std::int64_t r = 0; r < c.n_rows(); ++r) {
      auto begin = static_cast<std::size_t>(c.row_offsets[static_cast<std::size_t>(r)]);
      auto end = static_cast<std::size_t>(c.row_offsets[static_cast<std::size_t>(r) + 1]);
      ASSERT_EQ(end - begin, static_cast<std::size_t>(o.nnz_per_row));
      for (std::size_t k = begin; k < end; ++k) {
        ASSERT_GE(c.col_indices[k], 0);
        ASSERT_LT(c.col_indices[k], o.features);
        if (k > begin) {
          ASSERT_LT(c.col_indices[k - 1], c.col_indices[k]) << "features must be distinct, sorted";
        }
        ASSERT_GT(c.values[k], 0.0f);
        ASSERT_LE(c.values[k], 1.0f);
      }
    }
  }
}

TEST(Synthetic, EveryFeatureOfADenseRow) {
  SyntheticOptions o = small_options();
  o.rows = 10;
  o.features = 40;
  o.nnz_per_row = 40;
  Dataset data = make_synthetic(o);
  for (std::int64_t k = 0; k < data.nnz(); ++k)
    EXPECT_EQ(data.chunk(0).col_indices[static_cast<std::size_t>(k)], k % 40);
}

TEST(Synthetic, BinaryLabelsAreRoughlyBalanced) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    SyntheticOptions o = small_options();
    o.seed = seed;
    o.rows = 20000;
    o.features = 50;  // few features: an uncentred w* would unbalance the classes
    Dataset data = make_synthetic(o);
    EXPECT_EQ(data.distinct_labels(), (std::vector<double>{-1, 1}));
    double positives = 0;
    for (double y : data.labels()) positives += y > 0;
    double share = positives / static_cast<double>(o.rows);
    EXPECT_GT(share, 0.4) << "seed " << seed;
    EXPECT_LT(share, 0.6) << "seed " << seed;
  }
}

TEST(Synthetic, LargerMarginScaleMakesLabelsMoreConsistent) {
  // With one feature per row, every row holding feature j has a margin of sign
  // w*_j, so the share of the majority label per feature measures the planted
  // signal: a coin flip at scale 0, and growing with margin_scale.
  auto majority_share = [](double scale) {
    SyntheticOptions o;
    o.rows = 40000;
    o.features = 20;
    o.nnz_per_row = 1;
    o.margin_scale = scale;
    Dataset data = make_synthetic(o);
    std::vector<double> positive(20, 0), total(20, 0);
    const Dataset merged = data.merged();
    const CsrChunk& c = merged.chunk(0);
    for (std::size_t r = 0; r < c.labels.size(); ++r) {
      total[static_cast<std::size_t>(c.col_indices[r])] += 1;
      positive[static_cast<std::size_t>(c.col_indices[r])] += c.labels[r] > 0;
    }
    double majority = 0;
    for (std::size_t j = 0; j < 20; ++j) majority += std::max(positive[j], total[j] - positive[j]);
    return majority / static_cast<double>(o.rows);
  };
  EXPECT_LT(majority_share(0.0), 0.53);  // scale 0: coin flips
  EXPECT_GT(majority_share(20.0), majority_share(1.0) + 0.1);
}

TEST(Synthetic, RegressionTargetsHaveTheNoiseFloor) {
  SyntheticOptions o = small_options();
  o.task = SyntheticTask::Regression;
  o.noise = 0.0;
  Dataset clean = make_synthetic(o);
  o.noise = 0.5;
  Dataset noisy = make_synthetic(o);
  std::vector<double> a = clean.labels(), b = noisy.labels();
  double squared = 0;
  for (std::size_t i = 0; i < a.size(); ++i) squared += (b[i] - a[i]) * (b[i] - a[i]);
  // Same rows and margins; the difference is the noise alone, variance 0.25.
  EXPECT_NEAR(squared / static_cast<double>(a.size()), 0.25, 0.03);
}

TEST(Synthetic, InvalidOptionsAreRejected) {
  SyntheticOptions o = small_options();
  o.nnz_per_row = o.features + 1;
  EXPECT_THROW(make_synthetic(o), InvalidArgument);
  o = small_options();
  o.rows = 0;
  EXPECT_THROW(make_synthetic(o), InvalidArgument);
  o = small_options();
  o.noise = -1;
  EXPECT_THROW(make_synthetic(o), InvalidArgument);
  o = small_options();
  o.chunk_rows = 0;
  EXPECT_THROW(make_synthetic(o), InvalidArgument);
}

}  // namespace
}  // namespace snapml
