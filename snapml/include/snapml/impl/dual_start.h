// Where one row's dual variable starts (solver.h's StartFrom), written once for
// the CPU and GPU solvers: a given alpha clipped to the row's feasible interval,
// the alpha the optimality conditions pair with the margin of given weights
// (a warm start from w), or the loss's cold start.
#pragma once

#include "snapml/host_device.h"
#include "snapml/losses/common.h"
#include "snapml/solver.h"

namespace snapml {

// `given_alpha` is read with StartFrom::Alpha, `margin` (w.x_i with the start
// weights, intercept included) with StartFrom::Weights.
template <typename Loss>
SNAPML_HOST_DEVICE SNAPML_INLINE double starting_alpha(const Loss& loss, StartFrom start, double given_alpha,
                                                       double margin, double y, double cost) {
  if (start == StartFrom::Alpha) {
    const losses::DualInterval interval = loss.interval(cost);
    return losses::clamp_to(given_alpha, interval.lower, interval.upper);
  }
  if (start == StartFrom::Weights) return loss.alpha_from_margin(y, margin, cost);
  return loss.initial_alpha(cost);
}

}  // namespace snapml
