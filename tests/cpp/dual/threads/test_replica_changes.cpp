// The replicas' changes and their merge over the columns a round touched
// (snapml/src/dual/threads/replica_changes.h): the sums and the merged w equal the
// dense merge's, a column listed twice counts once, and every change is 0 after.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../../../snapml/src/dual/threads/replica_changes.h"

namespace {

using snapml::RoundSums;
using snapml::detail::ReplicaChanges;

// A round's changes, as the steps leave them: worker k moves a random set of
// columns (some to a value and back to exactly 0, then on: listed twice).
std::vector<std::vector<double>> move(ReplicaChanges& changes, int workers, std::size_t weights, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> column(0, static_cast<int>(weights) - 1);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<double>> dense(static_cast<std::size_t>(workers), std::vector<double>(weights, 0.0));
  for (int k = 0; k < workers; ++k) {
    double* change = changes.change(k);
    for (int step = 0; step < 200; ++step) {
      const int j = column(random);
      const double by = step % 17 == 0 ? -change[j] : normal(random);  // back to 0 now and then
      if (change[j] == 0.0) changes.touched(k)->push_back(j);
      change[j] += by;
      dense[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)] = change[j];
    }
  }
  return dense;
}

TEST(ReplicaChanges, MergeEqualsTheDenseMergeAndLeavesEveryChangeZero) {
  const std::size_t weights = 1000;
  const double sigma = 2.5;
  for (int workers : {3, 8}) {
    for (int threads : {1, 2, 5}) {
      SCOPED_TRACE(::testing::Message() << workers << " workers, " << threads << " threads");
      ReplicaChanges changes;
      changes.start(workers, weights);
      std::vector<double> w(weights, 0.5), expected = w;
      for (unsigned round = 0; round < 3; ++round) {
        const auto dense = move(changes, workers, weights, 7 + round);
        std::vector<double> sum(weights, 0.0);
        double sum_of_squares = 0.0;
        for (const auto& change : dense)
          for (std::size_t j = 0; j < weights; ++j) {
            sum[j] += change[j] / sigma;
            sum_of_squares += (change[j] / sigma) * (change[j] / sigma);
          }
        double square_of_sum = 0.0;
        for (const double s : sum) square_of_sum += s * s;
        const RoundSums sums = changes.sum(sigma, threads);
        EXPECT_NEAR(sums.sum_of_squares, sum_of_squares, 1e-12 * sum_of_squares);
        EXPECT_NEAR(sums.square_of_sum, square_of_sum, 1e-12 * square_of_sum);
        const double gamma = 0.75;
        changes.apply(gamma, w.data(), threads);
        for (std::size_t j = 0; j < weights; ++j) {
          expected[j] += gamma * sum[j];
          ASSERT_NEAR(w[j], expected[j], 1e-12) << "column " << j;
        }
        for (int k = 0; k < workers; ++k)
          for (std::size_t j = 0; j < weights; ++j) ASSERT_EQ(changes.change(k)[j], 0.0);
        for (int k = 0; k < workers; ++k) EXPECT_TRUE(changes.touched(k)->empty());
      }
    }
  }
}

// Across ranks: the dense change vector gets sum_k dw_k and, last, sum_k ||dw_k||^2.
TEST(ReplicaChanges, AddsToTheDenseChangeOfARankAndLeavesEveryChangeZero) {
  const std::size_t weights = 300;
  const int workers = 4;
  ReplicaChanges changes;
  changes.start(workers, weights);
  const auto dense = move(changes, workers, weights, 11);
  std::vector<double> change(weights + 1, 1.0), expected(weights + 1, 1.0);
  for (const auto& own : dense)
    for (std::size_t j = 0; j < weights; ++j) {
      expected[j] += own[j] / 2.0;
      expected[weights] += (own[j] / 2.0) * (own[j] / 2.0);
    }
  changes.add_to(2.0, change.data());
  for (std::size_t j = 0; j <= weights; ++j) ASSERT_NEAR(change[j], expected[j], 1e-12 * std::fabs(expected[j]) + 1e-15);
  for (int k = 0; k < workers; ++k)
    for (std::size_t j = 0; j < weights; ++j) ASSERT_EQ(changes.change(k)[j], 0.0);
}

}  // namespace
