// The rows' overlap rho that sizes Auto's replica team
// (snapml/src/dual/threads/row_overlap.h; thread_updates.h, replica_team).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../../../../snapml/src/dual/threads/row_overlap.h"
#include "../../fixtures/random_problem.h"
#include "snapml/dataset.h"
#include "snapml/thread_updates.h"

namespace {

using snapml::CsrView;
using snapml::Dataset;
using snapml::detail::RowOverlapSample;

RowOverlapSample sample_of(const Dataset& data, double intercept) {
  std::int64_t nnz = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) nnz += data.view(c).nnz();
  RowOverlapSample sample(data.n_rows(), nnz, intercept);
  std::int64_t first = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    sample.add(data.view(c), first);
    first += data.view(c).n_rows;
  }
  return sample;
}

// A small problem is sampled whole (every row, across its chunks): the power
// iteration's rho is the dense eigenvalue's, with the intercept and without.
TEST(RowOverlap, ASmallProblemGivesTheExactEigenvalue) {
  snapml::testing::RandomProblemOptions o;
  o.rows = 300;
  o.features = 40;
  o.density = 0.15;
  o.chunk_rows = 70;
  const Dataset data = snapml::testing::random_problem(o);
  for (const double intercept : {0.0, 1.0, 3.0}) {
    const RowOverlapSample sample = sample_of(data, intercept);
    // Row 3 is empty (without an intercept): sampled, orthogonal to the rest.
    EXPECT_EQ(sample.sampled_rows(), 300);
    const double exact = snapml::testing::unit_rows_overlap(data, intercept);
    EXPECT_NEAR(sample.overlap(data.n_rows()), exact, 1e-6 * exact + 1e-12) << "intercept " << intercept;
  }
}

// Identical rows overlap fully, orthogonal rows not at all.
TEST(RowOverlap, IdenticalRowsGiveOneAndOrthogonalRowsZero) {
  std::vector<snapml::CsrChunk> same(1), apart(1);
  for (std::int32_t i = 0; i < 500; ++i) {
    const std::int32_t columns[2] = {3, 7};
    const float values[2] = {2.0f, -1.0f};
    same[0].add_row(1.0, columns, values, 2);
    const float one = 1.5f;
    apart[0].add_row(1.0, &i, &one, 1);
  }
  const Dataset identical(std::move(same), 8);
  const Dataset orthogonal(std::move(apart), 500);
  EXPECT_NEAR(sample_of(identical, 0.0).overlap(500), 1.0, 1e-9);
  EXPECT_NEAR(sample_of(identical, 1.0).overlap(500), 1.0, 1e-9);
  EXPECT_NEAR(sample_of(orthogonal, 0.0).overlap(500), 0.0, 1e-9);
  // A common intercept: each unit row has 1 / 3.25 of its square on the
  // intercept (1 against 1.5^2), so lambda_max = 1 + (n - 1) / 3.25.
  EXPECT_NEAR(sample_of(orthogonal, 1.0).overlap(500), 1.0 / 3.25, 1e-6);
  EXPECT_EQ(RowOverlapSample().overlap(500), 0.0);
  EXPECT_EQ(sample_of(identical, 0.0).overlap(1), 0.0);
}

// A large problem is sampled by a stride that goes on across chunks: about
// kSampleNonZeros non-zeros, every stride-th row of the whole order.
TEST(RowOverlap, ALargeProblemIsSampledByAStrideAcrossChunks) {
  // 40,000 rows of 100 non-zeros: a sample of 2,621 rows wanted, every 16th row.
  std::vector<snapml::CsrChunk> chunks;
  std::vector<std::int32_t> columns(100);
  std::vector<float> values(100, 1.0f);
  for (std::int32_t i = 0; i < 40000; ++i) {
    if (i % 999 == 0) chunks.emplace_back();  // chunks that do not divide the stride
    for (std::int32_t k = 0; k < 100; ++k) columns[static_cast<std::size_t>(k)] = (i % 7 == 0) ? k : 100 + k;
    chunks.back().add_row(1.0, columns.data(), values.data(), 100);
  }
  const Dataset data(std::move(chunks), 200);
  const RowOverlapSample sample = sample_of(data, 0.0);
  EXPECT_EQ(sample.sampled_rows(), 2500);
  // Rows 0, 16, 32, ...: every seventh of them on columns 0..99 (those with
  // i % 7 == 0), the rest on 100..199: two orthogonal groups, the larger 6/7.
  std::int64_t larger = 0;
  for (std::int64_t i = 0; i < 40000; i += 16) larger += (i % 7 != 0);
  EXPECT_NEAR(sample.largest_eigenvalue(), static_cast<double>(larger) / 2500.0, 1e-9);
}

// The team: the T in [2, threads] where beta(T) (1 + c (T - 1)) / T is least
// (thread_updates.h).
TEST(RowOverlap, TheReplicaTeamShrinksAsTheRowsOverlap) {
  using snapml::replica_team;
  EXPECT_EQ(replica_team(16, 0.406), 4);  // a click log
  EXPECT_EQ(replica_team(16, 0.489), 3);  // a9a
  EXPECT_EQ(replica_team(16, 0.257), 5);  // w8a
  EXPECT_EQ(replica_team(16, 0.02), 16);  // rows nearly orthogonal: every thread
  EXPECT_EQ(replica_team(64, 0.02), 22);
  EXPECT_EQ(replica_team(16, 0.9), 2);
  EXPECT_EQ(replica_team(16, 1.0), 2);
  EXPECT_EQ(replica_team(3, 0.0), 3);
  EXPECT_EQ(replica_team(2, 1.0), 2);  // two threads or fewer: as they are
  EXPECT_EQ(replica_team(1, 0.5), 1);
  for (int threads = 3; threads <= 64; ++threads)
    for (double rho = 0.0; rho <= 1.0; rho += 0.05) {
      const int team = replica_team(threads, rho);
      EXPECT_GE(team, 2);
      EXPECT_LE(team, threads);
    }
}

}  // namespace
