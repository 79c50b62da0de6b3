// What both L1 solvers owe, one case per solver and loss: coordinate descent
// (snapml/src/l1/cd_l1_cpu.cpp, test_cd_l1.cpp) and newGLMNET (glmnet_cpu.cpp,
// test_glmnet.cpp) meet the KKT conditions of the weighted problem and report the
// primal of their weights, a fit started at its optimum stops at once, and their
// stopping rule's tolerance is scaled as LIBLINEAR scales -e.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>

#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "../fixtures/references.h"
#include "../../../snapml/src/l1/l1_columns.h"
#include "l1_references.h"
#include "snapml/chunk_source.h"
#include "snapml/dataset.h"
#include "snapml/solver.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

using MakeSolver = std::unique_ptr<Solver> (*)(const SolverParameters&);

struct Solved {
  MakeSolver make;
  int max_epochs;
};
const Solved kCoordinateDescent{make_cd_l1_cpu_solver, kCoordinateDescentEpochs};
const Solved kGlmnet{make_glmnet_cpu_solver, kGlmnetIterations};

SolverParameters tight(const Solved& solver, LossKind loss, double C, double l1_ratio = 1.0) {
  return tight_l1(loss, C, l1_ratio, solver.max_epochs);
}

struct KktCase {
  const char* name;
  Solved solver;
  LossKind loss;
  double C;
  bool sparse;  // C leaves some weights at zero and some not
};
void PrintTo(const KktCase& c, std::ostream* os) { *os << c.name; }

const KktCase kKktCases[] = {
    {"CoordinateDescentLogistic", kCoordinateDescent, LossKind::Logistic, 0.3, false},
    {"CoordinateDescentSquaredHinge", kCoordinateDescent, LossKind::SquaredHinge, 0.3, false},
    {"GlmnetLogistic", kGlmnet, LossKind::Logistic, 0.3, true},
    {"GlmnetSquared", kGlmnet, LossKind::Squared, 0.02, true},
};

class L1Kkt : public ::testing::TestWithParam<KktCase> {};

// Sample weights, and for a classifier labels 2 and 5 with class weights.
TEST_P(L1Kkt, MeetsKktWithClassAndSampleWeights) {
  const KktCase& c = GetParam();
  RandomProblemOptions o;
  o.sample_weights = true;
  o.regression = c.loss == LossKind::Squared;
  if (!o.regression) {
    o.positive_label = 2.0;
    o.negative_label = 5.0;
  }
  const Dataset data = random_problem(o);
  SolverParameters p = tight(c.solver, c.loss, c.C);
  if (!o.regression) {
    p.positive_label = 2.0;
    p.class_weight_positive = 1.7;
    p.class_weight_negative = 0.6;
  }
  const Fit ours = fit_once(*c.solver.make(p), data);
  ASSERT_TRUE(ours.result.converged);
  const DenseProblem problem = dense(data, p);
  const Eigen::VectorXd w = as_vector(ours.state.weights);
  expect_kkt(c.loss, problem, w, 1e-6);
  if (c.sparse) {
    EXPECT_GT(non_zeros(ours.state.weights), 0);
    EXPECT_LT(non_zeros(ours.state.weights), static_cast<int>(w.size()));
  }
  EXPECT_NEAR(ours.result.history.back().primal, l1_primal(c.loss, problem, w),
              1e-10 * ours.result.history.back().primal);
}

INSTANTIATE_TEST_SUITE_P(EverySolver, L1Kkt, ::testing::ValuesIn(kKktCases),
                         [](const ::testing::TestParamInfo<KktCase>& info) { return std::string(info.param.name); });

struct WarmStartCase {
  const char* name;
  Solved solver;
  LossKind loss;
  double l1_ratio;
  int most_epochs;  // the certificate that finds the start optimal, after a pass for coordinate descent
};
void PrintTo(const WarmStartCase& c, std::ostream* os) { *os << c.name; }

const WarmStartCase kWarmStartCases[] = {
    {"CoordinateDescentSquaredHinge", kCoordinateDescent, LossKind::SquaredHinge, 1.0, 2},
    {"GlmnetElasticNetLogistic", kGlmnet, LossKind::Logistic, 0.7, 1},
};

class L1WarmStart : public ::testing::TestWithParam<WarmStartCase> {};

TEST_P(L1WarmStart, FromTheOptimumStopsAtOnce) {
  const WarmStartCase& c = GetParam();
  const Dataset data = random_problem({});
  const SolverParameters p = tight(c.solver, c.loss, 0.5, c.l1_ratio);
  const Fit cold = fit_once(*c.solver.make(p), data);
  SolverState start;
  start.weights = cold.state.weights;
  const Fit warm = fit_once(*c.solver.make(p), data, start);
  EXPECT_LE(warm.result.epochs, c.most_epochs);
  ASSERT_FALSE(warm.result.history.empty());
  EXPECT_NEAR(warm.result.history.back().primal, cold.result.history.back().primal,
              1e-10 * cold.result.history.back().primal);
}

INSTANTIATE_TEST_SUITE_P(EverySolver, L1WarmStart, ::testing::ValuesIn(kWarmStartCases),
                         [](const ::testing::TestParamInfo<WarmStartCase>& info) {
                           return std::string(info.param.name);
                         });

// LIBLINEAR's train_one gives its L1 solvers eps * max(min(#pos, #neg), 1) / l,
// so -e (and scikit-learn's liblinear tol) means a stricter rule the rarer a
// class: read_l1_data's stop_scale is that factor over every row, a zero-cost row
// included (LIBLINEAR counts it), and 1 for regression.
TEST(L1StopRule, ScalesTolAsLibLinearDoes) {
  RandomProblemOptions o;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  std::int64_t positives = 0;
  for (double label : data.labels()) positives += label > 0.0 ? 1 : 0;
  const std::int64_t rows = data.n_rows();
  ASSERT_GT(positives, 0);
  ASSERT_LT(positives, rows);
  SolverParameters p = tight_l1(LossKind::Logistic, 1.0, 1.0, 10);
  p.positive_label = 1.0;
  InMemorySource source(data);
  const double expected = static_cast<double>(std::min(positives, rows - positives)) / static_cast<double>(rows);
  EXPECT_DOUBLE_EQ(detail::read_l1_data(source, p, false).stop_scale, expected);
  // The negative rows at cost 0 (absent from the columns) still count.
  p.class_weight_negative = 0.0;
  EXPECT_DOUBLE_EQ(detail::read_l1_data(source, p, false).stop_scale, expected);
  p.class_weight_negative = 1.0;

  // One class only: LIBLINEAR's max(..., 1).
  RandomProblemOptions one_class = o;
  one_class.negative_label = 1.0;
  const Dataset same = random_problem(one_class);
  InMemorySource same_source(same);
  EXPECT_DOUBLE_EQ(detail::read_l1_data(same_source, p, false).stop_scale, 1.0 / static_cast<double>(same.n_rows()));

  RandomProblemOptions regression = o;
  regression.regression = true;
  const Dataset lasso = random_problem(regression);
  InMemorySource lasso_source(lasso);
  EXPECT_DOUBLE_EQ(detail::read_l1_data(lasso_source, tight_l1(LossKind::Squared, 1.0, 1.0, 10), false).stop_scale,
                   1.0);
}

}  // namespace
