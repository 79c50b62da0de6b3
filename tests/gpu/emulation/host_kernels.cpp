// The GPU Newton solver's kernels (cuda/src/primal/kernels/kernels.h) as plain host loops,
// for the emulated build (README.md): the same contracts, written again from
// kernels.h, so the solver's host code (the upload, the tiles and parts, the
// plans, the trust region's backend) runs and is checked against the CPU solver
// without a device. The device's own kernels are checked on a device
// (test_tron_gpu). Like the device's, these read only what the contract names:
// short columns by their offsets, long ones through the plan's pieces.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "fake_cuda_runtime.h"
#include "primal/kernels/kernels.h"
#include "primal/trust_region.h"
#include "snapml/error.h"
#include "snapml/losses/primal_terms.h"

namespace snapml::cuda::primal {
namespace {

void put(const Reduction& reduction, const double* sums, int count, bool accumulate) {
  for (int k = 0; k < count; ++k) reduction.result[k] = accumulate ? reduction.result[k] + sums[k] : sums[k];
}

double row_dot(const RowTile& tile, std::int64_t row, const double* v, Intercept intercept) {
  if (v == nullptr) return 0.0;
  double dot = 0.0;
  for (std::int32_t k = tile.offsets[row]; k < tile.offsets[row + 1]; ++k)
    dot += static_cast<double>(tile.entries[k].value) * v[tile.entries[k].index];
  if (intercept.value != 0.0) dot += intercept.value * v[intercept.index];
  return dot;
}

// out[k][j] (=, or +=) the gather's k-th sum over column j's entries, long columns
// through the plan's pieces and partials.
template <int K, typename Gather>
void columns(const ColumnTile& tile, Gather gather, double* const* out, double* partials, bool accumulate) {
  auto store = [&](std::int32_t j, const double* sum) {
    for (int k = 0; k < K; ++k) out[k][j] = accumulate ? out[k][j] + sum[k] : sum[k];
  };
  for (std::int32_t j = 0; j < tile.n_columns; ++j) {
    if (tile.offsets[j + 1] - tile.offsets[j] > tile.long_threshold) continue;
    double sum[K] = {};
    for (std::int32_t e = tile.offsets[j]; e < tile.offsets[j + 1]; ++e) gather(tile.entries[e], sum);
    store(j, sum);
  }
  for (std::int32_t p = 0; p < tile.n_pieces; ++p) {
    double sum[K] = {};
    for (std::int32_t e = tile.piece_begin[p]; e < tile.piece_end[p]; ++e) gather(tile.entries[e], sum);
    for (int k = 0; k < K; ++k) partials[kPiecePartials * p + k] = sum[k];
  }
  for (std::int32_t c = 0; c < tile.n_long; ++c) {
    double sum[K] = {};
    for (std::int32_t p = tile.first_piece[c]; p < tile.first_piece[c + 1]; ++p)
      for (int k = 0; k < K; ++k) sum[k] += partials[kPiecePartials * p + k];
    store(tile.long_columns[c], sum);
  }
}

}  // namespace

void launch_margin_terms(const PrimalLoss& setup, const RowTile& tile, const double* v, Intercept intercept,
                         const double* targets, const double* costs, double* derivatives, double* curvatures,
                         Reduction reduction, bool accumulate, cudaStream_t stream) {
  emulation::require_current_device(stream);
  with_primal_loss(setup, [&](const auto& loss) {
    double sums[2] = {0.0, 0.0};
    for (std::int64_t i = 0; i < tile.n_rows; ++i) {
      const double margin = row_dot(tile, i, v, intercept);
      const double cost = costs[i];
      if (!(cost > 0.0)) {
        derivatives[i] = curvatures[i] = 0.0;
        continue;
      }
      const losses::PrimalTerms terms = losses::primal_terms(loss, targets[i], margin);
      derivatives[i] = cost * terms.derivative;
      curvatures[i] = cost * terms.curvature;
      sums[0] += cost * terms.value;
      sums[1] += losses::paired_dual_value(loss, targets[i], margin, cost, terms);
    }
    put(reduction, sums, 2, accumulate);
  });
}

void launch_curvature_rows(const RowTile& tile, const double* v, Intercept intercept, const double* curvatures,
                           double* out, cudaStream_t stream) {
  emulation::require_current_device(stream);
  for (std::int64_t i = 0; i < tile.n_rows; ++i) {
    const double dot = row_dot(tile, i, v, intercept);
    out[i] = curvatures[i] == 0.0 ? 0.0 : curvatures[i] * dot;
  }
}

void launch_row_dots(const RowTile& tile, const double* v, Intercept intercept, double* out, cudaStream_t stream) {
  emulation::require_current_device(stream);
  for (std::int64_t i = 0; i < tile.n_rows; ++i) out[i] = row_dot(tile, i, v, intercept);
}

void launch_alpha_derivatives(const PrimalLoss& setup, std::int64_t n, const double* targets, const double* costs,
                              double* values, cudaStream_t stream) {
  emulation::require_current_device(stream);
  with_primal_loss(setup, [&](const auto& loss) {
    for (std::int64_t i = 0; i < n; ++i) values[i] = costs[i] > 0.0 ? values[i] * loss.coefficient(targets[i]) : 0.0;
  });
}

void launch_paired_alpha(const PrimalLoss& setup, std::int64_t n, const double* targets, const double* derivatives,
                         double* alpha, cudaStream_t stream) {
  emulation::require_current_device(stream);
  with_primal_loss(setup, [&](const auto& loss) {
    for (std::int64_t i = 0; i < n; ++i) alpha[i] = -derivatives[i] * loss.coefficient(targets[i]);
  });
}

void launch_column_sums(const ColumnTile& tile, ColumnSum kind, const double* z, double* out, double* piece_partials,
                        bool accumulate, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double* outs[1] = {out};
  columns<1>(
      tile,
      [&](const Entry& entry, double* sum) {
        const double x = entry.value;
        sum[0] += (kind == ColumnSum::Plain ? x : x * x) * z[entry.index];
      },
      outs, piece_partials, accumulate);
}

void launch_column_gradient(const ColumnTile& tile, const double* d, const double* c, double* out_g, double* out_h,
                            double* piece_partials, bool accumulate, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double* outs[2] = {out_g, out_h};
  columns<2>(
      tile,
      [&](const Entry& entry, double* sum) {
        const double x = entry.value;
        sum[0] += x * d[entry.index];
        sum[1] += x * x * c[entry.index];
      },
      outs, piece_partials, accumulate);
}

std::size_t transpose_temp_bytes(std::int64_t items, std::int32_t) { return static_cast<std::size_t>(items) * 12 + 64; }

void launch_transpose(const RowTile& tile, std::int64_t nnz, bool intercept, std::int32_t intercept_index,
                      std::int32_t n_columns, const TransposeScratch&, std::int32_t* t_offsets, Entry* t_entries,
                      cudaStream_t stream) {
  emulation::require_current_device(stream);
  require(tile.n_rows == 0 || tile.offsets[tile.n_rows] == nnz, "emulated transpose: the tile's offsets end elsewhere");
  // What a device would read out of bounds (offsets or entries not yet copied,
  // or copied from a slot overwritten too early) fails here instead.
  for (std::int64_t i = 0; i < tile.n_rows; ++i)
    require(tile.offsets[i] >= 0 && tile.offsets[i] <= tile.offsets[i + 1] && tile.offsets[i + 1] <= nnz,
            [&] { return "emulated transpose: the tile's offsets are not a CSR's at row " + std::to_string(i); });
  for (std::int64_t k = 0; k < nnz; ++k)
    require(tile.entries[k].index >= 0 && tile.entries[k].index < n_columns,
            [&] {
              return "emulated transpose: entry " + std::to_string(k) + " names column " +
                     std::to_string(tile.entries[k].index);
            });
  struct Item {
    std::int32_t column;
    Entry entry;
  };
  std::vector<Item> items;
  for (std::int64_t i = 0; i < tile.n_rows; ++i)
    for (std::int32_t k = tile.offsets[i]; k < tile.offsets[i + 1]; ++k)
      items.push_back({tile.entries[k].index, Entry{static_cast<std::int32_t>(i), tile.entries[k].value}});
  if (intercept)
    for (std::int64_t i = 0; i < tile.n_rows; ++i)
      items.push_back({intercept_index, Entry{static_cast<std::int32_t>(i), 1.0f}});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.column < b.column; });
  for (std::size_t k = 0; k < items.size(); ++k) t_entries[k] = items[k].entry;
  for (std::int32_t j = 0; j <= n_columns; ++j)
    t_offsets[j] = static_cast<std::int32_t>(
        std::lower_bound(items.begin(), items.end(), j, [](const Item& a, std::int32_t c) { return a.column < c; }) -
        items.begin());
}

void launch_gradient_epilogue(const WeightSetup& setup, const PartSums& raw_g, const PartSums& raw_h,
                              const double* w, double* g, double* m, Reduction reduction, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double sums[3] = {0.0, 0.0, 0.0};
  for (std::int64_t j = 0; j < setup.n; ++j) {
    const double r = regulariser(setup, j);
    g[j] = raw_at(raw_g, setup, j, 1) + r * w[j];
    m[j] = snapml::detail::trust_region::preconditioner_entry(r, raw_at(raw_h, setup, j, 2));
    sums[0] += g[j] * g[j];
    sums[1] += (w[j] - g[j]) * (w[j] - g[j]);
    sums[2] += g[j] * g[j] / m[j];
  }
  put(reduction, sums, 3, false);
}

void launch_hessian_epilogue(const WeightSetup& setup, const PartSums& raw, const double* d, double* hd,
                             Reduction reduction, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double sum = 0.0;
  for (std::int64_t j = 0; j < setup.n; ++j) {
    hd[j] = raw_at(raw, setup, j, 1) + regulariser(setup, j) * d[j];
    sum += d[j] * hd[j];
  }
  put(reduction, &sum, 1, false);
}

void launch_assign_sum(const WeightSetup& setup, const PartSums& raw, int power, double* out, cudaStream_t stream) {
  emulation::require_current_device(stream);
  for (std::int64_t j = 0; j < setup.n; ++j) out[j] = raw_at(raw, setup, j, power);
}

void launch_cg_start(std::int64_t n, const double* g, const double* m, double* r, double* d, Reduction reduction,
                     cudaStream_t stream) {
  emulation::require_current_device(stream);
  double sums[2] = {0.0, 0.0};
  for (std::int64_t j = 0; j < n; ++j) {
    r[j] = -g[j];
    d[j] = r[j] / m[j];
    sums[0] += d[j] * r[j];
    sums[1] += d[j] * m[j] * d[j];
  }
  put(reduction, sums, 2, false);
}

void launch_cg_advance(std::int64_t n, double step, double zr, double* s, double* r, double* d, const double* hd,
                       const double* m, Reduction reduction_a, Reduction reduction_b, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double residual[2] = {0.0, 0.0};  // r.M^-1.r, r.r
  for (std::int64_t j = 0; j < n; ++j) {
    s[j] += step * d[j];
    r[j] -= step * hd[j];
    residual[0] += r[j] * r[j] / m[j];
    residual[1] += r[j] * r[j];
  }
  put(reduction_a, residual, 2, false);
  const double beta = *reduction_a.result / zr;
  double sums[2] = {0.0, 0.0};
  for (std::int64_t j = 0; j < n; ++j) {
    d[j] = r[j] / m[j] + beta * d[j];
    sums[0] += s[j] * m[j] * d[j];
    sums[1] += d[j] * m[j] * d[j];
  }
  put(reduction_b, sums, 2, false);
}

void launch_cg_boundary(std::int64_t n, double tau, double* s, double* r, const double* d, const double* hd,
                        cudaStream_t stream) {
  emulation::require_current_device(stream);
  for (std::int64_t j = 0; j < n; ++j) {
    s[j] += tau * d[j];
    r[j] -= tau * hd[j];
  }
}

void launch_trial_point(const WeightSetup& setup, const double* w, const double* s, const double* g, const double* r,
                        const double* m, double* trial, Reduction reduction, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double sums[4] = {0.0, 0.0, 0.0, 0.0};
  for (std::int64_t j = 0; j < setup.n; ++j) {
    trial[j] = w[j] + s[j];
    sums[0] += g[j] * s[j];
    sums[1] += s[j] * r[j];
    sums[2] += s[j] * m[j] * s[j];
    sums[3] += regulariser(setup, j) * trial[j] * trial[j];
  }
  put(reduction, sums, 4, false);
}

void launch_penalty(const WeightSetup& setup, const double* w, Reduction reduction, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double sum = 0.0;
  for (std::int64_t j = 0; j < setup.n; ++j) sum += regulariser(setup, j) * w[j] * w[j];
  put(reduction, &sum, 1, false);
}

}  // namespace snapml::cuda::primal
