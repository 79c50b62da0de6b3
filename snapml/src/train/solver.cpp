// What every solver shares outside its own loop: the parameter checks and the
// warm-start rule (solver.h).
#include "snapml/solver.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "snapml/error.h"

namespace snapml {

void validate(const SolverParameters& p) {
  require(is_listed_loss(p.loss), "unknown loss kind " + std::to_string(static_cast<int>(p.loss)) +
                                      "; the losses are " + loss_names_text());
  require(std::isfinite(p.C) && p.C > 0.0 && p.C <= kMaxCost,
          [&] { return "C must be a number in (0, " + number_text(kMaxCost) + "], got " + number_text(p.C); });
  require(std::isfinite(p.class_weight_positive) && p.class_weight_positive >= 0.0 &&
              std::isfinite(p.class_weight_negative) && p.class_weight_negative >= 0.0,
          "class weights must be finite and non-negative");
  require(p.class_weight_positive > 0.0 || p.class_weight_negative > 0.0,
          "class weights: at least one class needs a weight above 0 (with every weight 0 nothing is fitted)");
  require(p.C * std::max(p.class_weight_positive, p.class_weight_negative) <= kMaxCost, [&] {
    return "C times a class weight must be at most " + number_text(kMaxCost) + ", got C " + number_text(p.C) +
           " and class weights " + number_text(p.class_weight_positive) + ", " + number_text(p.class_weight_negative);
  });
  require(std::isfinite(p.epsilon) && p.epsilon >= 0.0,
          [&] { return "epsilon must be non-negative, got " + number_text(p.epsilon); });
  require(std::isfinite(p.intercept_scaling) && p.intercept_scaling >= 0.0 &&
              p.intercept_scaling <= kMaxInterceptScaling,
          [&] {
            return "intercept_scaling must be in [0, " + number_text(kMaxInterceptScaling) + "] (0: no intercept), got " +
                   number_text(p.intercept_scaling);
          });
  require(std::isfinite(p.tol) && p.tol > 0.0, [&] { return "tol must be positive, got " + number_text(p.tol); });
  require(p.max_epochs > 0, "max_iter must be at least 1, got " + std::to_string(p.max_epochs));
  require(p.local_epochs > 0, "local_epochs must be at least 1, got " + std::to_string(p.local_epochs));
  require(p.threads >= 0, "threads must be >= 0 (0: all), got " + std::to_string(p.threads));
  // Penalty none has no dual coordinate ascent solver: the primal Newton solver
  // trains it. A free intercept (whose dual has an equality constraint) trains by
  // either, with a smooth scalar loss (snapml/src/dual/free_intercept.h).
  const bool free_intercept = !p.penalise_intercept && p.intercept_scaling != 0.0;
  const std::string primal_only = p.penalty == Penalty::None ? "penalty none"
                                  : free_intercept && (p.solver != SolverChoice::Dual || loss_is_per_class(p.loss))
                                      ? "a free (unpenalised) intercept"
                                      : "";
  if (p.penalty == Penalty::L2 && free_intercept && p.solver == SolverChoice::Dual)
    require(primal_solver_supports(p.loss) && !loss_is_per_class(p.loss),
            "a free (unpenalised) intercept trains by dual coordinate ascent with a smooth loss only; the " +
                std::string(loss_name(p.loss)) + " loss is not one: use " + loss_names_text(primal_solver_supports) +
                ", or penalise the intercept");
  // Penalty l1 with the multinomial loss: orthant-wise L-BFGS in the primal solver
  // (snapml/src/primal/orthant_steps.cpp), the intercepts free or penalised.
  const bool multinomial_l1 = p.penalty == Penalty::L1 && loss_is_per_class(p.loss);
  if (multinomial_l1) {
    require(p.solver != SolverChoice::CoordinateDescent && p.solver != SolverChoice::Dual,
            std::string("penalty l1 with the multinomial loss trains by the primal solver (orthant-wise L-BFGS); "
                        "drop solver ") + solver_choice_name(p.solver));
    require(std::isfinite(p.l1_ratio) && p.l1_ratio > 0.0 && p.l1_ratio <= 1.0,
            "l1_ratio must be in (0, 1] with penalty l1, got " + std::to_string(p.l1_ratio));
  } else if (p.penalty == Penalty::L1) {
    // A free intercept: newGLMNET's unpenalised coordinate (glmnet_cpu.cpp); plain
    // coordinate descent keeps LIBLINEAR's penalised one.
    if (free_intercept)
      require(glmnet_supports(p.loss) && p.solver != SolverChoice::CoordinateDescent,
              "penalty l1 with a free (unpenalised) intercept trains by newGLMNET, with the " +
                  loss_names_text(glmnet_supports) + " loss and not solver cd; penalise the intercept (" +
                  loss_name(p.loss) + ", solver cd) or use penalty l2 or none");
  } else if (!primal_only.empty() || p.solver == SolverChoice::Primal) {
    const std::string what = primal_only.empty() ? "solver primal" : primal_only;
    require(primal_solver_supports(p.loss),
            what + " trains by the primal Newton solver, which needs a loss with a Lipschitz derivative; the " +
                loss_name(p.loss) + " loss is not one: use " + loss_names_text(primal_solver_supports) +
                ", or solver dual with penalty l2 and the intercept penalised");
    require(p.solver != SolverChoice::Dual, what + " has no dual coordinate ascent solver; use solver primal or auto");
  }
  if (p.penalty == Penalty::L1 && !multinomial_l1) {
    require(l1_penalty_supports(p.loss), std::string("penalty l1 is not available with the ") + loss_name(p.loss) +
                                             " loss; use penalty l2, or a loss penalty l1 takes: " +
                                             loss_names_text(l1_penalty_supports));
    require(p.loss != LossKind::Squared || p.epsilon == 0.0,
            "penalty l1 with the squared loss is the lasso, which has no insensitive zone; pass "
            "epsilon 0 (got " + std::to_string(p.epsilon) + ") or use penalty l2 for support vector regression");
    require(std::isfinite(p.l1_ratio) && p.l1_ratio >= 0.0 && p.l1_ratio <= 1.0,
            "l1_ratio must be in [0, 1], got " + std::to_string(p.l1_ratio));
    if (p.l1_ratio < 1.0) {
      require(glmnet_supports(p.loss), std::string("the elastic net (l1_ratio < 1) is not available with the ") +
                                           loss_name(p.loss) + " loss; use " + loss_names_text(glmnet_supports) +
                                           ", or l1_ratio 1");
      require(p.solver != SolverChoice::CoordinateDescent,
              "solver cd is plain L1 coordinate descent; the elastic net (l1_ratio < 1) trains by newGLMNET: "
              "drop solver cd");
    }
  } else if (!multinomial_l1) {
    require(p.l1_ratio == 1.0, "l1_ratio applies to penalty l1 (the elastic net) only; drop it or use penalty l1");
    require(p.solver != SolverChoice::CoordinateDescent,
            "solver cd is coordinate descent for penalty l1; use dual, primal or auto with penalty " +
                std::string(penalty_name(p.penalty)));
  }
}

const char* solver_choice_name(SolverChoice choice) {
  switch (choice) {
    case SolverChoice::Primal: return "primal";
    case SolverChoice::Auto: return "auto";
    case SolverChoice::CoordinateDescent: return "cd";
    default: return "dual";
  }
}

SolverChoice solver_choice_from_name(const std::string& name) {
  for (SolverChoice c : {SolverChoice::Dual, SolverChoice::Primal, SolverChoice::Auto, SolverChoice::CoordinateDescent})
    if (name == solver_choice_name(c)) return c;
  throw InvalidArgument("unknown solver '" + name + "': use dual, primal, auto or cd (penalty l1 only)");
}

bool primal_solver_supports(LossKind kind) { return loss_is_primal(kind); }

StartFrom warm_start_from(SolverState& state, std::int64_t n_rows, std::int32_t n_features) {
  if (!state.alpha.empty()) {
    require(static_cast<std::int64_t>(state.alpha.size()) == n_rows,
            "warm start: alpha has " + std::to_string(state.alpha.size()) + " entries for " +
                std::to_string(n_rows) + " rows; pass one per row of this rank's data");
    return StartFrom::Alpha;
  }
  if (state.weights.empty()) return StartFrom::Cold;
  const std::size_t size = state.weights.size();
  require(size == static_cast<std::size_t>(n_features) || size == static_cast<std::size_t>(n_features) + 1,
          "warm start: weights have " + std::to_string(size) + " entries; pass n_features (" +
              std::to_string(n_features) + ") or n_features + 1 (with the intercept's weight)");
  state.weights.resize(static_cast<std::size_t>(n_features) + 1, 0.0);
  return StartFrom::Weights;
}

}  // namespace snapml
