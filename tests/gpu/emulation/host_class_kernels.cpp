// The multinomial loss's kernels (cuda/src/primal/kernels/kernels.h, "K classes at
// once") as host loops, for the emulated build (README.md), written from that
// header's contracts like host_kernels.cpp: short columns by their offsets,
// long ones only through the plan's pieces, with kPiecePartials doubles a
// piece.
#include <algorithm>
#include <vector>

#include "fake_cuda_runtime.h"
#include "primal/kernels/kernels.h"

namespace snapml::cuda::primal {
namespace {

// out[i K + k] = x_i . v_k for the tile's rows.
void class_margins(const RowTile& tile, int classes, const double* v, Intercept intercept, double* out) {
  for (std::int64_t i = 0; i < tile.n_rows; ++i)
    for (int k = 0; k < classes; ++k) {
      double dot = 0.0;
      if (v != nullptr) {
        for (std::int32_t e = tile.offsets[i]; e < tile.offsets[i + 1]; ++e)
          dot += static_cast<double>(tile.entries[e].value) * v[std::int64_t{tile.entries[e].index} * classes + k];
        if (intercept.value != 0.0) dot += intercept.value * v[std::int64_t{intercept.index} * classes + k];
      }
      out[i * classes + k] = dot;
    }
}

// For every column j of the tile and class k: out[s][j K + k] (=, or +=) the
// s-th of `sums` gathered sums, gather(entry, k, sum) adding entry's terms of
// class k.
template <typename Gather>
void class_columns(const ColumnTile& tile, int classes, int sums, Gather gather, double* const* out, double* partials,
                   bool accumulate) {
  std::vector<double> sum(static_cast<std::size_t>(sums));
  auto store = [&](std::int32_t j, int k) {
    for (int s = 0; s < sums; ++s) {
      double& at = out[s][std::int64_t{j} * classes + k];
      at = accumulate ? at + sum[static_cast<std::size_t>(s)] : sum[static_cast<std::size_t>(s)];
    }
  };
  for (int k = 0; k < classes; ++k) {
    for (std::int32_t j = 0; j < tile.n_columns; ++j) {
      if (tile.offsets[j + 1] - tile.offsets[j] > tile.long_threshold) continue;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::int32_t e = tile.offsets[j]; e < tile.offsets[j + 1]; ++e) gather(tile.entries[e], k, sum.data());
      store(j, k);
    }
    for (std::int32_t p = 0; p < tile.n_pieces; ++p) {
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::int32_t e = tile.piece_begin[p]; e < tile.piece_end[p]; ++e) gather(tile.entries[e], k, sum.data());
      for (int s = 0; s < sums; ++s) partials[kPiecePartials * p + s] = sum[static_cast<std::size_t>(s)];
    }
    for (std::int32_t c = 0; c < tile.n_long; ++c) {
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::int32_t p = tile.first_piece[c]; p < tile.first_piece[c + 1]; ++p)
        for (int s = 0; s < sums; ++s) sum[static_cast<std::size_t>(s)] += partials[kPiecePartials * p + s];
      store(tile.long_columns[c], k);
    }
  }
}

}  // namespace

void launch_softmax_terms(const RowTile& tile, int classes, const double* v, Intercept intercept, const double* targets,
                          const double* costs, double* derivatives, double* probabilities, Reduction reduction,
                          bool accumulate, cudaStream_t stream) {
  emulation::require_current_device(stream);
  class_margins(tile, classes, v, intercept, probabilities);
  double sums[2] = {0.0, 0.0};
  for (std::int64_t i = 0; i < tile.n_rows; ++i)
    softmax_row(classes, static_cast<int>(targets[i]), costs[i], probabilities + i * classes,
                derivatives + i * classes, sums);
  for (int k = 0; k < 2; ++k) reduction.result[k] = accumulate ? reduction.result[k] + sums[k] : sums[k];
}

void launch_softmax_curvature_rows(const RowTile& tile, int classes, const double* v, Intercept intercept,
                                   const double* costs, const double* probabilities, double* out, cudaStream_t stream) {
  emulation::require_current_device(stream);
  class_margins(tile, classes, v, intercept, out);
  for (std::int64_t i = 0; i < tile.n_rows; ++i)
    softmax_curvature_row(classes, costs[i], probabilities + i * classes, out + i * classes);
}

void launch_block_column_sums(const ColumnTile& tile, int classes, const double* z, double* out, double* piece_partials,
                              bool accumulate, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double* outs[1] = {out};
  class_columns(
      tile, classes, 1,
      [&](const Entry& entry, int k, double* sum) {
        sum[0] += static_cast<double>(entry.value) * z[std::int64_t{entry.index} * classes + k];
      },
      outs, piece_partials, accumulate);
}

void launch_softmax_column_gradient(const ColumnTile& tile, int classes, const double* d, const double* costs,
                                    const double* probabilities, double* out_g, double* out_h, double* piece_partials,
                                    bool accumulate, cudaStream_t stream) {
  emulation::require_current_device(stream);
  double* outs[2] = {out_g, out_h};
  class_columns(
      tile, classes, 2,
      [&](const Entry& entry, int k, double* sum) {
        const double x = entry.value;
        const std::int64_t at = std::int64_t{entry.index} * classes + k;
        const double p = probabilities[at];
        sum[0] += x * d[at];
        sum[1] += x * x * costs[entry.index] * p * (1.0 - p);
      },
      outs, piece_partials, accumulate);
}

}  // namespace snapml::cuda::primal
