// The CPU backend of the matrix-operations seam (snapml/impl/matrix_operations.h).
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../common/omp_threads.h"
#include "../common/prefetch.h"
#include "transposed_rows.h"
#include "snapml/error.h"
#include "snapml/impl/matrix_operations.h"

namespace snapml {
namespace {

// The most memory hessian_matrix's per-thread triangles take together.
constexpr std::size_t kHessianPartialBytes = std::size_t{256} << 20;

bool strictly_increasing(const std::int32_t* begin, const std::int32_t* end) {
  for (const std::int32_t* p = begin + 1; p < end; ++p)
    if (*p <= p[-1]) return false;
  return true;
}

// Adds the product of a row's entries at weights a and b (an earlier entry's b,
// in any order) into the packed lower triangle `target` (entry (a, b), a >= b, at
// a (a + 1) / 2 + b): a column repeated within the row lands on the diagonal from
// both orders of the pair, so it counts twice there (hessian_matrix's rows
// whose columns do not increase; hessian_block lists each row's places in order
// instead).
inline void add_pair(double* target, std::size_t a, std::size_t b, double product) {
  if (a > b)
    target[a * (a + 1) / 2 + b] += product;
  else if (a < b)
    target[b * (b + 1) / 2 + a] += product;
  else
    target[a * (a + 1) / 2 + a] += 2.0 * product;
}

// CpuMatrixOperations::accumulate's factors read from a row-major per-row array
// of K columns.
auto row_factors(const double* values, int columns) {
  const auto K = static_cast<std::size_t>(columns);
  return [values, K](std::int64_t index, const CsrView&, std::int64_t, double* factors) {
    const double* source = values + static_cast<std::size_t>(index) * K;
    bool any = false;
    for (std::size_t k = 0; k < K; ++k) any |= (factors[k] = source[k]) != 0.0;
    return any;
  };
}

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
    pairs_ = entries_ = 0.0;
    for_each_chunk([&](const CsrView& x) {
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        labels[offset + row] = x.labels[row];
        sample_weights[offset + row] = x.weight(row);
        const auto entries = static_cast<double>(x.row_end(row) - x.row_begin(row) + 1);  // the bias's too
        pairs_ += 0.5 * entries * (entries + 1.0);
        entries_ += entries;
      }
      offset += x.n_rows;
    });
  }

  double hessian_matrix_pairs() const override { return pairs_; }
  double row_entries() const override { return entries_; }

  void margins(const double* w, double* out) override { margins_block(w, 1, out); }

  void margins_block(const double* w, int columns, double* out) override {
    const auto K = static_cast<std::size_t>(columns);
    const double* bias_w = w + static_cast<std::size_t>(n_features_) * K;
    if (K > 1 && transposed(K)) {
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
      for (std::int64_t i = 0; i < n_rows_; ++i)
        for (std::size_t k = 0; k < K; ++k) out[static_cast<std::size_t>(i) * K + k] = bias_value_ * bias_w[k];
      transposed_->add_times(w, K, out);
      return;
    }
    const bool fetches = detail::prefetch_weights(n_weights());
    std::int64_t offset = 0;
    for_each_chunk([&](const CsrView& x) {
      double* chunk_out = out + static_cast<std::size_t>(offset) * K;
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        double* target = chunk_out + static_cast<std::size_t>(row) * K;
        if (K == 1) {
          if (fetches && row + detail::kRowsAhead < x.n_rows)
            detail::prefetch_columns(x.col_indices, x.row_begin(row + detail::kRowsAhead),
                                     x.row_end(row + detail::kRowsAhead), w, nullptr);
          target[0] = row_dot(x, row, w) + bias_value_ * bias_w[0];
          continue;
        }
        for (std::size_t k = 0; k < K; ++k) target[k] = bias_value_ * bias_w[k];
        for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) {
          const auto value = static_cast<double>(x.values[e]);
          const double* column = w + static_cast<std::size_t>(x.col_indices[e]) * K;
          for (std::size_t k = 0; k < K; ++k) target[k] += value * column[k];
        }
      }
      offset += x.n_rows;
    });
  }

  void transpose_times(const double* d, double* out) override { transpose_times_block(d, 1, out); }

  void transpose_times_block(const double* d, int columns, double* out) override {
    if (columns > 1 && transposed(static_cast<std::size_t>(columns)))
      transposed_times<false>(d, static_cast<std::size_t>(columns), out);
    else
      accumulate<false>(out, static_cast<std::size_t>(columns), row_factors(d, columns));
  }

  void hessian_product(const double* curvature, const double* v, double* out) override {
    const double bias_v = bias_value_ * v[n_features_];
    accumulate<false>(out, 1, [&](std::int64_t index, const CsrView& x, std::int64_t row, double* factors) {
      const double c = curvature[index];
      factors[0] = c == 0.0 ? 0.0 : c * (row_dot(x, row, v) + bias_v);
      return factors[0] != 0.0;
    }, v);
  }

  void hessian_diagonal(const double* curvature, double* out) override { hessian_diagonal_block(curvature, 1, out); }

  void hessian_matrix(const double* curvature, double* out) override {
    const std::size_t width = n_weights();
    const auto bias = static_cast<std::size_t>(n_features_);
    std::int64_t offset = 0;
    const std::size_t size = width * (width + 1) / 2;
    // A triangle per thread: at most kHessianPartialBytes of them (a 1024-weight
    // triangle is 4 MiB; 64 threads fill the budget, more share them).
    const std::size_t most_shares = std::max<std::size_t>(1, kHessianPartialBytes / (size * sizeof(double)));
    sum_over_threads(out, size, most_shares, [&](double* target, const CsrView& x, std::int64_t begin,
                                                      std::int64_t end) {
      double* bias_row = target + bias * (bias + 1) / 2;
      for (std::int64_t row = begin; row < end; ++row) {
        const double c = curvature[offset + row];
        if (c == 0.0) continue;
        const std::int64_t first = x.row_begin(row), last = x.row_end(row);
        // The common case (svmlight files, canonical CSR): each earlier entry's
        // column is below this one's, so its pairs fall in this column's row of
        // the triangle with no comparison per pair.
        const bool increasing = strictly_increasing(x.col_indices + first, x.col_indices + last);
        for (std::int64_t p = first; p < last; ++p) {
          const auto a = static_cast<std::size_t>(x.col_indices[p]);
          double* triangle_row = target + a * (a + 1) / 2;
          const double scaled = c * static_cast<double>(x.values[p]);
          if (increasing) {
            for (std::int64_t q = first; q < p; ++q)
              triangle_row[x.col_indices[q]] += scaled * static_cast<double>(x.values[q]);
          } else {
            // Pairs (p, q) with q < p once each, in either order.
            for (std::int64_t q = first; q < p; ++q)
              add_pair(target, a, static_cast<std::size_t>(x.col_indices[q]),
                       scaled * static_cast<double>(x.values[q]));
          }
          triangle_row[a] += scaled * static_cast<double>(x.values[p]);
          bias_row[a] += scaled * bias_value_;  // the bias's row: bias > a
        }
        bias_row[bias] += c * bias_value_ * bias_value_;
      }
    }, [&](const CsrView& x) { offset += x.n_rows; });
  }

  bool forms_hessian_block() const override { return true; }

  void hessian_block(const double* curvature, const std::int32_t* position, int size, double* out) override {
    const auto block = static_cast<std::size_t>(size);
    const std::int32_t bias_place = position[n_features_];
    // The block's columns lie in [first, last] (the bias's weight aside): an entry
    // outside is skipped without reading `position`. The block is the heaviest
    // columns, which a wide set numbers first (compact_columns.h, columns by their
    // counts): the rare columns' entries, whose places would be random reads
    // over 4 bytes a column, then cost a comparison each.
    std::int32_t first = n_features_, last = -1;
    for (std::int32_t j = 0; j < n_features_; ++j)
      if (position[j] >= 0) {
        first = std::min(first, j);
        last = std::max(last, j);
      }
    std::int64_t offset = 0;
    const std::size_t packed = block * (block + 1) / 2;
    const std::size_t most_shares = std::max<std::size_t>(1, kHessianPartialBytes / (packed * sizeof(double)));
    sum_over_threads(out, packed, most_shares, [&](double* target, const CsrView& x, std::int64_t begin,
                                                   std::int64_t end) {
      // A row's entries in the block, summed by place (a column repeated within
      // the row once, with its values' sum: the same pairs' sum), then listed in
      // increasing place from a bit per place. Every pair (a, b), b < a, then
      // falls in place a's row of the triangle, with no comparison a pair (a row
      // of a renumbered set lists its columns in the file's order, not the
      // places': compact_columns.h).
      std::vector<double> value_at(block, 0.0);
      std::vector<std::uint64_t> touched((block + 63) / 64, 0);
      std::vector<std::pair<std::int32_t, double>> inside;
      const auto mark = [&](std::int32_t place, double value) {
        value_at[static_cast<std::size_t>(place)] += value;
        touched[static_cast<std::size_t>(place) >> 6] |= std::uint64_t{1} << (place & 63);
      };
      for (std::int64_t row = begin; row < end; ++row) {
        const double c = curvature[offset + row];
        if (c == 0.0) continue;
        for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) {
          const std::int32_t column = x.col_indices[e];
          if (column < first || column > last) continue;
          const std::int32_t place = position[column];
          if (place >= 0) mark(place, static_cast<double>(x.values[e]));
        }
        if (bias_place >= 0) mark(bias_place, bias_value_);
        inside.clear();
        for (std::size_t word = 0; word < touched.size(); ++word) {
          for (std::uint64_t bits = touched[word]; bits != 0; bits &= bits - 1) {
            const std::size_t place = word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
            inside.emplace_back(static_cast<std::int32_t>(place), value_at[place]);
            value_at[place] = 0.0;
          }
          touched[word] = 0;
        }
        for (std::size_t p = 0; p < inside.size(); ++p) {
          const double scaled = c * inside[p].second;
          const auto a = static_cast<std::size_t>(inside[p].first);
          double* triangle_row = target + a * (a + 1) / 2;
          for (std::size_t q = 0; q < p; ++q) triangle_row[inside[q].first] += scaled * inside[q].second;
          triangle_row[a] += scaled * inside[p].second;
        }
      }
    }, [&](const CsrView& x) { offset += x.n_rows; });
  }

  void hessian_diagonal_block(const double* curvature, int columns, double* out) override {
    if (columns > 1 && transposed(static_cast<std::size_t>(columns)))
      transposed_times<true>(curvature, static_cast<std::size_t>(columns), out);
    else
      accumulate<true>(out, static_cast<std::size_t>(columns), row_factors(curvature, columns));
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

  // out (`size` entries) = the sum over every chunk's rows of what add(target,
  // chunk, begin, end) adds into `target` for rows [begin, end) of the chunk;
  // next(chunk) runs after each chunk. Each thread adds its contiguous share of
  // each chunk into its own vector; the vectors are added in thread order, so the
  // rounding depends on the thread count only.
  template <typename Add, typename Next>
  void sum_over_threads(double* out, std::size_t size, const Add& add, const Next& next) {
    sum_over_threads(out, size, static_cast<std::size_t>(threads_), add, next);
  }
  // The same in at most `most_shares` shares (and vectors) per chunk.
  template <typename Add, typename Next>
  void sum_over_threads(double* out, std::size_t size, std::size_t most_shares, const Add& add, const Next& next) {
    const auto team = std::min(static_cast<std::size_t>(threads_), most_shares);
    const int team_threads = static_cast<int>(team);
    partial_.resize(team > 1 ? team * size : 0);
    if (team <= 1) std::fill(out, out + size, 0.0);
    bool first = true;
    for_each_chunk([&](const CsrView& x) {
      if (team <= 1) {
        add(out, x, 0, x.n_rows);
      } else {
        // One share per loop index, not per thread: a team smaller than asked for
        // still covers every share, into the same vectors. Each share's vector is
        // zeroed by the thread that fills it (not one thread for all of them
        // before the region: a wide product's zeroing was a tenth of a CG step).
        const auto shares = static_cast<std::int64_t>(team);
SNAPML_OMP(parallel for num_threads(team_threads) schedule(static, 1))
        for (std::int64_t t = 0; t < shares; ++t) {
          double* share = partial_.data() + static_cast<std::size_t>(t) * size;
          if (first) std::fill(share, share + size, 0.0);
          add(share, x, x.n_rows * t / shares, x.n_rows * (t + 1) / shares);
        }
      }
      first = false;
      next(x);
    });
    if (team <= 1) return;
    if (first) {  // no chunk: no share was zeroed
      std::fill(out, out + size, 0.0);
      return;
    }
    const auto entries = static_cast<std::int64_t>(size);
SNAPML_OMP(parallel for num_threads(detail::threads_for(entries, threads_)) schedule(static))
    for (std::int64_t j = 0; j < entries; ++j) {
      double sum = 0.0;
      for (std::size_t t = 0; t < team; ++t) sum += partial_[t * size + static_cast<std::size_t>(j)];
      out[j] = sum;
    }
  }

  // out[j * K + k] = sum_i f_ik x_ij (with `squared`: f_ik x_ij^2), where
  // `factors(index, chunk, row, f)` writes row i's K factors into f and returns
  // whether any is non-zero (a row of zeros is skipped). `gathered`: a vector of
  // the weights the factors read at each entry's column (v in H v), or null; with
  // K = 1 it is prefetched beside the sums where wide (prefetch.h).
  template <bool squared, typename Factors>
  void accumulate(double* out, std::size_t K, const Factors& factors, const double* gathered = nullptr) {
    const double bias_factor = squared ? bias_value_ * bias_value_ : bias_value_;
    const bool fetches = K == 1 && detail::prefetch_weights(n_weights());
    std::int64_t offset = 0;
    sum_over_threads(out, n_weights() * K, [&](double* target, const CsrView& x, std::int64_t begin,
                                              std::int64_t end) {
      std::vector<double> f(K);
      double* bias_target = target + static_cast<std::size_t>(n_features_) * K;
      for (std::int64_t row = begin; row < end; ++row) {
        if (fetches && row + detail::kRowsAhead < end)
          detail::prefetch_columns(x.col_indices, x.row_begin(row + detail::kRowsAhead),
                                   x.row_end(row + detail::kRowsAhead), gathered, target);
        if (!factors(offset + row, x, row, f.data())) continue;
        if (K == 1) {  // the scalar losses' products: no loop over K an entry
          const double f0 = f[0];
          for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) {
            const auto value = static_cast<double>(x.values[e]);
            target[x.col_indices[e]] += f0 * (squared ? value * value : value);
          }
          bias_target[0] += f0 * bias_factor;
          continue;
        }
        for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) {
          const auto value = static_cast<double>(x.values[e]);
          const double scale = squared ? value * value : value;
          double* column = target + static_cast<std::size_t>(x.col_indices[e]) * K;
          for (std::size_t k = 0; k < K; ++k) column[k] += f[k] * scale;
        }
        for (std::size_t k = 0; k < K; ++k) bias_target[k] += f[k] * bias_factor;
      }
    }, [&](const CsrView& x) { offset += x.n_rows; });
  }

  // Whether the block products over K columns read the rows' column-major copy
  // (transposed_rows.h), made on the first call: for resident rows, where the
  // copy takes no more memory than the per-thread copies of the product it
  // replaces (at least one product's size: a single thread gains too).
  bool transposed(std::size_t K) {
    if (!transposed_ && source_.resident() && source_.n_rows() <= std::numeric_limits<std::int32_t>::max() &&
        detail::TransposedRows::bytes(source_, threads_) <=
            static_cast<std::uint64_t>(std::max(threads_, 1)) * n_weights() * K * sizeof(double))
      transposed_ = std::make_unique<detail::TransposedRows>(source_, threads_);
    return transposed_ != nullptr;
  }

  // accumulate's product from the column-major copy; the bias's row summed over
  // the rows in order.
  template <bool squared>
  void transposed_times(const double* f, std::size_t K, double* out) {
    transposed_->times(f, K, squared, out, threads_);
    // Features the matrix's width has beyond the source's: no entries.
    std::fill(out + transposed_->columns() * K, out + static_cast<std::size_t>(n_features_) * K, 0.0);
    const double bias_factor = squared ? bias_value_ * bias_value_ : bias_value_;
    double* bias_target = out + static_cast<std::size_t>(n_features_) * K;
    std::fill(bias_target, bias_target + K, 0.0);
    for (std::int64_t i = 0; i < n_rows_; ++i) {
      const double* row = f + static_cast<std::size_t>(i) * K;
      for (std::size_t k = 0; k < K; ++k) bias_target[k] += row[k] * bias_factor;
    }
  }

  ChunkSource& source_;
  std::int32_t n_features_;
  double bias_value_;
  int threads_;
  std::int64_t n_rows_;
  std::vector<double> partial_;  // threads x the product's size, when threads > 1
  std::unique_ptr<detail::TransposedRows> transposed_;
  double pairs_ = 0.0;            // hessian_matrix_pairs, from rows()
  double entries_ = 0.0;          // row_entries, from rows()
};

}  // namespace

// The block defaults: one single product per column.
void MatrixOperations::margins_block(const double* w, int columns, double* out) {
  const auto K = static_cast<std::size_t>(columns);
  const std::size_t width = n_weights();
  const auto rows = static_cast<std::size_t>(n_rows());
  std::vector<double> column(width), margins(rows);
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t j = 0; j < width; ++j) column[j] = w[j * K + k];
    this->margins(column.data(), margins.data());
    for (std::size_t i = 0; i < rows; ++i) out[i * K + k] = margins[i];
  }
}

// The column-by-column default: column j is H e_j (its lower part, j <= a, kept).
void MatrixOperations::hessian_matrix(const double* curvature, double* out) {
  const std::size_t width = n_weights();
  std::vector<double> unit(width, 0.0), column(width);
  for (std::size_t j = 0; j < width; ++j) {
    unit[j] = 1.0;
    hessian_product(curvature, unit.data(), column.data());
    unit[j] = 0.0;
    for (std::size_t a = j; a < width; ++a) out[a * (a + 1) / 2 + j] = column[a];
  }
}

void MatrixOperations::hessian_block(const double*, const std::int32_t*, int, double*) {
  throw InvalidArgument("this backend does not form a block of the Hessian");
}

double MatrixOperations::hessian_matrix_pairs() const { return std::numeric_limits<double>::infinity(); }

double MatrixOperations::row_entries() const { return 0.0; }

namespace {

// out[j * K + k] = product(column k of the per-row array `in`), one call per column.
template <typename Product>
void per_column(std::size_t rows, std::size_t width, const double* in, int columns, double* out,
                const Product& product) {
  const auto K = static_cast<std::size_t>(columns);
  std::vector<double> row_values(rows), result(width);
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t i = 0; i < rows; ++i) row_values[i] = in[i * K + k];
    product(row_values.data(), result.data());
    for (std::size_t j = 0; j < width; ++j) out[j * K + k] = result[j];
  }
}

}  // namespace

void MatrixOperations::transpose_times_block(const double* d, int columns, double* out) {
  per_column(static_cast<std::size_t>(n_rows()), n_weights(), d, columns, out,
             [&](const double* in, double* result) { transpose_times(in, result); });
}

void MatrixOperations::hessian_diagonal_block(const double* curvature, int columns, double* out) {
  per_column(static_cast<std::size_t>(n_rows()), n_weights(), curvature, columns, out,
             [&](const double* in, double* result) { hessian_diagonal(in, result); });
}

std::unique_ptr<MatrixOperations> make_cpu_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                             double bias_value, int threads) {
  return std::make_unique<CpuMatrixOperations>(source, n_features, bias_value, threads);
}

}  // namespace snapml
