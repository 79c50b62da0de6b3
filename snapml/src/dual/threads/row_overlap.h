// How much the rows' directions overlap: the share rho of the ESO factor
// beta(T) = 1 + (T - 1) rho, rho = (lambda_max - 1) / (n - 1), lambda_max the
// largest eigenvalue of the Gram matrix of the n rows scaled to unit norm (the
// intercept a column of intercept_scaling). T dual steps taken together from the
// same w are safe at 1 / beta(T) of their length (mini-batch SDCA: Takac, Bijral,
// Richtarik & Srebro, ICML 2013; tau-nice sampling: Richtarik & Takac, Math. Prog.
// 156, 2016), and T replica workers merged by CoCoA+ take about beta(T) times one
// thread's epochs (docs/benchmarks/threads.md, "What 16 workers' epochs cost":
// within a fifth on a9a, w8a and two click logs). rho is 0 for orthogonal rows,
// 1 for identical ones; a9a's is 0.49, w8a's 0.26, a click log's 0.41, news20
// binary's 0.04 (bench/dual_parallel_eso.py, the exact eigenvalue).
//
// Here from a sample: every stride-th row, so that the sample holds about
// kSampleNonZeros non-zeros (at most kMostRows rows), then the power iteration on
// (1 / m) sum_s x_s x_s^T over the m sampled unit rows, whose largest eigenvalue
// mu estimates lambda_max / n (the Gram matrix's non-zero eigenvalues are those
// of sum_i x_i x_i^T). Started from the rows' mean, the direction the intercept
// and the frequent columns share, it converges in a few products where one
// direction dominates, which is where rho matters. Cost: at most kIterations
// passes over the sample, about a hundredth of a click log's epoch.
#pragma once

#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"

namespace snapml::detail {

class RowOverlapSample {
 public:
  static constexpr std::int64_t kSampleNonZeros = std::int64_t{1} << 18;
  static constexpr std::int64_t kMostRows = 8192;
  static constexpr int kIterations = 100;

  RowOverlapSample() = default;
  // A sample of `rows` rows holding `nnz` non-zeros; `intercept_value` is
  // intercept_scaling (0: none).
  RowOverlapSample(std::int64_t rows, std::int64_t nnz, double intercept_value);

  // The rows of chunk `x`, whose row 0 is row `first` of the rows (in the order
  // they are read), that fall on the stride.
  void add(const CsrView& x, std::int64_t first);

  // Rows on the stride, empty ones included (they count in the mean, orthogonal
  // to every other row).
  std::int64_t sampled_rows() const { return sampled_; }
  // rho for `rows` rows (the sample's mu scaled to them), within [0, 1]; 0 for
  // an empty sample or one row.
  double overlap(std::int64_t rows) const;
  // mu: the largest eigenvalue of the sampled unit rows' mean outer product.
  double largest_eigenvalue() const;

 private:
  std::int64_t stride_ = 1;
  double intercept_value_ = 0.0;
  std::int64_t sampled_ = 0;
  std::vector<std::int64_t> offsets_{0};
  std::vector<std::int32_t> columns_;  // the intercept is column -1
  std::vector<double> values_;         // scaled to the row's unit norm
};

}  // namespace snapml::detail
