// The CPU backend of the matrix-operations seam: hessian_diagonal is the diagonal
// of the operator hessian_product applies (e_j . H e_j for every unit vector),
// with the intercept's column, for one and several threads.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "random_problem.h"
#include "snapml/chunk_source.h"
#include "snapml/matrix_operations.h"

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

}  // namespace
