// The GPU dual solver's certificate recomputed on the host, in double, from what a
// fit returned: P(w) over the rows at the returned w, and D(alpha) with w(alpha)
// rebuilt from the returned alpha. The solver's hot weights are primal variables,
// so w is not w(alpha) (docs/gpu.md, "Schedule"); weak duality makes P(w) - D(alpha)
// a certificate all the same, and a wrong gap on the device cannot pass it.
#pragma once

#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/dataset.h"
#include "snapml/impl/objectives.h"
#include "snapml/losses/dispatch.h"
#include "snapml/solver.h"

namespace snapml::testing {

// w(alpha) = sum_i alpha_i coefficient(y_i) x_i (+ the constant feature).
inline std::vector<double> weights_of_alpha(const Dataset& data, const SolverParameters& p,
                                            const std::vector<double>& alpha) {
  const RowTargets targets = RowTargets::from(p);
  std::vector<double> w(static_cast<std::size_t>(data.n_features()) + 1, 0.0);
  std::size_t i = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    for (std::int64_t row = 0; row < x.n_rows; ++row, ++i) {
      const double y = targets.target(x.labels[row]);
      if (!(targets.cost(y, x.weight(row)) > 0.0)) continue;
      const double scale = alpha[i] * (is_classification(p.loss) ? y : 1.0);
      for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k)
        w[static_cast<std::size_t>(x.col_indices[k])] += scale * x.values[k];
      w.back() += scale * p.intercept_scaling;
    }
  }
  return w;
}

inline Objectives host_certificate(const Dataset& data, const SolverParameters& p, const SolverState& state) {
  InMemorySource source(data);
  const std::int32_t n = data.n_features();
  const ObjectiveSums sums = objective_sums(source, p, state.weights.data(), n, state.alpha.data(), 1);
  const std::vector<double> rebuilt = weights_of_alpha(data, p, state.alpha);
  Objectives objectives;
  objectives.primal = combine(sums, state.weights.data(), n + 1).primal;
  objectives.dual = combine(sums, rebuilt.data(), n + 1).dual;
  objectives.gap = objectives.primal - objectives.dual;
  return objectives;
}

}  // namespace snapml::testing
