// The scalar primal losses (logistic, squared hinge, squared) as the primal
// Newton solver's objective (newton_objective.h): one weight vector of
// n_features + 1 entries, the intercept's last; the multinomial loss is
// multinomial_objective.cpp's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "../common/omp_threads.h"
#include "newton_objective.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"
#include "snapml/losses/primal_terms.h"

namespace snapml::detail {
namespace {

// The scalar primal losses (logistic, squared hinge, squared): one weight vector
// of n_features + 1 entries, the intercept's last.
class ScalarObjective final : public NewtonObjective {
 public:
  ScalarObjective(MatrixOperations& operations, const SolverParameters& parameters, int threads)
      : operations_(operations), parameters_(parameters), threads_(threads), n_rows_(operations.n_rows()) {
    const auto rows = static_cast<std::size_t>(n_rows_);
    targets_.assign(rows, 0.0);
    costs_.assign(rows, 0.0);
    operations_.rows(targets_.data(), costs_.data());
    const RowTargets row_targets = RowTargets::from(parameters_);
    for (std::size_t i = 0; i < rows; ++i) {
      targets_[i] = row_targets.target(targets_[i]);
      costs_[i] = row_targets.cost(targets_[i], static_cast<float>(costs_[i]));
    }
    derivatives_.assign(rows, 0.0);
    curvatures_.assign(rows, 0.0);
  }

  std::size_t width() const override { return operations_.n_weights(); }
  std::size_t intercept_count() const override { return 1; }
  std::size_t margins_size() const override { return static_cast<std::size_t>(n_rows_); }

  std::vector<double> start(SolverState& state, Communicator& communicator) override {
    // Warm start: w(alpha) from given dual variables, or the given weights.
    const auto n_features = static_cast<std::int32_t>(width() - 1);
    const StartFrom start = warm_start_from(state, n_rows_, n_features);
    if (start == StartFrom::Alpha) {
      for_loss([&](const auto& loss) {
        for (std::size_t i = 0; i < derivatives_.size(); ++i)
          derivatives_[i] = costs_[i] > 0.0 ? state.alpha[i] * loss.coefficient(targets_[i]) : 0.0;
      });
      state.weights.assign(width(), 0.0);
      operations_.transpose_times(derivatives_.data(), state.weights.data());
      communicator.allreduce_sum(state.weights.data(), width());
    } else if (start == StartFrom::Cold) {
      state.weights.assign(width(), 0.0);
    }
    return state.weights;
  }

  double loss_sum(const std::vector<double>& w, std::vector<double>& margins) override {
    operations_.margins(w.data(), margins.data());
    double sum = 0.0;
    for_loss([&](const auto& loss) {
      sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        return costs_[k] > 0.0 ? costs_[k] * loss.loss(targets_[k], margins[k]) : 0.0;
      });
    });
    return sum;
  }

  void margins(const std::vector<double>& v, std::vector<double>& out) override {
    operations_.margins(v.data(), out.data());
  }

  detail::LineValues along_line(const std::vector<double>& m, const std::vector<double>& u, double t) override {
    detail::LineValues sum;
    for_loss([&](const auto& loss) {
      sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        detail::LineValues values;
        if (!(costs_[k] > 0.0)) return values;
        const losses::PrimalTerms terms = losses::primal_terms(loss, targets_[k], m[k] + t * u[k]);
        values.value = costs_[k] * terms.value;
        values.slope = costs_[k] * terms.derivative * u[k];
        values.curvature = costs_[k] * terms.curvature * u[k] * u[k];
        return values;
      });
    });
    return sum;
  }

  double gradient(const std::vector<double>& margins, double* g) override {
    double dual_sum = 0.0;
    for_loss([&](const auto& loss) {
      dual_sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        const double cost = costs_[k];
        if (!(cost > 0.0)) {
          derivatives_[k] = curvatures_[k] = 0.0;
          return 0.0;
        }
        const double y = targets_[k];
        const losses::PrimalTerms terms = losses::primal_terms(loss, y, margins[k]);
        derivatives_[k] = cost * terms.derivative;
        curvatures_[k] = cost * terms.curvature;
        // The paired dual point: alpha_i c(y_i) = -C_i loss'(m_i), c(y) = +-1 or 1.
        return losses::paired_dual_value(loss, y, margins[k], cost, terms);
      });
    });
    operations_.transpose_times(derivatives_.data(), g);
    return dual_sum;
  }

  void hessian_product(const std::vector<double>& v, double* out) override {
    operations_.hessian_product(curvatures_.data(), v.data(), out);
  }

  void hessian_diagonal(double* out) override { operations_.hessian_diagonal(curvatures_.data(), out); }

  void hessian_matrix(double* out) override { operations_.hessian_matrix(curvatures_.data(), out); }

  void hessian_block(const std::int32_t* position, int size, double* out) override {
    operations_.hessian_block(curvatures_.data(), position, size, out);
  }

  bool repairs_dual() const override { return true; }

  void dual_sides(double* sides) override {
    const bool classification = is_classification(parameters_.loss);
    sides[0] = sides[1] = sides[2] = 0.0;
    for_loss([&](const auto& loss) {
      for (std::size_t i = 0; i < targets_.size(); ++i) {
        if (!(costs_[i] > 0.0)) continue;
        sides[classification && targets_[i] < 0.0 ? 1 : 0] += alpha(loss, i);
        sides[2] += 1.0;
      }
    });
  }

  double feasible_dual(const double* sides, double* moved) override {
    const bool classification = is_classification(parameters_.loss);
    const DualRepair repair = dual_repair(classification, sides[0], sides[1], sides[2]);
    moves_.assign(targets_.size(), 0.0);  // delta_i c(y_i)
    double dual_sum = 0.0;
    for_loss([&](const auto& loss) {
      dual_sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t row) {
        const auto i = static_cast<std::size_t>(row);
        if (!(costs_[i] > 0.0)) return 0.0;
        const double a = alpha(loss, i);
        double delta = repair.shift;
        if (classification) delta = (targets_[i] < 0.0 ? 1 : 0) == repair.heavy_side ? -repair.shrink * a : 0.0;
        moves_[i] = delta * loss.coefficient(targets_[i]);
        return loss.dual_value(targets_[i], a + delta, costs_[i]);
      });
    });
    if (repair.moves())
      operations_.transpose_times(moves_.data(), moved);
    else
      std::fill(moved, moved + width(), 0.0);
    return dual_sum;
  }

  void finish(const std::vector<double>& w, SolverState& state) override {
    state.weights = w;
    // The dual point paired with the final w, one per row (SolverState's contract).
    state.alpha.assign(static_cast<std::size_t>(n_rows_), 0.0);
    for_loss([&](const auto& loss) {
      for (std::size_t i = 0; i < state.alpha.size(); ++i)
        state.alpha[i] = alpha(loss, i);
    });
  }

 private:
  // The paired dual point's alpha_i = -C_i loss'(m_i) c(y_i) at the last gradient().
  template <typename Loss>
  double alpha(const Loss& loss, std::size_t i) const {
    return -derivatives_[i] * loss.coefficient(targets_[i]);
  }

  template <typename Function>
  void for_loss(const Function& function) const {
    // Instantiated for the primal losses only; the solver's constructor refused the others.
    with_loss(parameters_.loss, parameters_.epsilon, 0.0, [&](const auto& loss) {
      if constexpr (losses::is_primal_loss<std::decay_t<decltype(loss)>>::value)
        function(loss);
      else
        throw InvalidArgument(std::string("the ") + loss_name(parameters_.loss) + " loss is not a primal loss");
    });
  }

  MatrixOperations& operations_;
  const SolverParameters& parameters_;
  int threads_;
  std::int64_t n_rows_;
  std::vector<double> targets_;      // y_i: +-1, or the regression target
  std::vector<double> costs_;        // C_i; 0 for a row absent from the problem
  std::vector<double> derivatives_;  // C_i loss'(m_i) at the last gradient()
  std::vector<double> curvatures_;   // C_i loss''(m_i) at the last gradient()
  std::vector<double> moves_;        // delta_i c(y_i) of feasible_dual's repair
};

}  // namespace

std::unique_ptr<NewtonObjective> make_scalar_objective(MatrixOperations& operations, const SolverParameters& parameters,
                                                       int threads) {
  return std::make_unique<ScalarObjective>(operations, parameters, threads);
}

}  // namespace snapml::detail
