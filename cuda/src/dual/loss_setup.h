// How the GPU dual solver's host side names a loss to its kernels: the pair of
// losses the schedule works with (hybrid_backend.h, with_schedule_losses: the loss
// certified and the one the steps take, the hinge's smoothing for the hinge) as
// plain data, and the one dispatch that rebuilds the pair inside a .cu file. The
// kernels are templates over the loss structs (snapml/losses/), so each launcher
// instantiates its kernel for the four pairs.
#pragma once

#include <type_traits>

#include "snapml/losses/dispatch.h"
#include "snapml/losses/smoothed_hinge.h"

namespace snapml::cuda::dual {

struct LossSetup {
  LossKind kind = LossKind::Logistic;
  double epsilon = 0.0;             // squared loss
  double newton_tolerance = 1e-11;  // logistic
  double gamma = 0.0;               // hinge: the smoothing of its steps (0: the hinge itself)
};

// The setup of a stepping loss (the second of with_schedule_losses's pair).
inline LossSetup setup_of(const losses::LogisticLoss& loss) { return {LossKind::Logistic, 0.0, loss.newton_tolerance, 0.0}; }
inline LossSetup setup_of(const losses::SmoothedHingeLoss& loss) { return {LossKind::Hinge, 0.0, 1e-11, loss.gamma}; }
inline LossSetup setup_of(const losses::HingeLoss&) { return {LossKind::Hinge, 0.0, 1e-11, 0.0}; }
inline LossSetup setup_of(const losses::SquaredHingeLoss&) { return {LossKind::SquaredHinge, 0.0, 1e-11, 0.0}; }
inline LossSetup setup_of(const losses::SquaredLoss& loss) { return {LossKind::Squared, loss.epsilon, 1e-11, 0.0}; }

// The setup of a fit's loss before its steps start (the hinge's smoothing at
// ScheduleSettings' initial gamma is the backend's; the kernels sized and started
// here read only the certified loss and the block size).
inline LossSetup setup_of_kind(LossKind kind, double epsilon) { return {kind, epsilon, 1e-11, 1.0}; }

// Calls f(certified, stepping) for the setup: the pair with_schedule_losses gives.
template <typename F>
void with_setup(const LossSetup& setup, F&& f) {
  switch (setup.kind) {
    case LossKind::Logistic: {
      losses::LogisticLoss loss;
      loss.newton_tolerance = setup.newton_tolerance;
      f(loss, loss);
      return;
    }
    case LossKind::Hinge:
      f(losses::HingeLoss{}, losses::SmoothedHingeLoss{setup.gamma});
      return;
    case LossKind::SquaredHinge:
      f(losses::SquaredHingeLoss{}, losses::SquaredHingeLoss{});
      return;
    case LossKind::Squared:
      f(losses::SquaredLoss{setup.epsilon}, losses::SquaredLoss{setup.epsilon});
      return;
    default:
      throw InvalidArgument(std::string("the GPU dual solver has no ") + loss_name(setup.kind) + " loss");
  }
}

}  // namespace snapml::cuda::dual
