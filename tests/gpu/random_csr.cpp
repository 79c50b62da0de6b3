#include "random_csr.h"

#include <algorithm>
#include <cmath>

namespace snapml::testing {

CsrChunk random_csr(const RandomCsrShape& shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<std::int32_t> column(0, shape.n_features - 1);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  CsrChunk chunk;
  std::vector<std::int32_t> indices;
  std::vector<float> values;
  for (std::int64_t row = 0; row < shape.n_rows; ++row) {
    const double kind = unit(rng);
    std::int64_t length = 0;
    if (kind < shape.empty_row_share) {
      length = 0;
    } else if (kind < shape.empty_row_share + shape.long_row_share) {
      length = std::uniform_int_distribution<std::int64_t>(257, 3000)(rng);
    } else {
      length = std::uniform_int_distribution<std::int64_t>(1, 2 * shape.mean_row_nnz)(rng);
    }
    indices.resize(static_cast<std::size_t>(std::min<std::int64_t>(length, shape.n_features)));
    for (auto& index : indices) index = column(rng);
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    values.resize(indices.size());
    for (auto& v : values) v = value(rng);
    chunk.add_row(unit(rng) < 0.5 ? -1.0 : 1.0, indices.data(), values.data(),
                  static_cast<std::int64_t>(indices.size()));
  }
  if (shape.weights) {
    std::uniform_real_distribution<float> weight(0.25f, 4.0f);
    for (std::int64_t row = 0; row < shape.n_rows; ++row) chunk.weights.push_back(weight(rng));
  }
  return chunk;
}

std::vector<float> random_vector(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = value(rng);
  return v;
}

ReferenceProduct reference_product(const CsrView& x, const std::vector<float>& w) {
  ReferenceProduct ref;
  ref.value.resize(static_cast<std::size_t>(x.n_rows));
  ref.magnitude.resize(static_cast<std::size_t>(x.n_rows));
  for (std::int64_t row = 0; row < x.n_rows; ++row) {
    double sum = 0.0;
    double magnitude = 0.0;
    for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
      const double term = static_cast<double>(x.values[k]) * w[x.col_indices[k]];
      sum += term;
      magnitude += std::fabs(term);
    }
    ref.value[row] = sum;
    ref.magnitude[row] = magnitude;
  }
  return ref;
}

}  // namespace snapml::testing
