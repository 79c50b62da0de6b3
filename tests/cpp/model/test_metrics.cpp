#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "snapml/error.h"
#include "snapml/metrics.h"

namespace snapml {
namespace {

TEST(Accuracy, CountsExactMatches) {
  const std::vector<double> truth{1, -1, 2, 2};
  const std::vector<double> predicted{1, 1, 2, -1};
  EXPECT_EQ(correct_count(truth.data(), predicted.data(), 4), 2u);
  EXPECT_DOUBLE_EQ(accuracy(truth.data(), predicted.data(), 4), 0.5);
  EXPECT_THROW(accuracy(truth.data(), predicted.data(), 0), InvalidArgument);
}

TEST(RocAuc, TiesCountOneHalfAgainstHandComputedValue) {
  // Positives score 0.9, 0.5, 0.3; negatives 0.9, 0.3, 0.1. Of the nine
  // (positive, negative) pairs seven are ordered right or tied: 1+1+0.5 for 0.9,
  // 1+1 for 0.5, 1+0.5 for 0.3, and two are wrong (0.5 and 0.3 below 0.9): 6/9.
  const std::vector<double> truth{1, 0, 1, 0, 1, 0};
  const std::vector<double> scores{0.9, 0.9, 0.5, 0.3, 0.3, 0.1};
  EXPECT_DOUBLE_EQ(roc_auc(truth.data(), scores.data(), 6, 1.0), 2.0 / 3.0);
  // The other class as positive mirrors the curve.
  EXPECT_DOUBLE_EQ(roc_auc(truth.data(), scores.data(), 6, 0.0), 1.0 / 3.0);
}

TEST(RocAuc, MatchesPairCountingOnRandomScoresWithManyTies) {
  std::mt19937_64 random(7);
  std::uniform_int_distribution<int> level(0, 9);  // ten score levels: ties everywhere
  std::bernoulli_distribution positive(0.3);
  std::vector<double> truth(500), scores(500);
  for (std::size_t i = 0; i < truth.size(); ++i) {
    truth[i] = positive(random) ? 1.0 : -1.0;
    scores[i] = 0.1 * level(random);
  }
  double ordered = 0.0, pairs = 0.0;
  for (std::size_t p = 0; p < truth.size(); ++p) {
    if (truth[p] != 1.0) continue;
    for (std::size_t q = 0; q < truth.size(); ++q) {
      if (truth[q] == 1.0) continue;
      ordered += scores[p] > scores[q] ? 1.0 : scores[p] == scores[q] ? 0.5 : 0.0;
      pairs += 1.0;
    }
  }
  EXPECT_NEAR(roc_auc(truth.data(), scores.data(), truth.size(), 1.0), ordered / pairs, 1e-12);
}

TEST(RocAuc, RefusesOneClassAndNonFiniteScores) {
  const std::vector<double> truth{1, 1};
  const std::vector<double> scores{0.2, 0.4};
  EXPECT_THROW(roc_auc(truth.data(), scores.data(), 2, 1.0), InvalidArgument);
  const std::vector<double> both{1, -1};
  const std::vector<double> nan_score{NAN, 0.4};
  EXPECT_THROW(roc_auc(both.data(), nan_score.data(), 2, 1.0), InvalidArgument);
}

TEST(LogLoss, MeanNegativeLogOfTheTrueClass) {
  const std::vector<double> classes{-1, 1, 3};
  const std::vector<double> truth{-1, 1, 3};
  const std::vector<double> probabilities{0.8, 0.1, 0.1,  //
                                          0.25, 0.5, 0.25,  //
                                          0.5, 0.25, 0.25};
  EXPECT_NEAR(log_loss(truth.data(), probabilities.data(), 3, classes.data(), 3),
              -(std::log(0.8) + std::log(0.5) + std::log(0.25)) / 3.0, 1e-15);
}

TEST(LogLoss, ClipsCertainMistakesToAFiniteLoss) {
  const std::vector<double> classes{0, 1};
  const std::vector<double> truth{1, 0};
  const std::vector<double> probabilities{1.0, 0.0,   // the true class has probability 0
                                          1.0, 0.0};  // and 1: clipped to 1 - 1e-15
  const double loss = log_loss(truth.data(), probabilities.data(), 2, classes.data(), 2);
  EXPECT_NEAR(loss, (-std::log(1e-15) - std::log1p(-1e-15)) / 2.0, 1e-12);
  EXPECT_NEAR(log_loss(truth.data(), probabilities.data(), 1, classes.data(), 2, 1e-3), -std::log(1e-3), 1e-12);
  EXPECT_THROW(log_loss(truth.data(), probabilities.data(), 1, classes.data(), 2, 0.5), InvalidArgument);
}

TEST(LogLoss, RefusesALabelOutsideTheClasses) {
  const std::vector<double> classes{0, 1};
  const std::vector<double> truth{2};
  const std::vector<double> probabilities{0.5, 0.5};
  EXPECT_THROW(log_loss(truth.data(), probabilities.data(), 1, classes.data(), 2), InvalidArgument);
}

TEST(Regression, MseR2AndSquaredCorrelationAgainstHandComputedValues) {
  const std::vector<double> truth{1, 2, 3};
  const std::vector<double> predicted{2, 4, 7};
  EXPECT_DOUBLE_EQ(mean_squared_error(truth.data(), predicted.data(), 3), 7.0);  // (1 + 4 + 16) / 3
  EXPECT_DOUBLE_EQ(r2_score(truth.data(), predicted.data(), 3), 1.0 - 21.0 / 2.0);
  // Centred: truth (-1, 0, 1), prediction (-7/3, -1/3, 8/3); cross 5, spreads 2 and 38/3.
  EXPECT_NEAR(squared_correlation(truth.data(), predicted.data(), 3), 75.0 / 76.0, 1e-15);
}

TEST(Regression, SquaredCorrelationSurvivesALargeMean) {
  // A raw-moment formula loses every digit here; centred sums keep them.
  const std::vector<double> truth{1e9 + 1, 1e9 + 2, 1e9 + 3};
  const std::vector<double> predicted{1e9 + 2, 1e9 + 4, 1e9 + 7};
  EXPECT_NEAR(squared_correlation(truth.data(), predicted.data(), 3), 75.0 / 76.0, 1e-9);
}

TEST(Regression, ConstantTruthOrPrediction) {
  const std::vector<double> constant{2, 2, 2};
  const std::vector<double> varying{1, 2, 3};
  EXPECT_DOUBLE_EQ(r2_score(constant.data(), constant.data(), 3), 1.0);
  EXPECT_DOUBLE_EQ(r2_score(constant.data(), varying.data(), 3), 0.0);
  EXPECT_TRUE(std::isnan(squared_correlation(varying.data(), constant.data(), 3)));
  EXPECT_THROW(mean_squared_error(varying.data(), varying.data(), 0), InvalidArgument);
}

}  // namespace
}  // namespace snapml
