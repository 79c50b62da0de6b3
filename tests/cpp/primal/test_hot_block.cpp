// The trust region's block preconditioner (snapml/src/primal/hot_block.h): which
// weights and what size it takes, its algebra against dense references, and
// fits preconditioned by it on click-like rows (a few frequent values per field),
// by the trust region and by Newton-CG along a line, reaching the optimum of the
// Cholesky steps with the certificate in fewer passes than the diagonal takes,
// and two ranks taking one process's iterates.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../../../snapml/src/primal/hot_block.h"
#include "../fixtures/fit_once.h"
#include "../fixtures/random_problem.h"
#include "snapml/chunk_source.h"
#include "snapml/dataset.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using snapml::detail::HotBlock;
using snapml::detail::hot_block_size;

TEST(HotBlock, ChoosesTheHeaviestWeightsInIncreasingOrder) {
  HotBlock block;
  // Ties go to the lower index: 5 at weights 1 and 3 both in, 3 at weight 2 out.
  block.choose({1.0, 5.0, 3.0, 5.0, 0.5, 9.0}, 3);
  EXPECT_EQ(block.weights(), (std::vector<std::int32_t>{1, 3, 5}));
  EXPECT_EQ(block.position(), (std::vector<std::int32_t>{-1, 0, -1, 1, -1, 2}));
  EXPECT_FALSE(block.active());  // not factorised yet
  block.choose({1.0, 2.0}, 0);
  EXPECT_EQ(block.size(), 0);
  EXPECT_EQ(block.position(), (std::vector<std::int32_t>{-1, -1}));
}

TEST(HotBlock, InverseAndProductsAreThoseOfTheRegularisedBlock) {
  const int width = 9;
  HotBlock block;
  std::vector<double> diagonal(width, 1.0);
  diagonal[2] = diagonal[5] = diagonal[8] = 10.0;
  block.choose(diagonal, 3);
  ASSERT_EQ(block.weights(), (std::vector<std::int32_t>{2, 5, 8}));
  // B = A A^T packed, plus the regulariser on its diagonal (0 on weight 8: a free
  // intercept's).
  Eigen::MatrixXd a(3, 4);
  a << 1.0, 2.0, 0.5, -1.0, 0.0, 1.0, 3.0, 2.0, 1.5, -0.5, 1.0, 1.0;
  const Eigen::MatrixXd loss_block = a * a.transpose();
  std::vector<double> packed;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c <= r; ++c) packed.push_back(loss_block(r, c));
  std::vector<double> regulariser(width, 1.0);
  regulariser[8] = 0.0;
  ASSERT_TRUE(block.factor(packed, regulariser));
  ASSERT_TRUE(block.active());
  Eigen::MatrixXd b = loss_block;
  b(0, 0) += 1.0;
  b(1, 1) += 1.0;
  std::vector<double> u(width), v(width);
  for (int j = 0; j < width; ++j) {
    u[j] = 0.3 * j - 1.0;
    v[j] = std::cos(static_cast<double>(j));
  }
  const Eigen::Vector3d ub(u[2], u[5], u[8]), vb(v[2], v[5], v[8]);
  const Eigen::Vector3d solved = b.llt().solve(ub);
  std::vector<double> out(width, -7.0);
  EXPECT_NEAR(block.inverse_product(u, &out), ub.dot(solved), 1e-12);
  EXPECT_NEAR(out[2], solved(0), 1e-12);
  EXPECT_NEAR(out[5], solved(1), 1e-12);
  EXPECT_NEAR(out[8], solved(2), 1e-12);
  EXPECT_EQ(out[0], -7.0);  // the weights outside the block untouched
  EXPECT_NEAR(block.product(u, v), ub.dot(b * vb), 1e-12);
  // Singular (no penalty, two equal columns): refused, the diagonal preconditions.
  Eigen::MatrixXd twins(3, 2);
  twins << 1.0, 2.0, 1.0, 2.0, 0.5, 1.0;
  const Eigen::MatrixXd singular = twins * twins.transpose();
  packed.clear();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c <= r; ++c) packed.push_back(singular(r, c));
  EXPECT_FALSE(block.factor(packed, std::vector<double>(width, 0.0)));
  EXPECT_FALSE(block.active());
}

TEST(HotBlock, SizeFollowsTheHeavyWeightsShareAndTheFactorisationsCost) {
  // 60 heavy weights of 3000 holding 95 % of the diagonal.
  std::vector<double> diagonal(3000, 0.01);
  for (int j = 0; j < 60; ++j) diagonal[static_cast<std::size_t>(50 * j)] = 10.0;
  const double plenty = 1e12;
  EXPECT_EQ(hot_block_size(diagonal, plenty), 1024);  // the largest the width halves
  // The factorisation's cost: 64^3 / 3 = 87,381 multiply-adds, 128^3 / 3 = 699,051.
  EXPECT_EQ(hot_block_size(diagonal, 87381.0), 0);
  EXPECT_EQ(hot_block_size(diagonal, 87382.0), 64);
  EXPECT_EQ(hot_block_size(diagonal, 700000.0), 128);
  // Too narrow a w for the smallest block.
  EXPECT_EQ(hot_block_size(std::vector<double>(127, 1.0), plenty), 0);
  // An even diagonal: 64 of 3000 weights hold 2 %.
  EXPECT_EQ(hot_block_size(std::vector<double>(3000, 1.0), 87382.0), 0);
  // 64 heavy weights holding just under kHotDiagonalShare: none.
  std::vector<double> below(3000, 0.0);
  for (int j = 0; j < 64; ++j) below[static_cast<std::size_t>(j)] = 1.0;
  for (std::size_t j = 64; j < below.size(); ++j) below[j] = (64.0 / 0.849 - 64.0) / 2936.0;
  EXPECT_EQ(hot_block_size(below, 87382.0), 0);
  for (std::size_t j = 64; j < below.size(); ++j) below[j] = (64.0 / 0.851 - 64.0) / 2936.0;
  EXPECT_EQ(hot_block_size(below, 87382.0), 64);
}

// L2 logistic regression by the primal solver's `method`, 2 threads.
SolverParameters logistic(PrimalMethod method, double C, double intercept_scaling, double tol, int max_epochs) {
  SolverParameters p;
  p.loss = LossKind::Logistic;
  p.solver = SolverChoice::Primal;
  p.primal_method = method;
  p.C = C;
  p.intercept_scaling = intercept_scaling;
  p.tol = tol;
  p.max_epochs = max_epochs;
  p.threads = 2;
  return p;
}

// Click-like rows: `fields` one-hot fields, each value drawn from 12 frequent ones
// (95 %) or 180 rare ones; labels from a planted model with noise.
Dataset click_like(std::int64_t rows, int fields, std::uint64_t seed) {
  constexpr int kFrequent = 12, kRare = 180, kValues = kFrequent + kRare;
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> planted(static_cast<std::size_t>(fields * kValues));
  for (double& v : planted) v = normal(random);
  std::vector<CsrChunk> chunks;
  for (std::int64_t row = 0; row < rows; ++row) {
    if (row % 4096 == 0) chunks.emplace_back();
    std::vector<std::int32_t> indices;
    double margin = -0.5;
    for (int f = 0; f < fields; ++f) {
      const bool frequent = uniform(random) < 0.95;
      const int value = frequent ? static_cast<int>(uniform(random) * kFrequent)
                                 : kFrequent + static_cast<int>(uniform(random) * kRare);
      indices.push_back(f * kValues + value);
      margin += planted[static_cast<std::size_t>(indices.back())];
    }
    const std::vector<float> ones(indices.size(), 1.0f);
    const double label = margin + normal(random) > 0.0 ? 1.0 : -1.0;
    chunks.back().add_row(label, indices.data(), ones.data(), static_cast<std::int64_t>(indices.size()));
  }
  return Dataset(std::move(chunks), fields * kValues);
}

TEST(HotBlock, FitsPreconditionedByTheBlockReachTheCholeskyOptimum) {
  const Dataset data = click_like(16000, 5, 3);
  // The rule takes a block here: the diagonal at the start (w = 0, every row's
  // logistic curvature C / 4) is the columns' counts scaled.
  {
    InMemorySource source(data);
    const auto operations = make_cpu_matrix_operations(source, data.n_features(), 1.0, 1);
    const auto rows = static_cast<std::size_t>(operations->n_rows());
    std::vector<double> labels(rows), weights(rows), diagonal(operations->n_weights());
    operations->rows(labels.data(), weights.data());
    operations->hessian_diagonal(std::vector<double>(rows, 1.0).data(), diagonal.data());
    ASSERT_EQ(hot_block_size(diagonal, operations->row_entries()), 64);
  }
  const SolverParameters p = logistic(PrimalMethod::Cholesky, 4.0, 1.0, 1e-10, 200);
  const snapml::testing::Fit reference = snapml::testing::fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(reference.result.converged);
  for (const PrimalMethod method : {PrimalMethod::TrustRegion, PrimalMethod::LineSearch}) {
    for (const bool free_intercept : {false, true}) {
      SolverParameters q = p;
      q.primal_method = method;
      q.penalise_intercept = !free_intercept;
      SolverParameters r = p;
      r.penalise_intercept = !free_intercept;
      const snapml::testing::Fit ours = snapml::testing::fit_once(*make_tron_cpu_solver(q), data);
      const snapml::testing::Fit cholesky =
          free_intercept ? snapml::testing::fit_once(*make_tron_cpu_solver(r), data) : reference;
      ASSERT_TRUE(ours.result.converged) << static_cast<int>(method) << " free intercept " << free_intercept;
      const EpochRecord& last = ours.result.history.back();
      EXPECT_LE(last.gap, q.tol * last.primal);
      // H >= I on the penalised weights: ||w - w*|| <= ||g|| there; the free
      // intercept's weight compared by the objective instead.
      const std::size_t compared = ours.state.weights.size() - (free_intercept ? 1 : 0);
      double distance = 0.0;
      for (std::size_t j = 0; j < compared; ++j) {
        const double d = ours.state.weights[j] - cholesky.state.weights[j];
        distance += d * d;
      }
      EXPECT_LE(std::sqrt(distance),
                last.gradient_norm + cholesky.result.history.back().gradient_norm + 1e-9)
          << static_cast<int>(method) << " free intercept " << free_intercept;
      EXPECT_NEAR(last.primal, cholesky.result.history.back().primal, 1e-9 * last.primal);
      // The block's work: 43-65 passes here (the trust region 56 and 65, Newton-CG
      // 43 and 45); the mixed diagonal alone took 98-113, and a block whose CG
      // direction kept only beta d on its weights 191-2137.
      EXPECT_LE(ours.result.data_passes, 75) << static_cast<int>(method) << " free intercept " << free_intercept;
    }
  }
}

// Two ranks, each holding half the rows: the diagonal that chooses the block and
// the block itself are summed over the ranks, so both take the single process's
// iterates.
TEST(HotBlock, TwoRanksTakeTheSingleProcessIterates) {
  const Dataset data = click_like(16000, 5, 3);
  const std::vector<Dataset> parts = snapml::testing::rank_shares(data, 2);
  const SolverParameters p = logistic(PrimalMethod::TrustRegion, 4.0, 1.0, 1e-10, 200);
  const snapml::testing::Fit single = snapml::testing::fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_LE(single.result.data_passes, 75);  // the block's work (the test above)
  std::vector<FitResult> results(2);
  std::vector<SolverState> states(2);
  snapml::testing::run_ranks(2, [&](Communicator& communicator) {
    const auto rank = static_cast<std::size_t>(communicator.rank());
    InMemorySource source(parts[rank]);
    results[rank] = make_tron_cpu_solver(p)->fit(source, communicator, states[rank]);
  });
  for (std::size_t rank = 0; rank < 2; ++rank) {
    ASSERT_EQ(results[rank].history.size(), single.result.history.size()) << "rank " << rank;
    for (std::size_t k = 0; k < single.result.history.size(); ++k)
      EXPECT_NEAR(results[rank].history[k].primal, single.result.history[k].primal,
                  1e-10 * single.result.history[k].primal);
    double distance = 0.0, size = 0.0;
    for (std::size_t j = 0; j < single.state.weights.size(); ++j) {
      const double d = states[rank].weights[j] - single.state.weights[j];
      distance += d * d;
      size += single.state.weights[j] * single.state.weights[j];
    }
    EXPECT_LT(std::sqrt(distance), 1e-10 * (1.0 + std::sqrt(size))) << "rank " << rank;
  }
}

// Where H is block-diagonal (the rows over the 64 heavy columns apart from those
// over the others, no intercept), the block and the diagonal beside it are H
// itself: every CG solve ends after one product, so a trust-region iteration
// makes five passes (H d, f at the trial point, the gradient, the diagonal and
// the block) and a rejected step two.
TEST(HotBlock, WhereTheBlockIsTheWholeCouplingOneProductSolvesEachStep) {
  std::mt19937_64 random(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  constexpr int kHeavy = 64, kLight = 2000;
  std::vector<CsrChunk> chunks(1);
  for (int row = 0; row < 3000; ++row) {  // 30 of the heavy columns a row
    std::vector<std::int32_t> indices;
    std::vector<float> values;
    for (int j = 0; j < kHeavy; ++j)
      if (uniform(random) < 30.0 / kHeavy) {
        indices.push_back(j);
        values.push_back(static_cast<float>(1.0 + 0.5 * normal(random)));
      }
    chunks[0].add_row(normal(random) > 0.0 ? 1.0 : -1.0, indices.data(), values.data(),
                      static_cast<std::int64_t>(indices.size()));
  }
  for (int k = 0; k < kLight; ++k) {  // one light column a row, each its own
    const std::int32_t index = kHeavy + k;
    const float value = 0.5f;
    chunks[0].add_row(k % 3 == 0 ? 1.0 : -1.0, &index, &value, 1);
  }
  const Dataset data(std::move(chunks), kHeavy + kLight);
  const SolverParameters p = logistic(PrimalMethod::TrustRegion, 1.0, 0.0, 1e-10, 100);
  const snapml::testing::Fit ours = snapml::testing::fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged);
  // The first gradient and f, and the first preconditioner's two passes; after
  // the last iteration no preconditioner. (The mixed diagonal alone: 31 passes
  // over 4 iterations.)
  EXPECT_EQ(ours.result.data_passes, 5 * ours.result.epochs + 2) << ours.result.epochs << " iterations";
}

}  // namespace
