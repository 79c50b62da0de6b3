// Small random sparse problems for solver tests, and their dense copies for the
// Eigen references. Deterministic per seed.
#pragma once

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "references.h"
#include "snapml/dataset.h"
#include "snapml/solver.h"

namespace snapml::testing {

struct RandomProblemOptions {
  std::int64_t rows = 200;
  std::int32_t features = 20;
  double density = 0.3;
  std::int64_t chunk_rows = 64;  // several chunks, the last one short
  bool regression = false;
  bool sample_weights = false;
  std::uint64_t seed = 7;
  double positive_label = 1.0;  // classification labels: positive_label / negative_label
  double negative_label = -1.0;
};

// Labels from a planted model with noise, so the problem is neither separable nor
// trivial. Every row has at least one non-zero, except row 3, left empty on purpose.
inline Dataset random_problem(const RandomProblemOptions& o) {
  std::mt19937_64 random(o.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> planted(static_cast<std::size_t>(o.features));
  for (double& v : planted) v = normal(random);
  std::vector<CsrChunk> chunks;
  for (std::int64_t row = 0; row < o.rows; ++row) {
    if (row % o.chunk_rows == 0) chunks.emplace_back();
    std::vector<std::int32_t> indices;
    std::vector<float> values;
    double margin = 0.0;
    for (std::int32_t j = 0; j < o.features && row != 3; ++j) {
      if (uniform(random) >= o.density && !(indices.empty() && j == o.features - 1)) continue;
      indices.push_back(j);
      values.push_back(static_cast<float>(normal(random)));
      margin += values.back() * planted[static_cast<std::size_t>(j)];
    }
    const double noisy = margin + 1.5 * normal(random);
    const double label = o.regression ? noisy
                                      : (noisy > 0.0 ? o.positive_label : o.negative_label);
    CsrChunk& chunk = chunks.back();
    chunk.add_row(label, indices.data(), values.data(), static_cast<std::int64_t>(indices.size()));
    if (o.sample_weights) chunk.weights.push_back(static_cast<float>(0.25 + 2.0 * uniform(random)));
  }
  return Dataset(std::move(chunks), o.features);
}

// random_problem's regression targets cut into three classes 0, 1, 2 at the
// terciles of a planted score, with sample weights (the multinomial tests).
inline Dataset three_classes(std::uint64_t seed = 11) {
  RandomProblemOptions o;
  o.regression = true;
  o.sample_weights = true;
  o.seed = seed;
  const Dataset data = random_problem(o);
  std::vector<CsrChunk> chunks;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    CsrChunk chunk = data.chunk(c);
    for (double& label : chunk.labels) label = label < -1.0 ? 0.0 : (label < 1.0 ? 1.0 : 2.0);
    chunks.push_back(std::move(chunk));
  }
  return Dataset(std::move(chunks), data.n_features());
}

// The chunks of `data` dealt to `ranks` ranks in turn (chunk c to rank c % ranks).
inline std::vector<Dataset> rank_shares(const Dataset& data, int ranks) {
  std::vector<std::vector<CsrChunk>> shares(static_cast<std::size_t>(ranks));
  for (std::size_t c = 0; c < data.n_chunks(); ++c)
    shares[c % static_cast<std::size_t>(ranks)].push_back(data.chunk(c));
  std::vector<Dataset> parts;
  for (auto& share : shares) parts.emplace_back(std::move(share), data.n_features());
  return parts;
}

// Dense rows with a trailing constant column `bias` (0: none).
inline Eigen::MatrixXd dense_rows(const Dataset& data, double bias) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(data.n_rows(), data.n_features() + 1);
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView v = data.view(c);
    for (std::int64_t r = 0; r < v.n_rows; ++r) {
      for (std::int64_t k = v.row_begin(r); k < v.row_end(r); ++k)
        x(v.first_row + r, v.col_indices[k]) = v.values[k];
      x(v.first_row + r, data.n_features()) = bias;
    }
  }
  return x;
}

// Row i's cost C_i = C * class weight * sample weight, for the references.
inline Eigen::VectorXd row_costs(const Dataset& data, double C, double positive_label,
                                 double weight_positive, double weight_negative, bool regression) {
  Eigen::VectorXd costs(data.n_rows());
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView v = data.view(c);
    for (std::int64_t r = 0; r < v.n_rows; ++r) {
      const double class_weight =
          regression || v.labels[r] == positive_label ? weight_positive : weight_negative;
      costs(v.first_row + r) = C * class_weight * v.weight(r);
    }
  }
  return costs;
}

inline Eigen::VectorXd targets(const Dataset& data, double positive_label, bool regression) {
  const std::vector<double> labels = data.labels();
  Eigen::VectorXd y(static_cast<Eigen::Index>(labels.size()));
  for (std::size_t i = 0; i < labels.size(); ++i)
    y(static_cast<Eigen::Index>(i)) = regression ? labels[i] : (labels[i] == positive_label ? 1.0 : -1.0);
  return y;
}

// The dense form of `data` as the solver with parameters `p` sees it.
inline DenseProblem dense(const Dataset& data, const SolverParameters& p) {
  const bool regression = !is_classification(p.loss);
  return {dense_rows(data, p.intercept_scaling), targets(data, p.positive_label, regression),
          row_costs(data, p.C, p.positive_label, p.class_weight_positive, p.class_weight_negative, regression)};
}

inline Eigen::VectorXd as_vector(const std::vector<double>& w) {
  return Eigen::Map<const Eigen::VectorXd>(w.data(), static_cast<Eigen::Index>(w.size()));
}

}  // namespace snapml::testing
