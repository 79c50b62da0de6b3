#include "snapml/impl/warm_start_certificate.h"

#include <type_traits>
#include <vector>

#include "snapml/losses/dispatch.h"

namespace snapml {

std::optional<Objectives> certify_warm_pair(ChunkSource& source, Communicator& communicator,
                                            const SolverParameters& parameters, std::int32_t n_features,
                                            const SolverState& state, int threads) {
  const auto weight_count = static_cast<std::size_t>(n_features) + 1;
  // A free intercept is outside the penalty (free_intercept.h): not this certificate.
  if (parameters.intercept_scaling != 0.0 && !parameters.penalise_intercept) return std::nullopt;
  double missing = state.weights.size() == weight_count &&
                           state.alpha.size() == static_cast<std::size_t>(source.n_rows()) && source.n_rows() > 0
                       ? 0.0
                       : 1.0;
  communicator.allreduce_sum(&missing, 1);
  if (missing > 0.0) return std::nullopt;

  const ObjectiveSums local = objective_sums(source, parameters, state.weights.data(), n_features,
                                             state.alpha.data(), threads);
  // w(alpha) = sum_i alpha_i coefficient(y_i) x_i, the constant feature last; and
  // whether alpha is feasible for this problem: a start from another C (a path of
  // C) may leave alpha outside its box, where dual_value is no lower bound (the
  // hinge's is alpha itself) and the gap would certify nothing.
  const RowTargets targets = RowTargets::from(parameters);
  std::vector<double> rebuilt(weight_count + 3, 0.0);
  with_loss(parameters.loss, parameters.epsilon, 0.0, [&](const auto& loss) {
    using Loss = std::decay_t<decltype(loss)>;
    std::size_t i = 0;
    source.reset();
    CsrView x;
    while (source.next(x)) {
      for (std::int64_t row = 0; row < x.n_rows; ++row, ++i) {
        const double y = targets.target(x.labels[row]);
        const double cost = targets.cost(y, x.weight(row));
        if (!(cost > 0.0)) continue;
        const double alpha = state.alpha[i];
        const losses::DualInterval box = loss.interval(cost);
        if (!(alpha >= box.lower && alpha <= box.upper)) rebuilt[weight_count + 2] = 1.0;
        const double scale = alpha * Loss::coefficient(y);
        if (scale == 0.0) continue;
        add_scaled_row(x, row, scale, rebuilt.data());
        rebuilt[weight_count - 1] += scale * parameters.intercept_scaling;
      }
    }
  });
  rebuilt[weight_count] = local.loss;
  rebuilt[weight_count + 1] = local.dual;
  communicator.allreduce_sum(rebuilt.data(), rebuilt.size());
  if (rebuilt[weight_count + 2] > 0.0) return std::nullopt;  // some rank's alpha is outside its box
  ObjectiveSums sums;
  sums.loss = rebuilt[weight_count];
  sums.dual = rebuilt[weight_count + 1];
  Objectives objectives;
  objectives.primal = combine(sums, state.weights.data(), static_cast<std::int64_t>(weight_count)).primal;
  objectives.dual = combine(sums, rebuilt.data(), static_cast<std::int64_t>(weight_count)).dual;
  objectives.gap = objectives.primal - objectives.dual;
  return objectives;
}

std::optional<FitResult> resumed_optimum(ChunkSource& source, Communicator& communicator,
                                         const SolverParameters& parameters, std::int32_t n_features,
                                         const SolverState& state, int threads,
                                         std::chrono::steady_clock::time_point started) {
  const std::optional<Objectives> start =
      certify_warm_pair(source, communicator, parameters, n_features, state, threads);
  if (!start || !(start->gap <= parameters.tol * start->primal)) return std::nullopt;
  FitResult result;
  result.epochs = parameters.first_epoch;
  record_round(result, *start, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
               parameters);
  return result;
}

}  // namespace snapml
