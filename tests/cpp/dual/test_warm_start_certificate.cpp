// certify_warm_pair (snapml/impl/warm_start_certificate.h): the certificate of a
// returned (weights, alpha) pair, before any epoch.
#include <gtest/gtest.h>

#include <string>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/dataset.h"
#include "snapml/impl/warm_start_certificate.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/solver.h"
#include "test_data.h"

namespace snapml {
namespace {

Dataset a9a() { return datasets::read_svmlight(testing::shared_dataset("a9a")); }

SolverParameters logistic() {
  SolverParameters p;
  p.loss = LossKind::Logistic;
  p.C = 1.0;
  p.intercept_scaling = 1.0;
  p.tol = 1e-4;
  p.threads = 1;
  return p;
}

// A CPU fit's state (w = w(alpha)) certifies as its last certificate did.
TEST(WarmStartCertificate, AFitsReturnedPairCertifiesAsItsLastCertificate) {
  const Dataset data = a9a();
  InMemorySource source(data);
  LocalCommunicator local;
  const SolverParameters p = logistic();
  SolverState state;
  const FitResult fit = make_sdca_cpu_solver(p)->fit(source, local, state);
  ASSERT_TRUE(fit.converged);
  const auto start = certify_warm_pair(source, local, p, data.n_features(), state, 2);
  ASSERT_TRUE(start.has_value());
  EXPECT_NEAR(start->primal, fit.history.back().primal, 1e-9 * start->primal);
  EXPECT_NEAR(start->dual, fit.history.back().dual, 1e-9 * start->primal);
  EXPECT_LE(start->gap, p.tol * start->primal);
  // Other weights with the same alpha: a larger primal, the same dual.
  SolverState moved = state;
  for (double& w : moved.weights) w *= 1.5;
  const auto worse = certify_warm_pair(source, local, p, data.n_features(), moved, 1);
  ASSERT_TRUE(worse.has_value());
  EXPECT_GT(worse->primal, start->primal + p.tol * start->primal);
  EXPECT_NEAR(worse->dual, start->dual, 1e-9 * start->primal);
}

// Nothing to certify without both halves of the pair, with an infeasible alpha, or
// with a free intercept.
TEST(WarmStartCertificate, NeedsWeightsAFeasibleAlphaAndAPenalisedIntercept) {
  const Dataset data = a9a();
  InMemorySource source(data);
  LocalCommunicator local;
  SolverParameters p = logistic();
  SolverState state;
  state.weights.assign(static_cast<std::size_t>(data.n_features()) + 1, 0.0);
  EXPECT_FALSE(certify_warm_pair(source, local, p, data.n_features(), state, 1).has_value());  // no alpha
  state.alpha.assign(static_cast<std::size_t>(data.n_rows()), 0.0);
  EXPECT_TRUE(certify_warm_pair(source, local, p, data.n_features(), state, 1).has_value());
  state.weights.pop_back();
  EXPECT_FALSE(certify_warm_pair(source, local, p, data.n_features(), state, 1).has_value());
  state.weights.push_back(0.0);
  // An alpha outside its box (a hinge start from a larger C): no certificate, where
  // the hinge's dual_value (alpha itself) would have raised D past P*.
  SolverParameters hinge = p;
  hinge.loss = LossKind::Hinge;
  state.alpha[7] = 2.0 * hinge.C;
  EXPECT_FALSE(certify_warm_pair(source, local, hinge, data.n_features(), state, 1).has_value());
  state.alpha[7] = hinge.C;  // on the box's edge: feasible
  EXPECT_TRUE(certify_warm_pair(source, local, hinge, data.n_features(), state, 1).has_value());
  state.alpha[7] = 0.0;
  p.penalise_intercept = false;
  EXPECT_FALSE(certify_warm_pair(source, local, p, data.n_features(), state, 1).has_value());
}

}  // namespace
}  // namespace snapml
