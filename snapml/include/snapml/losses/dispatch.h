// The loss kinds and the one switch that turns a run-time kind into a loss type.
//
// Solvers are templates over the loss struct so that the inner loop has no
// virtual call; this is the only place that maps the enum to the structs.
#pragma once

#include <string>

#include "snapml/losses/hinge.h"
#include "snapml/losses/logistic.h"
#include "snapml/losses/squared.h"
#include "snapml/losses/squared_hinge.h"

namespace snapml {

enum class LossKind { Logistic, Hinge, SquaredHinge, Squared };

inline bool is_classification(LossKind kind) { return kind != LossKind::Squared; }

// "logistic", "hinge", "squared_hinge", "squared": the names of model files and
// of the Python and command-line surfaces.
const char* loss_name(LossKind kind);
// Inverse of loss_name; throws InvalidArgument naming the accepted names.
LossKind loss_from_name(const std::string& name);

// Calls `function(loss)` with the struct of `kind`, parameterised by `epsilon`
// (squared loss) and `newton_tolerance` (logistic).
template <typename Function>
decltype(auto) with_loss(LossKind kind, double epsilon, double newton_tolerance,
                         Function&& function) {
  switch (kind) {
    case LossKind::Hinge: return function(losses::HingeLoss{});
    case LossKind::SquaredHinge: return function(losses::SquaredHingeLoss{});
    case LossKind::Squared: return function(losses::SquaredLoss{epsilon});
    case LossKind::Logistic:
    default: {
      losses::LogisticLoss logistic;
      logistic.newton_tolerance = newton_tolerance;
      return function(logistic);
    }
  }
}

}  // namespace snapml
