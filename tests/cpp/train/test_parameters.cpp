// The parameter declaration (snapml/parameters.h) and what is generated from
// it: TrainParameters' fields and defaults, the copy into every problem's
// SolverParameters (problem_parameters), and the plan train() follows. The CLI's
// options and Python's keywords are checked against the same list by
// tests/python/test_parameters.py.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <type_traits>

#include "snapml/parameters.h"
#include "snapml/train.h"

namespace snapml {
namespace {

TEST(Parameters, EachIsDeclaredOnceWithItsDefaultInsideItsRange) {
  const TrainParameters defaults;
  std::set<std::string> names;
  int count = 0;
  for_each_parameter(defaults, [&](const ParameterInfo& info, const auto& field) {
    ++count;
    EXPECT_TRUE(names.insert(info.name).second) << info.name << " is declared twice";
    EXPECT_GT(std::string(info.help).size(), 10u) << info.name << " has no help";
    using Field = std::decay_t<decltype(field)>;
    if constexpr (std::is_arithmetic_v<Field> && !std::is_same_v<Field, bool>) {
      const auto value = static_cast<double>(field);
      EXPECT_LE(value, info.range.maximum) << info.name;
      if (info.range.minimum_open)
        EXPECT_GT(value, info.range.minimum) << info.name;
      else
        EXPECT_GE(value, info.range.minimum) << info.name;
    }
  });
  EXPECT_EQ(count, static_cast<int>(names.size()));
  for (const char* name : {"loss", "penalty", "l1_ratio", "C", "class_weight", "fit_intercept", "epsilon", "tol",
                           "max_iter", "solver", "threads", "use_gpu", "checkpoint"})
    EXPECT_EQ(names.count(name), 1u) << name;
}

// Every field the declaration marks `copied` reaches every problem's solver
// parameters. The values below differ from every default (checked), so a new
// copied parameter fails here until it is given one: then the solvers see it.
TEST(Parameters, EveryCopiedParameterReachesTheSolverParameters) {
  TrainParameters p;
  p.loss = LossKind::Squared;
  p.penalty = Penalty::L1;
  p.l1_ratio = 0.25;
  p.C = 3.5;
  p.epsilon = 0.125;
  p.tol = 1e-7;
  p.solver = SolverChoice::Primal;
  p.local_epochs = 4;
  p.adaptive_sigma = false;
  p.shrinking = false;
  p.certify_every_epoch = true;
  p.thread_updates = ThreadUpdates::Replicas;
  p.seed = 99;
  p.threads = 3;
  p.max_gpu_memory = 1 << 20;
  p.max_iter = 17;
  p.fit_intercept = true;
  p.intercept_scaling = 2.0;
  p.penalise_intercept = false;
  const SolverParameters solver = problem_parameters(p);
  const TrainParameters defaults;
  const auto check = [&](const auto& to) {
#define SNAPML_CHECK_COPIED(type, name, default_, range_, copied_, cli_, help_) \
  if constexpr (copied_) {                                                      \
    EXPECT_FALSE(p.name == defaults.name) << #name " keeps its default here";   \
    EXPECT_TRUE(to.name == p.name) << #name " did not reach SolverParameters";   \
  }
    SNAPML_TRAIN_PARAMETERS(SNAPML_CHECK_COPIED)
#undef SNAPML_CHECK_COPIED
  };
  check(solver);
  // The fields train() maps rather than copies.
  EXPECT_EQ(solver.max_epochs, 17);
  EXPECT_EQ(solver.intercept_scaling, 2.0);
  EXPECT_FALSE(solver.penalise_intercept);
  p.fit_intercept = false;
  EXPECT_EQ(problem_parameters(p).intercept_scaling, 0.0);
  EXPECT_TRUE(problem_parameters(p).penalise_intercept);
}

TEST(Parameters, ThePlanOfTrainParametersIsTheSolverPlanOfTheirProblem) {
  TrainParameters p;
  EXPECT_EQ(plan(p).algorithm, SolverPlan::Algorithm::Sdca);
  p.penalty = Penalty::L1;
  p.l1_ratio = 0.5;
  EXPECT_EQ(plan(p).algorithm, SolverPlan::Algorithm::Glmnet);
  p = TrainParameters{};
  p.loss = LossKind::Multinomial;
  p.penalise_intercept = false;
  EXPECT_EQ(plan(p).algorithm, SolverPlan::Algorithm::Newton);  // the only solver of the per-class loss
  p = TrainParameters{};
  p.use_gpu = true;
  EXPECT_TRUE(plan(p).gpu);
  EXPECT_EQ(plan(p).algorithm, SolverPlan::Algorithm::Newton);
}

}  // namespace
}  // namespace snapml
