// Which solver trains what, on which device (snapml/solver_factory.h, plan_solver):
// the one place that decides. On the GPU every smooth loss trains by the Newton
// solver, whatever solver was asked for, on the problem asked for; the hinge loss
// and penalty l1 are refused there with a message naming the CPU solver. Runs
// without a GPU: the plan is decided before any device is touched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snapml/error.h"
#include "snapml/solver_factory.h"

namespace snapml {
namespace {

using ::testing::HasSubstr;
using Algorithm = SolverPlan::Algorithm;

SolverParameters problem(LossKind loss, SolverChoice solver, Penalty penalty, bool penalise_intercept) {
  SolverParameters p;
  p.loss = loss;
  p.solver = solver;
  p.penalty = penalty;
  p.penalise_intercept = penalise_intercept;
  p.intercept_scaling = 1.0;
  p.epsilon = 0.0;
  return p;
}

TEST(SolverPlan, EveryGpuRequestOfASmoothLossGoesToTheGpuNewtonSolver) {
  for (const LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Squared, LossKind::Multinomial})
    for (const SolverChoice solver : {SolverChoice::Dual, SolverChoice::Primal, SolverChoice::Auto})
      for (const bool penalised : {true, false})
        for (const Penalty penalty : {Penalty::L2, Penalty::None}) {
          SCOPED_TRACE(std::string(loss_name(loss)) + " " + solver_choice_name(solver) + " " +
                       penalty_name(penalty) + (penalised ? " penalised" : " free"));
          const SolverPlan plan = plan_solver(problem(loss, solver, penalty, penalised), true);
          EXPECT_TRUE(plan.gpu);
          EXPECT_EQ(plan.algorithm, Algorithm::Newton);
          EXPECT_THAT(plan.reason, HasSubstr("primal Newton solver"));
        }
}

TEST(SolverPlan, TheHingeLossIsRefusedOnTheGpuNamingTheCpuSolver) {
  for (const SolverChoice solver : {SolverChoice::Dual, SolverChoice::Auto}) {
    try {
      plan_solver(problem(LossKind::Hinge, solver, Penalty::L2, true), true);
      FAIL() << "the hinge loss was planned on the GPU";
    } catch (const Unsupported& e) {
      EXPECT_THAT(e.what(), HasSubstr("the hinge loss trains by dual coordinate ascent only"));
      EXPECT_THAT(e.what(), HasSubstr("train it on the CPU"));
    }
  }
}

TEST(SolverPlan, PenaltyL1IsRefusedOnTheGpu) {
  EXPECT_THROW(plan_solver(problem(LossKind::Logistic, SolverChoice::Dual, Penalty::L1, true), true), Unsupported);
}

TEST(SolverPlan, TheCpuFollowsTheSolverAskedFor) {
  EXPECT_EQ(plan_solver(problem(LossKind::Logistic, SolverChoice::Dual, Penalty::L2, true), false).algorithm,
            Algorithm::Sdca);
  EXPECT_EQ(plan_solver(problem(LossKind::Hinge, SolverChoice::Dual, Penalty::L2, true), false).algorithm,
            Algorithm::Sdca);
  EXPECT_EQ(plan_solver(problem(LossKind::Logistic, SolverChoice::Primal, Penalty::L2, false), false).algorithm,
            Algorithm::Newton);
  EXPECT_EQ(plan_solver(problem(LossKind::Logistic, SolverChoice::Auto, Penalty::L2, false), false).algorithm,
            Algorithm::AutoSdcaOrNewton);
  EXPECT_EQ(plan_solver(problem(LossKind::Logistic, SolverChoice::Dual, Penalty::L1, true), false).algorithm,
            Algorithm::Glmnet);
  EXPECT_EQ(
      plan_solver(problem(LossKind::SquaredHinge, SolverChoice::Dual, Penalty::L1, true), false).algorithm,
      Algorithm::CoordinateDescentL1);
  for (const Algorithm algorithm : {Algorithm::Sdca, Algorithm::Newton, Algorithm::AutoSdcaOrNewton,
                                    Algorithm::Glmnet, Algorithm::CoordinateDescentL1})
    EXPECT_STRNE(algorithm_name(algorithm), "");
}

TEST(SolverPlan, AProblemTheDualSolverCannotTrainIsRefusedOnTheCpuAsBefore) {
  // No penalty, and a free intercept with the hinge loss, have no dual coordinate
  // ascent solver; validate() says so. A smooth loss's free intercept has one
  // (snapml/src/dual/free_intercept.h).
  EXPECT_THROW(plan_solver(problem(LossKind::Logistic, SolverChoice::Dual, Penalty::None, false), false),
               InvalidArgument);
  EXPECT_THROW(plan_solver(problem(LossKind::Hinge, SolverChoice::Dual, Penalty::L2, false), false),
               InvalidArgument);
  EXPECT_EQ(plan_solver(problem(LossKind::Logistic, SolverChoice::Dual, Penalty::L2, false), false).algorithm,
            SolverPlan::Algorithm::Sdca);
}

}  // namespace
}  // namespace snapml
