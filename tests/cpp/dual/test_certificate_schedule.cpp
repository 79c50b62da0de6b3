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
std::vector<int> certified_epochs(double tol, int max_epochs, const Gap& gap) {
  CertificateSchedule schedule(tol, 1000.0, 1.0, max_epochs);
  std::vector<int> certified;
  for (int epochs = 1; epochs <= max_epochs; ++epochs) {
    if (!schedule.due(epochs)) continue;
    certified.push_back(epochs);
    if (gap(epochs) <= tol) break;
    schedule.record(epochs, certificate(100.0, gap(epochs)));
  }
  return certified;
}

TEST(CertificateSchedule, AGeometricGapIsCertifiedAfterHalfThePredictedEpochs) {
  // gap = 0.5^e meets 1e-6 at e = 20 (0.5^20 = 9.5e-7): predicted from the first
  // two certificates on, each one halves the remaining distance (capped by the
  // epochs so far and kMaxSkip), and the fit stops exactly at 20.
  const auto certified = certified_epochs(1e-6, 1000, [](int e) { return std::pow(0.5, e); });
  EXPECT_EQ(certified, (std::vector<int>{1, 2, 4, 8, 13, 16, 17, 18, 19, 20}));
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
  const auto certified = certified_epochs(1e-9, 40, gap);
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
  CertificateSchedule schedule(1e-4, 50000.0, 1.0, 1000);
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
  CertificateSchedule exact(1e-30, 50000.0, 1.0, 1000);
  exact.record(1, certificate(6250.0, 0.2));
  EXPECT_EQ(exact.newton_tolerance(40), 1e-11);
}

}  // namespace
}  // namespace snapml
