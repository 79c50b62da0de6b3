// Random Fourier features (snapml/random_features.h): each feature against its
// definition, the kernel they approximate (Rahimi & Recht 2007), independence of
// the thread count, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "snapml/csr_view.h"
#include "snapml/error.h"
#include "snapml/random_features.h"

namespace snapml {
namespace {

struct Rows {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> columns;
  std::vector<float> values;
  std::int32_t n_features = 0;

  CsrView view() const {
    CsrView v;
    v.n_rows = static_cast<std::int64_t>(offsets.size()) - 1;
    v.n_features = n_features;
    v.row_offsets = offsets.data();
    v.col_indices = columns.data();
    v.values = values.data();
    return v;
  }
  std::vector<double> dense(std::int64_t row) const {
    std::vector<double> x(static_cast<std::size_t>(n_features), 0.0);
    for (auto k = offsets[static_cast<std::size_t>(row)]; k < offsets[static_cast<std::size_t>(row) + 1]; ++k)
      x[static_cast<std::size_t>(columns[static_cast<std::size_t>(k)])] = values[static_cast<std::size_t>(k)];
    return x;
  }
};

Rows random_rows(int n_rows, std::int32_t n_features, double density, std::mt19937& rng) {
  Rows rows;
  rows.n_features = n_features;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<float> value(0.0f, 0.5f);
  for (int r = 0; r < n_rows; ++r) {
    for (std::int32_t j = 0; j < n_features; ++j) {
      if (unit(rng) < density) {
        rows.columns.push_back(j);
        rows.values.push_back(value(rng));
      }
    }
    rows.offsets.push_back(static_cast<std::int64_t>(rows.columns.size()));
  }
  return rows;
}

// w_j ~ N(0, 2 gamma I), b_j ~ U[0, 2 pi): the distribution of the paper's map.
RandomFourierMap random_map(std::int32_t n_features, std::int32_t n_components, double gamma, std::mt19937& rng) {
  RandomFourierMap map;
  map.n_features = n_features;
  map.n_components = n_components;
  std::normal_distribution<double> normal(0.0, std::sqrt(2.0 * gamma));
  std::uniform_real_distribution<double> phase(0.0, 2.0 * M_PI);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n_features) * static_cast<std::size_t>(n_components); ++i)
    map.weights.push_back(normal(rng));
  for (std::int32_t j = 0; j < n_components; ++j) map.offsets.push_back(phase(rng));
  return map;
}

TEST(RandomFourierFeatures, EachFeatureIsItsDefinition) {
  std::mt19937 rng(1);
  const Rows rows = random_rows(300, 17, 0.3, rng);
  const RandomFourierMap map = random_map(17, 40, 0.5, rng);
  std::vector<float> z(300 * 40);
  random_fourier_features(rows.view(), map, z.data(), 2);
  for (std::int64_t r = 0; r < 300; ++r) {
    const std::vector<double> x = rows.dense(r);
    for (std::int32_t j = 0; j < 40; ++j) {
      double projection = map.offsets[static_cast<std::size_t>(j)];
      for (std::int32_t f = 0; f < 17; ++f)
        projection += x[static_cast<std::size_t>(f)] * map.weights[static_cast<std::size_t>(f) * 40 + static_cast<std::size_t>(j)];
      const double expected = std::sqrt(2.0 / 40.0) * std::cos(projection);
      ASSERT_NEAR(z[static_cast<std::size_t>(r) * 40 + static_cast<std::size_t>(j)], expected, 1e-6) << r << " " << j;
    }
  }
}

TEST(RandomFourierFeatures, InnerProductsApproximateTheRbfKernel) {
  // E[z(x).z(y)] = exp(-gamma ||x - y||^2); with D = 20,000 the average of D
  // bounded terms is within a few 1/sqrt(D) ~ 0.007 of it.
  std::mt19937 rng(2);
  const double gamma = 0.3;
  const Rows rows = random_rows(12, 10, 0.6, rng);
  const std::int32_t D = 20000;
  const RandomFourierMap map = random_map(10, D, gamma, rng);
  std::vector<float> z(12 * static_cast<std::size_t>(D));
  random_fourier_features(rows.view(), map, z.data(), 0);
  double worst = 0.0;
  for (std::int64_t a = 0; a < 12; ++a) {
    for (std::int64_t b = 0; b < 12; ++b) {
      const std::vector<double> x = rows.dense(a), y = rows.dense(b);
      double distance = 0.0;
      for (std::size_t f = 0; f < x.size(); ++f) distance += (x[f] - y[f]) * (x[f] - y[f]);
      double dot = 0.0;
      for (std::int64_t j = 0; j < D; ++j) dot += double(z[static_cast<std::size_t>(a * D + j)]) * z[static_cast<std::size_t>(b * D + j)];
      worst = std::max(worst, std::abs(dot - std::exp(-gamma * distance)));
    }
  }
  EXPECT_LT(worst, 0.04);
}

TEST(RandomFourierFeatures, TheThreadCountChangesNoBit) {
  std::mt19937 rng(3);
  const Rows rows = random_rows(1000, 50, 0.1, rng);
  const RandomFourierMap map = random_map(50, 33, 1.0, rng);
  std::vector<float> one(1000 * 33), four(1000 * 33);
  random_fourier_features(rows.view(), map, one.data(), 1);
  random_fourier_features(rows.view(), map, four.data(), 4);
  EXPECT_EQ(one, four);
}

TEST(RandomFourierFeatures, FewerColumnsAreZerosMoreAreRefused) {
  std::mt19937 rng(4);
  Rows rows = random_rows(20, 5, 0.5, rng);
  const RandomFourierMap map = random_map(8, 6, 1.0, rng);
  std::vector<float> z(20 * 6);
  EXPECT_NO_THROW(random_fourier_features(rows.view(), map, z.data(), 1));
  const RandomFourierMap narrow = random_map(4, 6, 1.0, rng);
  EXPECT_THROW(random_fourier_features(rows.view(), narrow, z.data(), 1), InvalidArgument);
}

TEST(RandomFourierFeatures, ABadMapIsRefused) {
  std::mt19937 rng(5);
  const Rows rows = random_rows(3, 4, 0.5, rng);
  std::vector<float> z(3 * 6);
  RandomFourierMap map = random_map(4, 6, 1.0, rng);
  map.offsets.pop_back();
  EXPECT_THROW(random_fourier_features(rows.view(), map, z.data(), 1), InvalidArgument);
  map = random_map(4, 6, 1.0, rng);
  map.weights[3] = NAN;
  EXPECT_THROW(random_fourier_features(rows.view(), map, z.data(), 1), InvalidArgument);
  map = random_map(4, 6, 1.0, rng);
  map.n_components = 0;
  EXPECT_THROW(random_fourier_features(rows.view(), map, z.data(), 1), InvalidArgument);
}

}  // namespace
}  // namespace snapml
