// Primal, dual and duality gap: the one implementation every solver reports.
// Everything is summed in double whatever the data's precision.
#include "snapml/objectives.h"

#include "omp_threads.h"

namespace snapml {
namespace {

template <typename Loss>
ObjectiveSums sums_for(const Loss& loss, ChunkSource& source, const RowTargets& targets,
                       const double* weights, std::int32_t n_features, double bias_value,
                       const double* alpha, [[maybe_unused]] int threads) {
  const double bias_weight = weights[n_features];
  ObjectiveSums total;
  std::int64_t row_offset = 0;  // alpha is indexed in visiting order, not by first_row
  CsrView x;
  source.reset();
  while (source.next(x)) {
    double loss_sum = 0.0;
    double dual_sum = 0.0;
    const double* chunk_alpha = alpha ? alpha + row_offset : nullptr;
SNAPML_OMP(parallel for num_threads(threads) schedule(static) reduction(+ : loss_sum, dual_sum))
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double y = targets.target(x.labels[row]);
      const double cost = targets.cost(y, x.weight(row));
      if (!(cost > 0.0)) continue;  // a zero-cost row is absent from both problems
      const double margin = row_dot(x, row, weights) + bias_value * bias_weight;
      loss_sum += cost * loss.loss(y, margin);
      if (chunk_alpha) dual_sum += loss.dual_value(y, chunk_alpha[row], cost);
    }
    total.loss += loss_sum;
    total.dual += dual_sum;
    row_offset += x.n_rows;
  }
  return total;
}

}  // namespace

ObjectiveSums objective_sums(ChunkSource& source, const SolverParameters& parameters,
                             const double* weights, std::int32_t n_features, const double* alpha,
                             int threads) {
  const RowTargets targets = RowTargets::from(parameters);
  const int team = detail::resolve_threads(threads);
  return with_loss(parameters.loss, parameters.epsilon, 0.0, [&](const auto& loss) {
    return sums_for(loss, source, targets, weights, n_features, parameters.intercept_scaling,
                    alpha, team);
  });
}

Objectives combine(const ObjectiveSums& sums, const double* weights, std::int64_t size) {
  double squared_norm = 0.0;
  for (std::int64_t j = 0; j < size; ++j) squared_norm += weights[j] * weights[j];
  Objectives result;
  result.primal = sums.loss + 0.5 * squared_norm;
  result.dual = sums.dual - 0.5 * squared_norm;
  result.gap = result.primal - result.dual;
  return result;
}

double primal_objective(ChunkSource& source, const SolverParameters& parameters,
                        const double* weights, std::int32_t n_features) {
  const ObjectiveSums sums = objective_sums(source, parameters, weights, n_features, nullptr, 1);
  return combine(sums, weights, static_cast<std::int64_t>(n_features) + 1).primal;
}

}  // namespace snapml
