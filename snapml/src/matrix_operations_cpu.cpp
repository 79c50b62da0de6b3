// The CPU backend of the matrix-operations seam (snapml/matrix_operations.h).
#include <algorithm>
#include <string>
#include <vector>

#include "omp_threads.h"
#include "snapml/error.h"
#include "snapml/matrix_operations.h"

namespace snapml {
namespace {

class CpuMatrixOperations final : public MatrixOperations {
 public:
  CpuMatrixOperations(ChunkSource& source, std::int32_t n_features, double bias_value, int threads)
      : source_(source),
        n_features_(n_features),
        bias_value_(bias_value),
        threads_(detail::resolve_threads(threads)),
        n_rows_(source.n_rows()) {
    require(n_features >= source.n_features(), "matrix operations: n_features " + std::to_string(n_features) +
                                                    " is below the source's " + std::to_string(source.n_features()));
  }

  std::int64_t n_rows() const override { return n_rows_; }
  std::size_t n_weights() const override { return static_cast<std::size_t>(n_features_) + 1; }

  void rows(double* labels, double* sample_weights) override {
    std::int64_t offset = 0;
    for_each_chunk([&](const CsrView& x) {
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        labels[offset + row] = x.labels[row];
        sample_weights[offset + row] = x.weight(row);
      }
      offset += x.n_rows;
    });
  }

  void margins(const double* w, double* out) override {
    const double bias_term = bias_value_ * w[n_features_];
    std::int64_t offset = 0;
    for_each_chunk([&](const CsrView& x) {
      double* chunk_out = out + offset;
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
      for (std::int64_t row = 0; row < x.n_rows; ++row) chunk_out[row] = row_dot(x, row, w) + bias_term;
      offset += x.n_rows;
    });
  }

  void transpose_times(const double* d, double* out) override {
    accumulate(out, [&](std::int64_t index, const CsrView&, std::int64_t) { return d[index]; });
  }

  void hessian_diagonal(const double* curvature, double* out) override {
    accumulate<true>(out, [&](std::int64_t index, const CsrView&, std::int64_t) { return curvature[index]; });
  }

  void hessian_product(const double* curvature, const double* v, double* out) override {
    const double bias_v = bias_value_ * v[n_features_];
    accumulate(out, [&](std::int64_t index, const CsrView& x, std::int64_t row) {
      const double c = curvature[index];
      return c == 0.0 ? 0.0 : c * (row_dot(x, row, v) + bias_v);
    });
  }

 private:
  template <typename Visit>
  void for_each_chunk(const Visit& visit) {
    CsrView x;
    std::int64_t rows = 0;
    source_.reset();
    while (source_.next(x)) {
      rows += x.n_rows;
      require(rows <= n_rows_, "the chunk source returned more rows than it counts");
      visit(x);
    }
    require(rows == n_rows_, "the chunk source returned fewer rows than it counts");
  }

  // out = sum_i scale(i) x_i (with `squared`, of x_i's entries squared), where
  // `scale(index, chunk, row)` gives row i's factor (0: skipped). Each thread adds
  // its contiguous share of each chunk into its own vector; the vectors are added
  // in thread order.
  template <bool squared = false, typename Scale>
  void accumulate(double* out, const Scale& scale) {
    const std::size_t width = n_weights();
    const auto team = static_cast<std::size_t>(threads_);
    partial_.assign(team > 1 ? team * width : 0, 0.0);
    std::fill(out, out + width, 0.0);
    std::int64_t offset = 0;
    for_each_chunk([&](const CsrView& x) {
      auto add_rows = [&](double* target, std::int64_t begin, std::int64_t end) {
        for (std::int64_t row = begin; row < end; ++row) {
          const double factor = scale(offset + row, x, row);
          if (factor == 0.0) continue;
          for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
            const auto value = static_cast<double>(x.values[k]);
            target[x.col_indices[k]] += factor * (squared ? value * value : value);
          }
          target[n_features_] += factor * (squared ? bias_value_ * bias_value_ : bias_value_);
        }
      };
      if (team <= 1) {
        add_rows(out, 0, x.n_rows);
      } else {
        // One share per loop index, not per thread: a team smaller than asked for
        // still covers every share, into the same vectors.
        const auto size = static_cast<std::int64_t>(team);
SNAPML_OMP(parallel for num_threads(threads_) schedule(static, 1))
        for (std::int64_t t = 0; t < size; ++t)
          add_rows(partial_.data() + static_cast<std::size_t>(t) * width, x.n_rows * t / size,
                   x.n_rows * (t + 1) / size);
      }
      offset += x.n_rows;
    });
    if (team <= 1) return;
    const auto columns = static_cast<std::int64_t>(width);
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
    for (std::int64_t j = 0; j < columns; ++j) {
      double sum = 0.0;
      for (std::size_t t = 0; t < team; ++t) sum += partial_[t * width + static_cast<std::size_t>(j)];
      out[j] = sum;
    }
  }

  ChunkSource& source_;
  std::int32_t n_features_;
  double bias_value_;
  int threads_;
  std::int64_t n_rows_;
  std::vector<double> partial_;  // threads x n_weights, when threads > 1
};

}  // namespace

std::unique_ptr<MatrixOperations> make_cpu_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                             double bias_value, int threads) {
  return std::make_unique<CpuMatrixOperations>(source, n_features, bias_value, threads);
}

}  // namespace snapml
