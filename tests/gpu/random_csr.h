// Random CSR chunks for the GPU tests, and the double-precision reference X w.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "snapml/dataset.h"

namespace snapml::testing {

struct RandomCsrShape {
  std::int64_t n_rows = 100;
  std::int32_t n_features = 1000;
  int mean_row_nnz = 20;         // typical rows have 0 .. 2 * mean_row_nnz non-zeros
  double empty_row_share = 0.1;  // rows with no non-zeros
  double long_row_share = 0.01;  // rows of up to 3000 non-zeros: longer than one block
  bool weights = false;
};

// Rows with sorted, distinct columns, values and labels away from zero.
CsrChunk random_csr(const RandomCsrShape& shape, std::mt19937_64& rng);

// Uniform in [-1, 1].
std::vector<float> random_vector(std::size_t n, std::mt19937_64& rng);

// X w in double precision, and per row the sum of |x_ik w_k| that bounds rounding.
struct ReferenceProduct {
  std::vector<double> value;
  std::vector<double> magnitude;
};
ReferenceProduct reference_product(const CsrView& x, const std::vector<float>& w);

}  // namespace snapml::testing
