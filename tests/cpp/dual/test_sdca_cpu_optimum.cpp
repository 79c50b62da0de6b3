// The CPU SDCA solver's optimum: against independent references (Newton, closed
// form, a long run) for every L2 loss, with class and sample weights, and from
// warm starts; the parameters it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "../fixtures/random_problem.h"
#include "../fixtures/references.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"
#include "sdca_cpu_fixture.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using namespace snapml::testing;
using namespace snapml::testing::sdca_cpu;

// Fits to tol 1e-10 and compares P(w) with the reference optimum to 1e-6, and
// the solver's own reported primal with the reference's evaluation of it.
void expect_reference_optimum(const Dataset& data, const SolverParameters& p,
                              double (*primal)(const DenseProblem&, const Eigen::VectorXd&),
                              const Eigen::VectorXd& reference) {
  const DenseProblem problem = dense(data, p);
  const Fit ours = fit(data, p);
  ASSERT_TRUE(ours.result.converged);
  const double p_ours = primal(problem, as_vector(ours.state.weights));
  const double p_reference = primal(problem, reference);
  EXPECT_NEAR(p_ours, p_reference, 1e-6 * p_reference);
  EXPECT_GE(p_ours, p_reference - 1e-9 * p_reference);  // the reference is the optimum
  EXPECT_NEAR(ours.result.history.back().primal, p_ours, 1e-11 * p_ours);
  EXPECT_LT((as_vector(ours.state.weights) - reference).norm(), 1e-3 * (1.0 + reference.norm()));
}

TEST(SdcaCpu, LogisticMatchesNewtonReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::Logistic);
  expect_reference_optimum(data, p, logistic_primal, logistic_reference(dense(data, p)));
}

TEST(SdcaCpu, RidgeMatchesClosedForm) {
  RandomProblemOptions o;
  o.regression = true;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Squared);
  p.C = 0.3;
  expect_reference_optimum(data, p, ridge_primal, ridge_reference(dense(data, p)));
}

TEST(SdcaCpu, SquaredHingeMatchesNewtonReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::SquaredHinge);
  expect_reference_optimum(data, p, squared_hinge_primal, squared_hinge_reference(dense(data, p)));
}

TEST(SdcaCpu, HingeMatchesLongRunReference) {
  const Dataset data = random_problem({});
  const SolverParameters p = tight(LossKind::Hinge);
  expect_reference_optimum(data, p, hinge_primal, hinge_reference(dense(data, p)));
}

TEST(SdcaCpu, ClassAndSampleWeightsEnterTheObjectiveAsInTheReference) {
  RandomProblemOptions o;
  o.sample_weights = true;
  const Dataset data = random_problem(o);
  SolverParameters p = tight(LossKind::Logistic);
  p.class_weight_positive = 3.0;
  p.class_weight_negative = 0.5;
  const Eigen::VectorXd reference = logistic_reference(dense(data, p));
  expect_reference_optimum(data, p, logistic_primal, reference);
  // The weights matter: the unweighted optimum is measurably different.
  SolverParameters unweighted = tight(LossKind::Logistic);
  const Eigen::VectorXd plain = logistic_reference(dense(data, unweighted));
  EXPECT_GT((plain - reference).norm(), 1e-2);
}

TEST(SdcaCpu, ZeroWeightRowsAreAbsent) {
  RandomProblemOptions o;
  o.sample_weights = true;
  Dataset data = random_problem(o);
  std::vector<CsrChunk> chunks = data.chunks();
  std::vector<CsrChunk> kept(1);
  for (CsrChunk& chunk : chunks) {
    for (std::int64_t r = 0; r < chunk.n_rows(); ++r) {
      if (r % 3 == 0) {
        chunk.weights[static_cast<std::size_t>(r)] = 0.0f;
        continue;
      }
      const auto begin = chunk.row_offsets[static_cast<std::size_t>(r)];
      kept[0].add_row(chunk.labels[static_cast<std::size_t>(r)], chunk.col_indices.data() + begin,
                      chunk.values.data() + begin, chunk.row_offsets[static_cast<std::size_t>(r) + 1] - begin);
      kept[0].weights.push_back(chunk.weights[static_cast<std::size_t>(r)]);
    }
  }
  const Dataset zeroed(std::move(chunks), data.n_features());
  const Dataset removed(std::move(kept), data.n_features());
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Hinge}) {
    const SolverParameters p = tight(loss);
    const Fit a = fit(zeroed, p), b = fit(removed, p);
    EXPECT_NEAR(a.result.history.back().primal, b.result.history.back().primal,
                1e-7 * b.result.history.back().primal) << loss_name(loss);
  }
}

TEST(SdcaCpu, WarmStartFromAlphaResumesWhereItStopped) {
  const Dataset data = random_problem({});
  SolverParameters p = tight(LossKind::Logistic);
  p.tol = 1e-8;
  const Fit first = fit(data, p);
  const Fit again = fit(data, p, first.state);
  EXPECT_TRUE(again.result.converged);
  EXPECT_EQ(again.result.epochs, 1);
  EXPECT_NEAR(again.result.history.back().primal, first.result.history.back().primal,
              1e-8 * first.result.history.back().primal);
}

TEST(SdcaCpu, WarmStartFromWeightsNeedsFewerEpochs) {
  const Dataset data = random_problem({});
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    SolverParameters p = tight(loss);
    p.tol = 1e-8;
    const Fit cold = fit(data, p);
    SolverState start;
    start.weights = cold.state.weights;
    const Fit warm = fit(data, p, start);
    EXPECT_TRUE(warm.result.converged);
    EXPECT_LT(warm.result.epochs, cold.result.epochs / 2) << loss_name(loss);
    EXPECT_NEAR(warm.result.history.back().primal, cold.result.history.back().primal,
                1e-7 * cold.result.history.back().primal);
  }
}

TEST(SdcaCpu, RejectsBadParametersAndWarmStarts) {
  SolverParameters p;
  p.C = 0.0;
  EXPECT_THROW(make_sdca_cpu_solver(p), InvalidArgument);
  p = SolverParameters{};
  p.tol = -1.0;
  EXPECT_THROW(make_sdca_cpu_solver(p), InvalidArgument);
  const Dataset data = random_problem({});
  SolverState wrong;
  wrong.alpha.assign(5, 0.0);
  EXPECT_THROW(fit(data, SolverParameters{}, wrong), InvalidArgument);
}

}  // namespace
