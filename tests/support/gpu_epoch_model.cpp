#include "gpu_epoch_model.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/cuda/permutation.h"
#include "snapml/losses/dispatch.h"
#include "snapml/objectives.h"

namespace snapml::testing {
namespace {

// The chunk index permutation_key reserves for an epoch's chunk order (as
// sdca_gpu_solver.cpp's kChunkOrderKey).
constexpr std::uint64_t kChunkOrderKey = std::numeric_limits<std::uint64_t>::max();

struct ChunkRows {
  CsrView x;
  std::int64_t first = 0;             // the chunk's first row in the per-row arrays
  std::vector<double> curvature;      // row_curvature at the chunk's wave size
  std::int64_t rows_in_flight = 1;    // the chunk's R
};

// One epoch over one chunk, in waves of R positions (epoch_schedule.h).
template <typename Loss>
void chunk_epoch(const Loss& loss, const ChunkRows& chunk, const std::vector<double>& target,
                 const std::vector<double>& cost, std::vector<double>& alpha, std::vector<double>& v,
                 double bias_value, const cuda::FeistelPermutation& order, std::int64_t rows_in_flight,
                 std::vector<double>& scales) {
  const CsrView& x = chunk.x;
  const auto bias = static_cast<std::size_t>(x.n_features);
  for (std::int64_t wave = 0; wave < x.n_rows; wave += rows_in_flight) {
    const std::int64_t count = std::min(rows_in_flight, x.n_rows - wave);
    scales.assign(static_cast<std::size_t>(count), 0.0);
    for (std::int64_t s = 0; s < count; ++s) {  // phase 1: every row reads the wave's v
      const auto row = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(wave + s)));
      const auto i = static_cast<std::size_t>(chunk.first + row);
      if (!(cost[i] > 0.0)) continue;
      const double margin = row_dot(x, row, v.data()) + bias_value * v[bias];
      scales[static_cast<std::size_t>(s)] =
          cuda::row_step(loss, target[i], cost[i], margin, chunk.curvature[static_cast<std::size_t>(row)], 1.0,
                         &alpha[i]);
    }
    double bias_sum = 0.0;
    for (std::int64_t s = 0; s < count; ++s) {  // phase 2: the wave's updates
      const double scale = scales[static_cast<std::size_t>(s)];
      if (scale == 0.0) continue;
      const auto row = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(wave + s)));
      for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
        v[static_cast<std::size_t>(x.col_indices[k])] += scale * static_cast<double>(x.values[k]);
      bias_sum += scale;
    }
    if (bias_value != 0.0) v[bias] += bias_value * bias_sum;
  }
}

}  // namespace

FitResult fit_gpu_model(const Dataset& data, const SolverParameters& parameters, const GpuModelOptions& options,
                        SolverState& state) {
  const auto started = std::chrono::steady_clock::now();
  const RowTargets targets = RowTargets::from(parameters);
  const double bias_value = parameters.intercept_scaling;
  const std::int32_t n_features = data.n_features();
  const auto n = static_cast<std::size_t>(data.n_rows());
  std::vector<double> target(n), cost(n), alpha(n, 0.0);
  std::vector<double> v(static_cast<std::size_t>(n_features) + 1, 0.0);
  std::vector<ChunkRows> chunks;
  std::int64_t first = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    ChunkRows chunk;
    chunk.x = data.view(c);
    chunk.first = first;
    const std::vector<std::int64_t> counts = cuda::column_rows(chunk.x);
    chunk.rows_in_flight = options.bound_by_data
                               ? cuda::chunk_rows_in_flight(options.rows_in_flight, counts, chunk.x.n_rows,
                                                            bias_value != 0.0)
                               : options.rows_in_flight;
    const std::int64_t tau = cuda::wave_size(chunk.rows_in_flight, chunk.x.n_rows);
    for (std::int64_t row = 0; row < chunk.x.n_rows; ++row) {
      const auto i = static_cast<std::size_t>(first + row);
      target[i] = targets.target(chunk.x.labels[row]);
      cost[i] = targets.cost(target[i], chunk.x.weight(row));
      chunk.curvature.push_back(cuda::row_curvature(chunk.x, row, counts.data(), bias_value, tau, options.curvature));
    }
    first += chunk.x.n_rows;
    chunks.push_back(std::move(chunk));
  }

  FitResult result;
  InMemorySource source(data);
  std::vector<double> scales;
  with_loss(parameters.loss, parameters.epsilon, 0.0, [&](auto loss) {
    // The cold start: alpha_i = initial_alpha(C_i), w = w(alpha).
    for (const ChunkRows& chunk : chunks)
      for (std::int64_t row = 0; row < chunk.x.n_rows; ++row) {
        const auto i = static_cast<std::size_t>(chunk.first + row);
        if (!(cost[i] > 0.0)) continue;
        alpha[i] = loss.initial_alpha(cost[i]);
        const double scale = alpha[i] * decltype(loss)::coefficient(target[i]);
        for (std::int64_t k = chunk.x.row_begin(row); k < chunk.x.row_end(row); ++k)
          v[static_cast<std::size_t>(chunk.x.col_indices[k])] += scale * static_cast<double>(chunk.x.values[k]);
        v.back() += scale * bias_value;
      }
    while (result.epochs < parameters.max_epochs) {
      // The solver's (LIBLINEAR's) schedule of the logistic Newton tolerance.
      if constexpr (std::is_same_v<decltype(loss), losses::LogisticLoss>)
        loss.newton_tolerance = std::max(1e-11, 1e-2 * std::pow(0.1, result.epochs));
      const auto epoch = static_cast<std::uint64_t>(result.epochs);
      const cuda::FeistelPermutation chunk_order(chunks.size(),
                                                 cuda::permutation_key(parameters.seed, 0, epoch, kChunkOrderKey));
      for (std::uint64_t position = 0; position < chunks.size(); ++position) {
        const std::uint64_t c = chunk_order(position);
        const ChunkRows& chunk = chunks[c];
        const cuda::FeistelPermutation rows(static_cast<std::uint64_t>(chunk.x.n_rows),
                                            cuda::permutation_key(parameters.seed, 0, epoch, c));
        chunk_epoch(loss, chunk, target, cost, alpha, v, bias_value, rows, chunk.rows_in_flight, scales);
      }
      ++result.epochs;
      const ObjectiveSums sums = objective_sums(source, parameters, v.data(), n_features, alpha.data(), 2);
      const Objectives objectives = combine(sums, v.data(), static_cast<std::int64_t>(v.size()));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (record_round(result, objectives, seconds, parameters)) break;
      if (!std::isfinite(objectives.dual) || !std::isfinite(objectives.primal)) break;  // diverged
    }
  });
  state.weights = v;
  state.alpha = alpha;
  return result;
}

}  // namespace snapml::testing
