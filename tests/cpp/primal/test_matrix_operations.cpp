// The CPU backend of the matrix-operations seam: hessian_diagonal is the diagonal
// of the operator hessian_product applies (e_j . H e_j for every unit vector), and
// hessian_matrix the whole of it, with the intercept's column, for one and
// several threads.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../fixtures/random_problem.h"
#include "snapml/chunk_source.h"
#include "snapml/impl/matrix_operations.h"

namespace {

using namespace snapml;

TEST(CpuMatrixOperations, HessianDiagonalIsTheDiagonalOfTheHessianProduct) {
  const Dataset data = snapml::testing::random_problem({});
  for (const int threads : {1, 3}) {
    InMemorySource source(data);
    const auto operations = make_cpu_matrix_operations(source, data.n_features(), 0.75, threads);
    const auto rows = static_cast<std::size_t>(operations->n_rows());
    const std::size_t width = operations->n_weights();
    std::vector<double> curvature(rows);
    for (std::size_t i = 0; i < rows; ++i) curvature[i] = i % 5 == 0 ? 0.0 : 0.1 + 0.01 * static_cast<double>(i % 17);
    std::vector<double> diagonal(width, -1.0);
    operations->hessian_diagonal(curvature.data(), diagonal.data());
    std::vector<double> unit(width, 0.0);
    std::vector<double> column(width);
    double largest = 0.0;
    for (const double d : diagonal) largest = std::max(largest, d);
    ASSERT_GT(largest, 0.0);
    for (std::size_t j = 0; j < width; ++j) {
      unit[j] = 1.0;
      operations->hessian_product(curvature.data(), unit.data(), column.data());
      unit[j] = 0.0;
      EXPECT_NEAR(diagonal[j], column[j], 1e-12 * largest) << "weight " << j << ", " << threads << " threads";
    }
  }
}

// hessian_matrix is the operator hessian_product applies, entry by entry, with a
// column repeated within a row (its diagonal entry counts the repeat twice) and
// rows of zero curvature.
TEST(CpuMatrixOperations, HessianMatrixIsTheHessianProductsColumns) {
  Dataset data = snapml::testing::random_problem({});
  std::vector<CsrChunk> chunks;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) chunks.push_back(data.chunk(c));
  const std::int32_t repeated[3] = {4, 2, 4};
  const float values[3] = {0.5f, -1.0f, 2.0f};
  chunks.back().add_row(1.0, repeated, values, 3);
  const Dataset with_repeat(std::move(chunks), data.n_features());
  for (const int threads : {1, 3}) {
    InMemorySource source(with_repeat);
    const auto operations = make_cpu_matrix_operations(source, with_repeat.n_features(), 0.75, threads);
    const auto rows = static_cast<std::size_t>(operations->n_rows());
    std::vector<double> labels(rows), weights(rows);
    operations->rows(labels.data(), weights.data());
    EXPECT_GT(operations->hessian_matrix_pairs(), operations->row_entries());
    const std::size_t width = operations->n_weights();
    std::vector<double> curvature(rows);
    for (std::size_t i = 0; i < rows; ++i) curvature[i] = i % 5 == 0 ? 0.0 : 0.1 + 0.01 * static_cast<double>(i % 17);
    std::vector<double> packed(width * (width + 1) / 2, -1.0);
    operations->hessian_matrix(curvature.data(), packed.data());
    std::vector<double> unit(width, 0.0), column(width);
    for (std::size_t j = 0; j < width; ++j) {
      unit[j] = 1.0;
      operations->hessian_product(curvature.data(), unit.data(), column.data());
      unit[j] = 0.0;
      for (std::size_t a = j; a < width; ++a)
        EXPECT_NEAR(packed[a * (a + 1) / 2 + j], column[a], 1e-12 * (1.0 + std::fabs(column[a])))
            << "entry (" << a << ", " << j << "), " << threads << " threads";
    }
  }
}

}  // namespace
