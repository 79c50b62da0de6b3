#include "gpu_epoch_model.h"

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <cmath>
#include <limits>
#include <vector>

#include "snapml/impl/certificate_schedule.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/permutation.h"
#include "snapml/losses/dispatch.h"
#include "snapml/impl/objectives.h"

namespace snapml::testing {
namespace {

// The chunk index permutation_key reserves for an epoch's chunk order (as
// sdca_gpu_solver.cpp's kChunkOrderKey).
constexpr std::uint64_t kChunkOrderKey = std::numeric_limits<std::uint64_t>::max();

struct ChunkRows {
  CsrView x;
  std::int64_t first = 0;             // the chunk's first row in the per-row arrays
  std::vector<double> curvature;      // row_curvature at the chunk's wave size (cold columns only with hot ones)
  std::int64_t rows_in_flight = 1;    // the chunk's R
  std::vector<int> hot_index;         // per column: its index among the hot weights, or -1
  int n_hot = 0;                      // hot weights, the intercept last when there is one
  std::vector<double> hot_norm;       // per row: ||x_i^hot||^2 (+ b^2)
};

// A row's hot entries (the intercept last) as (hot index, value) pairs.
template <typename F>
void for_hot(const ChunkRows& chunk, std::int64_t row, double bias_value, F&& f) {
  for (std::int64_t k = chunk.x.row_begin(row); k < chunk.x.row_end(row); ++k) {
    const int h = chunk.hot_index[static_cast<std::size_t>(chunk.x.col_indices[k])];
    if (h >= 0) f(h, static_cast<std::size_t>(chunk.x.col_indices[k]), static_cast<double>(chunk.x.values[k]));
  }
  if (bias_value != 0.0) f(chunk.n_hot - 1, static_cast<std::size_t>(chunk.x.n_features), bias_value);
}

// -D_i'' at alpha (the dual's curvature; 0 where linear) and whether alpha sits
// where the step's derivative in the margin is 0 (a bound, the kink of |b|).
template <typename Loss>
double dual_curvature(const Loss& loss, double alpha, double C, bool* flat) {
  const losses::DualInterval box = loss.interval(C);
  *flat = alpha <= box.lower || alpha >= box.upper;
  if constexpr (std::is_same_v<Loss, losses::LogisticLoss>) {
    return C / (alpha * (C - alpha));
  } else if constexpr (std::is_same_v<Loss, losses::SquaredLoss>) {
    if (loss.epsilon > 0.0 && alpha == 0.0) *flat = true;
    return Loss::diag(C);
  } else {
    return Loss::diag(C);
  }
}

// Cholesky solve of the symmetric positive definite k x k system a x = b (in place).
void cholesky_solve(std::vector<double>& a, std::vector<double>& b, int k) {
  for (int j = 0; j < k; ++j) {
    double d = a[j * k + j];
    for (int p = 0; p < j; ++p) d -= a[j * k + p] * a[j * k + p];
    d = std::sqrt(std::max(d, 1e-300));
    a[j * k + j] = d;
    for (int i = j + 1; i < k; ++i) {
      double e = a[i * k + j];
      for (int p = 0; p < j; ++p) e -= a[i * k + p] * a[j * k + p];
      a[i * k + j] = e / d;
    }
  }
  for (int i = 0; i < k; ++i) {
    for (int p = 0; p < i; ++p) b[i] -= a[i * k + p] * b[p];
    b[i] /= a[i * k + i];
  }
  for (int i = k - 1; i >= 0; --i) {
    for (int p = i + 1; p < k; ++p) b[i] -= a[p * k + i] * b[p];
    b[i] /= a[i * k + i];
  }
}

struct WaveScratch {
  std::vector<double> scales, margins, alphas;
  std::vector<double> delta, trial, gradient, hessian, direction;
};

// Adds the wave's updates (scales[s] times row s) to v: the sparse part row by row,
// the intercept's as one sum. Hot columns already updated are skipped.
void scatter(const ChunkRows& chunk, const cuda::FeistelPermutation& order, std::int64_t wave, std::int64_t count,
             const std::vector<double>& scales, std::vector<double>& v, double bias_value, bool skip_hot) {
  const CsrView& x = chunk.x;
  double bias_sum = 0.0;
  for (std::int64_t s = 0; s < count; ++s) {
    const double scale = scales[static_cast<std::size_t>(s)];
    if (scale == 0.0) continue;
    const auto row = static_cast<std::int64_t>(order(static_cast<std::uint64_t>(wave + s)));
    for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
      const auto col = static_cast<std::size_t>(x.col_indices[k]);
      if (skip_hot && chunk.hot_index[col] >= 0) continue;
      v[col] += scale * static_cast<double>(x.values[k]);
    }
    bias_sum += scale;
  }
  if (bias_value != 0.0 && !skip_hot) v[static_cast<std::size_t>(x.n_features)] += bias_value * bias_sum;
}

// The margin of a row over its cold columns (all columns without hot ones).
double cold_dot(const ChunkRows& chunk, std::int64_t row, const std::vector<double>& v) {
  double sum = 0.0;
  for (std::int64_t k = chunk.x.row_begin(row); k < chunk.x.row_end(row); ++k) {
    const auto col = static_cast<std::size_t>(chunk.x.col_indices[k]);
    if (chunk.hot_index.empty() || chunk.hot_index[col] < 0) sum += v[col] * static_cast<double>(chunk.x.values[k]);
  }
  return sum;
}

// One epoch over one chunk, in waves of R positions (epoch_schedule.h).
template <typename Loss>
void chunk_epoch(const Loss& loss, const ChunkRows& chunk, const std::vector<double>& target,
                 const std::vector<double>& cost, std::vector<double>& alpha, std::vector<double>& v,
                 double bias_value, const cuda::FeistelPermutation& order, const GpuModelOptions& options,
                 WaveScratch& w) {
  const CsrView& x = chunk.x;
  const std::int64_t rows_in_flight = chunk.rows_in_flight;
  const auto bias = static_cast<std::size_t>(x.n_features);
  const bool hot = options.hot != HotColumns::None;
  for (std::int64_t wave = 0; wave < x.n_rows; wave += rows_in_flight) {
    const std::int64_t count = std::min(rows_in_flight, x.n_rows - wave);
    ++last_gpu_model_stats.waves;
    w.scales.assign(static_cast<std::size_t>(count), 0.0);
    w.margins.assign(static_cast<std::size_t>(count), 0.0);
    auto row_of = [&](std::int64_t s) { return static_cast<std::int64_t>(order(static_cast<std::uint64_t>(wave + s))); };
    auto index_of = [&](std::int64_t s) { return static_cast<std::size_t>(chunk.first + row_of(s)); };
    // Phase 1: every row reads the wave's v (its cold columns only with hot ones).
    for (std::int64_t s = 0; s < count; ++s) {
      const std::int64_t row = row_of(s);
      w.margins[static_cast<std::size_t>(s)] = hot ? cold_dot(chunk, row, v) : row_dot(x, row, v.data()) + bias_value * v[bias];
      last_gpu_model_stats.nonzeros += x.row_end(row) - x.row_begin(row);
    }
    if (options.hot == HotColumns::None) {
      for (std::int64_t s = 0; s < count; ++s) {
        const std::size_t i = index_of(s);
        if (!(cost[i] > 0.0)) continue;
        w.scales[static_cast<std::size_t>(s)] =
            cuda::row_step(loss, target[i], cost[i], w.margins[static_cast<std::size_t>(s)],
                           chunk.curvature[static_cast<std::size_t>(row_of(s))], 1.0, &alpha[i]);
      }
      scatter(chunk, order, wave, count, w.scales, v, bias_value, false);
      continue;
    }
    if (options.hot == HotColumns::GaussSeidel) {
      // Phase 2: row after row, the hot part of the margin against the current hot
      // weights, the step (hot curvature exact), the hot weights updated at once.
      for (std::int64_t s = 0; s < count; ++s) {
        const std::int64_t row = row_of(s);
        const std::size_t i = index_of(s);
        if (!(cost[i] > 0.0)) continue;
        double margin = w.margins[static_cast<std::size_t>(s)];
        for_hot(chunk, row, bias_value, [&](int, std::size_t col, double value) {
          margin += v[col] * value;
          ++last_gpu_model_stats.hot_nonzeros;
        });
        const double curvature = chunk.curvature[static_cast<std::size_t>(row)] + chunk.hot_norm[static_cast<std::size_t>(row)];
        const double scale = cuda::row_step(loss, target[i], cost[i], margin, curvature, 1.0, &alpha[i]);
        w.scales[static_cast<std::size_t>(s)] = scale;
        if (scale != 0.0) for_hot(chunk, row, bias_value, [&](int, std::size_t col, double value) { v[col] += scale * value; });
      }
      scatter(chunk, order, wave, count, w.scales, v, bias_value, true);  // phase 3: the cold columns
      continue;
    }
    // Coupled: the wave's joint step on the hot weights. Row i's step depends on the
    // hot weights' change D through its margin m_i + x_i^hot . D; the wave's exact step
    // is the D with D = sum_i c_i delta_i(D) x_i^hot, the minimiser of the strongly
    // convex Phi(D) = |D|^2/2 + sum_i g_i(m_i + x_i^hot . D), g_i the row's sub-problem
    // value (its conjugate). Newton's method with backtracking on Phi.
    const int k = chunk.n_hot;
    for (std::int64_t s = 0; s < count; ++s)  // the hot part of the margins against the wave's v
      for_hot(chunk, row_of(s), bias_value, [&](int, std::size_t col, double value) {
        w.margins[static_cast<std::size_t>(s)] += v[col] * value;
      });
    w.delta.assign(static_cast<std::size_t>(k), 0.0);
    w.alphas.assign(static_cast<std::size_t>(count), 0.0);
    // Phi at D (and, when `derivatives`, its gradient and Hessian); alphas receive the steps.
    auto evaluate = [&](const std::vector<double>& d, bool derivatives) {
      ++last_gpu_model_stats.newton_iterations;
      double phi = 0.0;
      for (int h = 0; h < k; ++h) phi += 0.5 * d[h] * d[h];
      if (derivatives) {
        w.gradient = d;
        w.hessian.assign(static_cast<std::size_t>(k) * k, 0.0);
        for (int h = 0; h < k; ++h) w.hessian[h * k + h] = 1.0;
      }
      for (std::int64_t s = 0; s < count; ++s) {
        const std::int64_t row = row_of(s);
        const std::size_t i = index_of(s);
        if (!(cost[i] > 0.0)) continue;
        double shift = 0.0;
        for_hot(chunk, row, bias_value, [&](int h, std::size_t, double value) { shift += d[h] * value; });
        const double margin = w.margins[static_cast<std::size_t>(s)] + shift;
        const double q = chunk.curvature[static_cast<std::size_t>(row)] +
                         options.hot_proximal * chunk.hot_norm[static_cast<std::size_t>(row)];
        double a = alpha[i];
        cuda::row_step(loss, target[i], cost[i], margin, q, 1.0, &a);
        w.alphas[static_cast<std::size_t>(s)] = a;
        const double step = a - alpha[i];
        const double c = Loss::coefficient(target[i]);
        phi += loss.dual_value(target[i], a, cost[i]) - loss.dual_value(target[i], alpha[i], cost[i]) -
               step * c * margin - 0.5 * q * step * step;
        if (!derivatives) continue;
        bool flat = false;
        const double hd = dual_curvature(loss, a, cost[i], &flat);
        const double weight = flat ? 0.0 : c * c / (q + hd);
        for_hot(chunk, row, bias_value, [&](int h, std::size_t, double value) {
          w.gradient[h] -= c * step * value;
          ++last_gpu_model_stats.hot_nonzeros;
        });
        if (weight > 0.0 && std::isfinite(weight))
          for_hot(chunk, row, bias_value, [&](int h, std::size_t, double value) {
            for_hot(chunk, row, bias_value, [&](int g, std::size_t, double other) {
              w.hessian[h * k + g] += weight * value * other;
            });
          });
      }
      return phi;
    };
    double phi = evaluate(w.delta, true);
    for (int iteration = 0; iteration < options.max_newton; ++iteration) {
      double norm = 0.0, scale = 1.0;
      for (int h = 0; h < k; ++h) {
        norm = std::max(norm, std::fabs(w.gradient[h]));
        scale = std::max(scale, std::fabs(w.delta[h]));
      }
      if (norm <= 1e-6 * scale) break;
      w.direction = w.gradient;
      double slope = 0.0;
      cholesky_solve(w.hessian, w.direction, k);
      for (int h = 0; h < k; ++h) slope += w.gradient[h] * w.direction[h];
      double t = 1.0;
      double trial_phi = 0.0;
      for (int tries = 0; tries < 30; ++tries, t *= 0.5) {
        w.trial = w.delta;
        for (int h = 0; h < k; ++h) w.trial[h] -= t * w.direction[h];
        trial_phi = evaluate(w.trial, false);
        if (trial_phi <= phi - 1e-4 * t * slope) break;
      }
      w.delta = w.trial;
      phi = evaluate(w.delta, true);
    }
    // The steps at the final D, then every column's update (hot ones included).
    evaluate(w.delta, false);
    for (std::int64_t s = 0; s < count; ++s) {
      const std::size_t i = index_of(s);
      if (!(cost[i] > 0.0) || w.alphas[static_cast<std::size_t>(s)] == alpha[i]) continue;
      w.scales[static_cast<std::size_t>(s)] = (w.alphas[static_cast<std::size_t>(s)] - alpha[i]) * Loss::coefficient(target[i]);
      alpha[i] = w.alphas[static_cast<std::size_t>(s)];
    }
    scatter(chunk, order, wave, count, w.scales, v, bias_value, false);
  }
}

}  // namespace

GpuModelStats last_gpu_model_stats;

FitResult fit_gpu_model(const Dataset& data, const SolverParameters& parameters, const GpuModelOptions& options,
                        SolverState& state) {
  last_gpu_model_stats = {};
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
    std::vector<unsigned char> hot_mask(static_cast<std::size_t>(chunk.x.n_features), 0);
    if (options.hot != HotColumns::None) {
      // Hot: the columns whose ESO factor at tau exceeds hot_factor, the densest
      // max_hot of them (less one for the intercept, always hot).
      std::vector<std::int32_t> hot;
      for (std::int32_t j = 0; j < chunk.x.n_features; ++j)
        if (cuda::is_hot_column(counts[static_cast<std::size_t>(j)], tau, chunk.x.n_rows, options.hot_factor))
          hot.push_back(j);
      std::stable_sort(hot.begin(), hot.end(), [&](std::int32_t a, std::int32_t b) { return counts[a] > counts[b]; });
      const std::size_t room = static_cast<std::size_t>(std::max(0, options.max_hot - (bias_value != 0.0 ? 1 : 0)));
      if (hot.size() > room) hot.resize(room);
      chunk.hot_index.assign(static_cast<std::size_t>(chunk.x.n_features), -1);
      for (std::size_t h = 0; h < hot.size(); ++h) {
        chunk.hot_index[static_cast<std::size_t>(hot[h])] = static_cast<int>(h);
        hot_mask[static_cast<std::size_t>(hot[h])] = 1;
      }
      chunk.n_hot = static_cast<int>(hot.size()) + (bias_value != 0.0 ? 1 : 0);
      if (c == 0) last_gpu_model_stats.hot_columns = chunk.n_hot;
    }
    for (std::int64_t row = 0; row < chunk.x.n_rows; ++row) {
      const auto i = static_cast<std::size_t>(first + row);
      target[i] = targets.target(chunk.x.labels[row]);
      cost[i] = targets.cost(target[i], chunk.x.weight(row));
      if (options.hot == HotColumns::None) {
        chunk.curvature.push_back(cuda::row_curvature(chunk.x, row, counts.data(), bias_value, tau, options.curvature));
        continue;
      }
      double hot_norm = 0.0;
      chunk.curvature.push_back(
          cuda::row_cold_curvature(chunk.x, row, counts.data(), hot_mask.data(), bias_value, tau, &hot_norm));
      chunk.hot_norm.push_back(hot_norm);
    }
    first += chunk.x.n_rows;
    chunks.push_back(std::move(chunk));
  }

  FitResult result;
  InMemorySource source(data);
  WaveScratch scratch;
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
    // The solver's schedule of certificates and of the logistic Newton tolerance.
    CertificateSchedule schedule(parameters.tol, static_cast<double>(alpha.size()), parameters.C,
                                 parameters.max_epochs);
    while (result.epochs < parameters.max_epochs) {
      if constexpr (std::is_same_v<decltype(loss), losses::LogisticLoss>)
        loss.newton_tolerance = schedule.newton_tolerance(result.epochs);
      const auto epoch = static_cast<std::uint64_t>(result.epochs);
      const cuda::FeistelPermutation chunk_order(chunks.size(),
                                                 cuda::permutation_key(parameters.seed, 0, epoch, kChunkOrderKey));
      for (std::uint64_t position = 0; position < chunks.size(); ++position) {
        const std::uint64_t c = chunk_order(position);
        const ChunkRows& chunk = chunks[c];
        const cuda::FeistelPermutation rows(static_cast<std::uint64_t>(chunk.x.n_rows),
                                            cuda::permutation_key(parameters.seed, 0, epoch, c));
        chunk_epoch(loss, chunk, target, cost, alpha, v, bias_value, rows, options, scratch);
      }
      ++result.epochs;
      if (!schedule.due(result.epochs)) continue;
      const ObjectiveSums sums = objective_sums(source, parameters, v.data(), n_features, alpha.data(), 2);
      const Objectives objectives = combine(sums, v.data(), static_cast<std::int64_t>(v.size()));
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (record_round(result, objectives, seconds, parameters)) break;
      if (!std::isfinite(objectives.dual) || !std::isfinite(objectives.primal)) break;  // diverged
      schedule.record(result.epochs, objectives);
    }
  });
  state.weights = v;
  state.alpha = alpha;
  return result;
}

}  // namespace snapml::testing
