// The CoCoA+ aggregation rule (snapml/impl/cocoa.h): the safe start, the step share
// gamma that keeps sigma' >= gamma * rho for every round, and the adapted sigma'.
#include <gtest/gtest.h>

#include "snapml/impl/cocoa.h"

namespace {

using snapml::CocoaAggregation;

TEST(CocoaAggregation, StartsAtTheSafeSigmaOfK) {
  EXPECT_EQ(CocoaAggregation(4).sigma(), 4.0);
  EXPECT_EQ(CocoaAggregation(1).sigma(), 1.0);
  EXPECT_EQ(CocoaAggregation(0).sigma(), 1.0);  // no worker counts as one
}

TEST(CocoaAggregation, AcceptsTheWholeChangeWhenTheOverlapIsWithinSigma) {
  CocoaAggregation rule(4);
  // Changes that share no feature: ||sum||^2 = sum of ||dw_k||^2, rho = 1.
  EXPECT_EQ(rule.accept(3.0, 3.0), 1.0);
  EXPECT_EQ(rule.last_rho(), 1.0);
  EXPECT_EQ(rule.sigma(), 1.0);  // the next round's sigma' is the last rho
}

TEST(CocoaAggregation, ShortensARoundWhoseOverlapExceedsItsSigma) {
  CocoaAggregation rule(4);
  rule.accept(1.0, 1.0);  // sigma' becomes 1
  const double sigma = rule.sigma();
  // Four identical changes: ||sum||^2 = 16 ||dw||^2 against 4 ||dw||^2, rho = 4.
  const double gamma = rule.accept(4.0, 16.0);
  EXPECT_DOUBLE_EQ(gamma, sigma / 4.0);
  EXPECT_LE(gamma * rule.last_rho(), sigma * (1.0 + 1e-15));  // Lemma 3's condition
  EXPECT_EQ(rule.sigma(), 4.0);
}

// No headroom: the next round is solved with the last round's rho, and a round
// whose rho rises past it is shortened to sigma' / rho.
TEST(CocoaAggregation, TheNextSigmaIsTheLastRho) {
  CocoaAggregation rule(4);
  EXPECT_EQ(rule.accept(2.0, 5.0), 1.0);  // rho 2.5 within the starting sigma' of 4
  EXPECT_DOUBLE_EQ(rule.sigma(), 2.5);
  EXPECT_DOUBLE_EQ(rule.accept(1.0, 3.0), 2.5 / 3.0);
  EXPECT_DOUBLE_EQ(rule.sigma(), 3.0);
}

// With headroom (a free intercept's rounds): the next sigma' is headroom x rho,
// at most K, and a round is shortened only past it.
TEST(CocoaAggregation, HeadroomScalesTheNextSigmaWithinK) {
  CocoaAggregation rule(4, true, 1.25);
  EXPECT_EQ(rule.accept(1.0, 2.0), 1.0);  // rho 2
  EXPECT_DOUBLE_EQ(rule.sigma(), 2.5);
  EXPECT_EQ(rule.accept(1.0, 2.4), 1.0);  // rho 2.4 within 2.5
  EXPECT_DOUBLE_EQ(rule.sigma(), 3.0);
  EXPECT_DOUBLE_EQ(rule.accept(1.0, 3.6), 3.0 / 3.6);
  EXPECT_DOUBLE_EQ(rule.sigma(), 4.0);  // 4.5, capped at K
}

TEST(CocoaAggregation, ClampsRhoToItsRange) {
  CocoaAggregation rule(2);
  // Opposing changes cancel (rho < 1): sigma' never drops below 1.
  EXPECT_EQ(rule.accept(2.0, 0.1), 1.0);
  EXPECT_EQ(rule.last_rho(), 1.0);
  EXPECT_EQ(rule.sigma(), 1.0);
  // Rounding can put rho a hair above K: gamma stays sigma'/K.
  EXPECT_DOUBLE_EQ(rule.accept(1.0, 2.0 + 1e-12), 0.5);
  EXPECT_EQ(rule.last_rho(), 2.0);
}

TEST(CocoaAggregation, NothingMovedKeepsSigma) {
  CocoaAggregation rule(3);
  EXPECT_EQ(rule.accept(0.0, 0.0), 1.0);
  EXPECT_EQ(rule.sigma(), 3.0);
}

TEST(CocoaAggregation, FixedRuleKeepsSigmaAtKAndNeverShortens) {
  CocoaAggregation rule(3, /*adaptive=*/false);
  for (double rho : {1.0, 2.0, 3.0}) {
    EXPECT_EQ(rule.accept(1.0, rho), 1.0);
    EXPECT_EQ(rule.sigma(), 3.0);
  }
}

}  // namespace
