// When a dual fit certifies and how exact its logistic steps are
// (snapml/impl/certificate_schedule.h). The solvers' tests check on real data that the
// fits still reach the target; these pin the rule itself.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "snapml/impl/certificate_schedule.h"

namespace snapml {
namespace {

Objectives certificate(double primal, double relative_gap) {
  Objectives objectives;
  objectives.primal = primal;
  objectives.gap = relative_gap * primal;
  objectives.dual = primal - objectives.gap;
  return objectives;
}

// Runs a fit whose relative gap after e epochs is gap(e); returns the epochs after
// which it certified, up to the first certificate at or below tol.
template <typename Gap>
std::vector<int> certified_epochs(double tol, int max_epochs, const Gap& gap, bool non_smooth = false) {
  CertificateSchedule schedule(tol, 1000.0, 1.0, max_epochs, non_smooth);
  std::vector<int> certified;
  for (int epochs = 1; epochs <= max_epochs; ++epochs) {
    if (!schedule.due(epochs)) continue;
    certified.push_back(epochs);
    if (gap(epochs) <= tol) break;
    schedule.record(epochs, certificate(100.0, gap(epochs)));
  }
  return certified;
}

TEST(CertificateSchedule, AGeometricGapIsCertifiedAfterThePredictedEpochs) {
  // gap = 0.5^e meets 1e-6 at e = 20 (0.5^20 = 9.5e-7). Up to 16 the skips are
  // capped by the epochs so far; at 16 (gap 1.5e-5) the rate predicts 3.9 more
  // epochs, rounded down to 3; at 19 (1.9e-6) one more, and the fit stops
  // exactly at 20.
  const auto certified = certified_epochs(1e-6, 1000, [](int e) { return std::pow(0.5, e); });
  EXPECT_EQ(certified, (std::vector<int>{1, 2, 4, 8, 16, 19, 20}));
}

TEST(CertificateSchedule, TheHingeIsCertifiedAfterHalfThePredictedEpochs) {
  // The same gap with a non-smooth loss: each certificate halves the remaining
  // distance, ten certificates where a smooth loss takes seven, and the fit
  // stops at 20 too.
  const auto certified = certified_epochs(1e-6, 1000, [](int e) { return std::pow(0.5, e); }, true);
  EXPECT_EQ(certified, (std::vector<int>{1, 2, 4, 8, 13, 16, 17, 18, 19, 20}));
}

TEST(CertificateSchedule, OneFlatStepDoesNotSkipPastTheTarget) {
  // a9a's logistic fit on one thread (-s 7 -c 1 -B 1, relative gaps after each
  // epoch from --history): from 15 to 17 the gap went 5.4e-4, 2.70e-4, 2.66e-4.
  // The last two certificates alone predicted 65 more epochs and skipped 8, to 25;
  // the rate since the one before them (after 8) predicts 1.85, and the fit
  // certifies at 19, the first epoch under 1e-4.
  const std::vector<double> gaps = {0.640095, 0.402138, 0.20758, 0.131255, 0.074786, 0.048217, 0.035806,
                                    0.03078,  0.018491, 0.005307, 0.003486, 0.001581, 0.001113, 0.000663,
                                    0.000541, 0.00027,  0.000266, 0.000143, 6.9e-05,  4.1e-05,  2.1e-05,
                                    1.8e-05,  1.7e-05,  6e-06,    4e-06};
  const auto certified = certified_epochs(1e-4, 25, [&](int e) { return gaps[static_cast<std::size_t>(e - 1)]; });
  EXPECT_EQ(certified.back(), 19);
  EXPECT_EQ(certified, (std::vector<int>{1, 2, 4, 8, 16, 17, 18, 19}));
}

TEST(CertificateSchedule, AGapThatDidNotFallIsCertifiedAfterEveryEpoch) {
  // Noise (or a CoCoA+ round with gamma < 1) gives no rate: no skipping.
  const auto certified = certified_epochs(1e-3, 8, [](int) { return 0.5; });
  EXPECT_EQ(certified, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(CertificateSchedule, AGapThatRoseHalvesTheLastSkip) {
  // A slow geometric gap, skipping kMaxSkip by epoch 16, that rises once at 24
  // (a noisy hinge fit on threads): the next certificate comes after 4 epochs,
  // not after 1, and the rate predicts again from there.
  const auto gap = [](int e) { return e == 24 ? 0.95 : std::pow(0.99, e); };
  const auto certified = certified_epochs(1e-9, 40, gap, true);
  EXPECT_EQ(certified, (std::vector<int>{1, 2, 4, 8, 16, 24, 28, 36, 40}));
}

TEST(CertificateSchedule, ASlowGapSkipsAtMostkMaxSkipEpochsAndTheLastEpochCertifies) {
  const auto certified = certified_epochs(1e-9, 60, [](int e) { return std::pow(0.99, e); });
  ASSERT_GE(certified.size(), 3u);
  for (std::size_t k = 1; k < certified.size(); ++k)
    EXPECT_LE(certified[k] - certified[k - 1], CertificateSchedule::kMaxSkip) << certified[k];
  EXPECT_EQ(certified.back(), 60);  // max_epochs: the fit ends with a certificate
}

TEST(CertificateSchedule, NewtonToleranceIsLiblinearsScheduleFlooredByTheTarget) {
  CertificateSchedule schedule(1e-4, 50000.0, 1.0, 1000, false);
  // Before any certificate: LIBLINEAR's innereps, 1e-2 tightened tenfold an
  // epoch, down to 1e-11.
  EXPECT_DOUBLE_EQ(schedule.newton_tolerance(0), 1e-2);
  EXPECT_DOUBLE_EQ(schedule.newton_tolerance(3), 1e-5);
  EXPECT_EQ(schedule.newton_tolerance(40), 1e-11);
  // After one: the margin error whose cost, n C delta^2 / 8, is 1 % of tol * P.
  schedule.record(1, certificate(6250.0, 0.2));
  const double delta = std::sqrt(8.0 * 0.01 * 1e-4 * 6250.0 / 50000.0);  // 1e-3
  EXPECT_DOUBLE_EQ(schedule.newton_tolerance(1), 1e-3);
  EXPECT_DOUBLE_EQ(schedule.newton_tolerance(40), delta);
  // A target far below any reachable gap keeps the old floor.
  CertificateSchedule exact(1e-30, 50000.0, 1.0, 1000, false);
  exact.record(1, certificate(6250.0, 0.2));
  EXPECT_EQ(exact.newton_tolerance(40), 1e-11);
}

}  // namespace
}  // namespace snapml
