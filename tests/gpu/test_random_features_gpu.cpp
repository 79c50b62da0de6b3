// Random Fourier features on the GPU against the CPU's (snapml/random_features.h):
// the backend's function in batches of 1, 7 and all rows, and the core's path
// through the plugin, as Python takes it. Skips without a visible device; without
// one the core's path must refuse with Unsupported, never compute elsewhere.
// Built twice: for the device (label gpu) and over the emulated runtime
// (test_random_features_gpu_emulated: the host side, on any machine).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test.h"
#include "snapml/cuda/random_features_gpu.h"
#include "snapml/error.h"
#include "snapml/random_features.h"

namespace snapml {
namespace {

struct Problem {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> columns;
  std::vector<float> values;
  RandomFourierMap map;
  CsrView rows;
};

Problem make_problem(std::int64_t n_rows, std::int32_t n_features, std::int32_t D) {
  Problem p;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (std::int64_t r = 0; r < n_rows; ++r) {
    for (std::int32_t j = 0; j < n_features; ++j) {
      if (unit(rng) < 0.2 || r == 0) {  // row 0 dense, and a few empty rows likely
        p.columns.push_back(j);
        p.values.push_back(static_cast<float>(normal(rng)));
      }
    }
    p.offsets.push_back(static_cast<std::int64_t>(p.columns.size()));
  }
  p.map.n_features = n_features;
  p.map.n_components = D;
  for (std::int64_t i = 0; i < std::int64_t{n_features} * D; ++i) p.map.weights.push_back(normal(rng));
  for (std::int32_t j = 0; j < D; ++j) p.map.offsets.push_back(6.283185307179586 * unit(rng));
  p.rows.n_rows = n_rows;
  p.rows.n_features = n_features;
  p.rows.row_offsets = p.offsets.data();
  p.rows.col_indices = p.columns.data();
  p.rows.values = p.values.data();
  return p;
}

void expect_equal_to_cpu(const Problem& p, const std::vector<float>& gpu) {
  std::vector<float> cpu(gpu.size());
  random_fourier_features(p.rows, p.map, cpu.data(), 1);
  // The same sums in the same order in double; the cosines differ by an ulp at most.
  for (std::size_t i = 0; i < cpu.size(); ++i) ASSERT_NEAR(gpu[i], cpu[i], 1e-6) << "entry " << i;
}

TEST(RandomFourierFeaturesGpu, EqualTheCpusInEveryBatching) {
  SNAPML_REQUIRE_GPU();
  const Problem p = make_problem(1000, 60, 300);
  for (std::int64_t batch : {1, 7, 0}) {
    std::vector<float> gpu(1000 * 300, NAN);
    cuda::random_fourier_features(p.rows, p.map, gpu.data(), 0, batch);
    expect_equal_to_cpu(p, gpu);
  }
}

TEST(RandomFourierFeaturesGpu, TheCoresPathThroughThePlugin) {
#if defined(SNAPML_GPU_EMULATION)
  GTEST_SKIP() << "the emulated runtime's devices are not the plugin's";
#endif
  const Problem p = make_problem(300, 20, 1000);
  std::vector<float> gpu(300 * 1000, NAN);
  if (cuda::visible_gpu_count() == 0) {
    EXPECT_THROW(random_fourier_features_gpu(p.rows, p.map, gpu.data(), 0), Unsupported);
    return;
  }
  random_fourier_features_gpu(p.rows, p.map, gpu.data(), 0);
  expect_equal_to_cpu(p, gpu);
  EXPECT_THROW(random_fourier_features_gpu(p.rows, p.map, gpu.data(), cuda::visible_gpu_count()), Unsupported);
}

}  // namespace
}  // namespace snapml
