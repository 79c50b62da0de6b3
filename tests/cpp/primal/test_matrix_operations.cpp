// The CPU backend of the matrix-operations seam: hessian_diagonal is the diagonal
// of the operator hessian_product applies (e_j . H e_j for every unit vector), and
// hessian_matrix the whole of it, with the intercept's column, for one and
// several threads; hessian_block the whole of it on a block's weights; the
// products on a set wider than a core's cache, whose passes prefetch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../fixtures/random_problem.h"
#include "snapml/chunk_source.h"
#include "snapml/impl/matrix_operations.h"

namespace {

using namespace snapml;

// Per-row curvatures for the products: every fifth row 0 (skipped), the others
// between 0.1 and 0.26.
std::vector<double> test_curvature(std::size_t rows) {
  std::vector<double> curvature(rows);
  for (std::size_t i = 0; i < rows; ++i) curvature[i] = i % 5 == 0 ? 0.0 : 0.1 + 0.01 * static_cast<double>(i % 17);
  return curvature;
}

TEST(CpuMatrixOperations, HessianDiagonalIsTheDiagonalOfTheHessianProduct) {
  const Dataset data = snapml::testing::random_problem({});
  for (const int threads : {1, 3}) {
    InMemorySource source(data);
    const auto operations = make_cpu_matrix_operations(source, data.n_features(), 0.75, threads);
    const auto rows = static_cast<std::size_t>(operations->n_rows());
    const std::size_t width = operations->n_weights();
    const std::vector<double> curvature = test_curvature(rows);
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

// A set of 2^18 columns (wider than prefetch.h's kPrefetchWeightsFrom), each
// row a few of 64 frequent columns and rare ones past kPrefetchColumnsFrom, in
// chunks of uneven rows: the passes that prefetch the rows kRowsAhead ahead
// (margins, X^T d, H v, diag(H)) equal sums taken here entry by entry, for one
// and three threads.
TEST(CpuMatrixOperations, WideProductsEqualTheirSums) {
  constexpr std::int32_t kColumns = std::int32_t{1} << 18;
  constexpr double kBias = 0.75;
  std::mt19937_64 random(5);
  std::uniform_int_distribution<std::int32_t> frequent(0, 63), rare(std::int32_t{1} << 16, kColumns - 1);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<CsrChunk> chunks;
  struct Entry {
    std::int32_t column;
    double value;
  };
  std::vector<std::vector<Entry>> rows;
  for (int row = 0; row < 150; ++row) {
    if (row % 37 == 0) chunks.emplace_back();
    std::vector<std::int32_t> columns;
    std::vector<float> values;
    for (int e = 0; e < 12; ++e) {
      columns.push_back(e % 3 == 0 ? rare(random) : frequent(random));
      values.push_back(static_cast<float>(normal(random)));
    }
    rows.emplace_back();
    for (std::size_t e = 0; e < columns.size(); ++e) rows.back().push_back({columns[e], values[e]});
    chunks.back().add_row(row % 2 == 0 ? 1.0 : -1.0, columns.data(), values.data(),
                          static_cast<std::int64_t>(columns.size()));
  }
  const Dataset data(std::move(chunks), kColumns);
  const std::size_t width = std::size_t{kColumns} + 1;
  std::vector<double> v(width), d(rows.size());
  for (double& x : v) x = normal(random);
  for (double& x : d) x = normal(random);
  const std::vector<double> curvature = test_curvature(rows.size());
  // The sums, entry by entry.
  std::vector<double> margins(rows.size()), xtd(width, 0.0), hv(width, 0.0), diagonal(width, 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    double margin = kBias * v[width - 1];
    for (const Entry& e : rows[i]) margin += e.value * v[static_cast<std::size_t>(e.column)];
    margins[i] = margin;
    for (const Entry& e : rows[i]) {
      const auto j = static_cast<std::size_t>(e.column);
      xtd[j] += d[i] * e.value;
      hv[j] += curvature[i] * margin * e.value;
      diagonal[j] += curvature[i] * e.value * e.value;
    }
    xtd[width - 1] += d[i] * kBias;
    hv[width - 1] += curvature[i] * margin * kBias;
    diagonal[width - 1] += curvature[i] * kBias * kBias;
  }
  for (const int threads : {1, 3}) {
    InMemorySource source(data);
    const auto operations = make_cpu_matrix_operations(source, kColumns, kBias, threads);
    ASSERT_EQ(operations->n_weights(), width);
    std::vector<double> got(width);
    operations->margins(v.data(), got.data());
    for (std::size_t i = 0; i < rows.size(); ++i)
      EXPECT_NEAR(got[i], margins[i], 1e-12 * (1.0 + std::fabs(margins[i]))) << "margin " << i << ", " << threads;
    const auto compare = [&](const std::vector<double>& expected, const char* what) {
      for (std::size_t j = 0; j < width; ++j)
        ASSERT_NEAR(got[j], expected[j], 1e-12 * (1.0 + std::fabs(expected[j])))
            << what << " weight " << j << ", " << threads << " threads";
    };
    operations->transpose_times(d.data(), got.data());
    compare(xtd, "X^T d");
    operations->hessian_product(curvature.data(), v.data(), got.data());
    compare(hv, "H v");
    operations->hessian_diagonal(curvature.data(), got.data());
    compare(diagonal, "diag(H)");
  }
}

// The random problem with a row repeating a column (4, 2, 4) and, where asked,
// a row whose columns decrease (7, 3, 1).
Dataset with_extra_rows(bool decreasing_row) {
  const Dataset data = snapml::testing::random_problem({});
  std::vector<CsrChunk> chunks;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) chunks.push_back(data.chunk(c));
  const float values[3] = {0.5f, -1.0f, 2.0f};
  const std::int32_t repeated[3] = {4, 2, 4};
  chunks.back().add_row(1.0, repeated, values, 3);
  const std::int32_t decreasing[3] = {7, 3, 1};
  if (decreasing_row) chunks.back().add_row(-1.0, decreasing, values, 3);
  return Dataset(std::move(chunks), data.n_features());
}

// hessian_matrix is the operator hessian_product applies, entry by entry, with a
// column repeated within a row (its diagonal entry counts the repeat twice) and
// rows of zero curvature.
TEST(CpuMatrixOperations, HessianMatrixIsTheHessianProductsColumns) {
  const Dataset with_repeat = with_extra_rows(false);
  for (const int threads : {1, 3}) {
    InMemorySource source(with_repeat);
    const auto operations = make_cpu_matrix_operations(source, with_repeat.n_features(), 0.75, threads);
    const auto rows = static_cast<std::size_t>(operations->n_rows());
    std::vector<double> labels(rows), weights(rows);
    operations->rows(labels.data(), weights.data());
    EXPECT_GT(operations->hessian_matrix_pairs(), operations->row_entries());
    const std::size_t width = operations->n_weights();
    const std::vector<double> curvature = test_curvature(rows);
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

// hessian_block is hessian_matrix on the block's weights, in the block's order:
// with the intercept's weight inside the block and outside it, a column repeated
// within a row, rows of zero curvature, a row whose columns decrease, and places
// out of the weights' order.
TEST(CpuMatrixOperations, HessianBlockIsTheHessianMatrixOnItsWeights) {
  const Dataset rows_data = with_extra_rows(true);
  const auto bias = static_cast<std::int32_t>(rows_data.n_features());
  for (const int threads : {1, 3}) {
    for (const std::vector<std::int32_t>& weights :
         {std::vector<std::int32_t>{1, 2, 4, 7}, std::vector<std::int32_t>{0, 3, 4, 9, bias},
          std::vector<std::int32_t>{bias, 7, 2, 9, 0}}) {
      InMemorySource source(rows_data);
      const auto operations = make_cpu_matrix_operations(source, rows_data.n_features(), 0.75, threads);
      ASSERT_TRUE(operations->forms_hessian_block());
      const auto rows = static_cast<std::size_t>(operations->n_rows());
      std::vector<double> labels(rows), sample_weights(rows);
      operations->rows(labels.data(), sample_weights.data());
      const std::size_t width = operations->n_weights();
      const std::vector<double> curvature = test_curvature(rows);
      std::vector<double> whole(width * (width + 1) / 2);
      operations->hessian_matrix(curvature.data(), whole.data());
      std::vector<std::int32_t> position(width, -1);
      for (std::size_t k = 0; k < weights.size(); ++k) position[weights[k]] = static_cast<std::int32_t>(k);
      const std::size_t size = weights.size();
      std::vector<double> block(size * (size + 1) / 2, -1.0);
      operations->hessian_block(curvature.data(), position.data(), static_cast<int>(size), block.data());
      for (std::size_t a = 0; a < size; ++a)
        for (std::size_t b = 0; b <= a; ++b) {
          const auto j = static_cast<std::size_t>(std::max(weights[a], weights[b]));
          const auto k = static_cast<std::size_t>(std::min(weights[a], weights[b]));
          const double expected = whole[j * (j + 1) / 2 + k];
          EXPECT_NEAR(block[a * (a + 1) / 2 + b], expected, 1e-12 * (1.0 + std::fabs(expected)))
              << "weights (" << j << ", " << k << "), " << threads << " threads";
        }
    }
  }
}

}  // namespace

namespace {

using namespace snapml;

// The rows of a resident source, handed out one chunk at a time only: the
// matrix operations read them row-major, as they read a stream.
class ForwardOnly final : public ChunkSource {
 public:
  explicit ForwardOnly(const Dataset& data) : inner_(data) {}
  bool next(CsrView& chunk) override { return inner_.next(chunk); }
  void reset() override { inner_.reset(); }
  std::int32_t n_features() const override { return inner_.n_features(); }
  std::int64_t n_rows() const override { return inner_.n_rows(); }
  std::int64_t nnz() const override { return inner_.nnz(); }
  std::size_t n_chunks() const override { return inner_.n_chunks(); }

 private:
  InMemorySource inner_;
};

// The block products over K columns of resident rows read a column-major copy
// (transposed_rows.h): each weight's sum runs over the rows in order and each
// margin's over its columns in order, so for any thread count they give the bits
// of one thread's row-major pass over a stream (the rows' columns increase), and
// the features the width has beyond the rows' are zero. (Three threads'
// own row-major sums differ in the last bits: the test fails where they are used.
// Sparse rows over many features, as the copy is made where it takes no more
// memory than the threads' copies of the product.)
TEST(CpuMatrixOperations, BlockProductsOfResidentRowsAreOneThreadsRowMajorSums) {
  snapml::testing::RandomProblemOptions options;
  options.features = 400;
  options.density = 0.02;
  const Dataset data = snapml::testing::random_problem(options);
  const std::int32_t width_features = data.n_features() + 2;
  const int K = 8;
  ForwardOnly stream(data);
  const auto reference = make_cpu_matrix_operations(stream, width_features, 0.75, 1);
  const auto rows = static_cast<std::size_t>(reference->n_rows());
  const std::size_t size = reference->n_weights() * K;
  std::vector<double> factors(rows * K);
  for (std::size_t i = 0; i < factors.size(); ++i)
    factors[i] = i % 7 == 0 ? 0.0 : std::sin(0.37 * static_cast<double>(i)) * (1.0 + static_cast<double>(i % 5));
  std::vector<double> weights(size);
  for (std::size_t j = 0; j < size; ++j) weights[j] = std::cos(0.23 * static_cast<double>(j)) * (j % 3 == 0 ? 0.0 : 1.5);
  std::vector<double> product(size), diagonal(size), margins(rows * K);
  reference->margins_block(weights.data(), K, margins.data());
  reference->transpose_times_block(factors.data(), K, product.data());
  reference->hessian_diagonal_block(factors.data(), K, diagonal.data());
  for (std::size_t j = static_cast<std::size_t>(data.n_features()) * K; j < (data.n_features() + 2u) * K; ++j)
    EXPECT_EQ(product[j], 0.0) << j;
  for (const int threads : {1, 3}) {
    InMemorySource source(data);
    const auto operations = make_cpu_matrix_operations(source, width_features, 0.75, threads);
    for (int pass = 0; pass < 2; ++pass) {  // the copy is made on the first call, kept for the next
      std::vector<double> out(size, -1.0), out_diagonal(size, -1.0), out_margins(rows * K, -1.0);
      operations->margins_block(weights.data(), K, out_margins.data());
      for (std::size_t i = 0; i < rows * K; ++i)
        EXPECT_EQ(out_margins[i], margins[i]) << "margin " << i << ", " << threads << " threads";
      operations->transpose_times_block(factors.data(), K, out.data());
      operations->hessian_diagonal_block(factors.data(), K, out_diagonal.data());
      for (std::size_t j = 0; j < size; ++j) {
        EXPECT_EQ(out[j], product[j]) << "entry " << j << ", " << threads << " threads";
        EXPECT_EQ(out_diagonal[j], diagonal[j]) << "entry " << j << ", " << threads << " threads";
      }
    }
  }
}

}  // namespace
