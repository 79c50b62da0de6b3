// Regression targets the fit could not hold (issue 36, case 8): an intercept left
// at 0 by a tiny C, targets whose squares overflow (target_transform.h).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../../snapml/src/train/target_transform.h"
#include "snapml/error.h"
#include "snapml/train.h"
#include "thread_communicator.h"

namespace snapml {
namespace {

// y = 3 x_0 - 2 x_1 + 5 + noise, times `scale`.
Dataset linear_rows(double scale, std::int64_t n = 400) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  CsrChunk chunk;
  for (std::int64_t i = 0; i < n; ++i) {
    const float x[2] = {static_cast<float>(normal(random)), static_cast<float>(normal(random))};
    const std::int32_t index[2] = {0, 1};
    chunk.add_row(scale * (3.0 * x[0] - 2.0 * x[1] + 5.0 + 0.1 * normal(random)), index, x, 2);
  }
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), 2);
}

TrainParameters ridge(double C, SolverChoice solver = SolverChoice::Primal) {
  TrainParameters p;
  p.loss = LossKind::Squared;
  p.C = C;
  p.tol = 1e-10;
  p.threads = 1;
  p.solver = solver;
  p.fit_intercept = true;
  p.intercept_scaling = 1.0;
  p.penalise_intercept = false;  // scikit-learn's Ridge
  return p;
}

// Targets near 1e300: their squares overflowed and the fit returned an all-zero
// model. Scaled by their magnitude, the fit is the unit targets' fit times it,
// for the primal and the dual solver, the intercept free or penalised.
TEST(Targets, HugeTargetsFitAsUnitTargetsScaled) {
  for (const bool free_intercept : {true, false}) {
    for (const SolverChoice solver : {SolverChoice::Primal, SolverChoice::Dual}) {
      if (free_intercept && solver == SolverChoice::Dual) continue;  // SDCA penalises the intercept
      TrainParameters p = ridge(1.0, solver);
      p.penalise_intercept = !free_intercept;
      const Model unit = train(linear_rows(1.0), p).model;
      const Model huge = train(linear_rows(1e300), p).model;
      for (std::size_t j = 0; j < unit.coef.size(); ++j)
        EXPECT_NEAR(huge.coef[j] / 1e300, unit.coef[j], 1e-6 * std::fabs(unit.coef[j])) << j;
      EXPECT_NEAR(huge.intercept[0] / 1e300, unit.intercept[0], 1e-6 * std::fabs(unit.intercept[0]));
      EXPECT_NEAR(unit.coef[0], 3.0, 0.1);
    }
  }
}

// Ridge(alpha=1e20): C = 5e-21, and the free intercept stayed at 0 where the
// optimum is the targets' mean (w is ~0 at such a C).
TEST(Targets, ATinyCStillFitsTheFreeInterceptAtTheMean) {
  const Dataset data = linear_rows(1.0);
  double mean = 0.0;
  for (double y : data.labels()) mean += y / static_cast<double>(data.n_rows());
  const Model model = train(data, ridge(5e-21)).model;
  EXPECT_NEAR(model.intercept[0], mean, 1e-9 * std::fabs(mean));
  EXPECT_LT(std::fabs(model.coef[0]), 1e-15);
}

TEST(Targets, TheLassoRefusesTargetsWhoseSquaresOverflow) {
  TrainParameters p = ridge(1.0, SolverChoice::Dual);
  p.penalty = Penalty::L1;
  p.penalise_intercept = true;
  try {
    train(linear_rows(1e300), p);
    ADD_FAILURE() << "the lasso trained on targets near 1e300";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("divide the targets"), std::string::npos) << e.what();
  }
}

// The transform agreed over ranks, one of them without rows.
TEST(Targets, RanksAgreeOnTheTransformAndAnEmptyRankCountsForNothing) {
  testing::run_ranks(2, [](Communicator& communicator) {
    detail::TargetStats stats;
    if (communicator.rank() == 0)
      for (double y : {1e60, 3e60}) stats.add(y, 1.0);
    const detail::TargetTransform t = detail::decide_target_transform(stats, communicator, true, true);
    EXPECT_DOUBLE_EQ(t.shift, 2e60);
    EXPECT_DOUBLE_EQ(t.scale, 1e60);
    EXPECT_DOUBLE_EQ(t.apply(3e60), 1.0);
    const detail::TargetTransform fixed = detail::decide_target_transform(stats, communicator, false, false);
    EXPECT_TRUE(fixed.identity());
    EXPECT_DOUBLE_EQ(fixed.largest, 3e60);
  });
}

}  // namespace
}  // namespace snapml
