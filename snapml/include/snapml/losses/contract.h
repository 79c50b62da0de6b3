// What a solver needs of a loss struct, checked at compile time.
//
// Every loss carries its identity:
//   kName              the name of model files, the command line and Python
//   kIsClassification  labels are +-1 classes (else regression targets)
//   kDualDimension     dual variables a row: 1 for the scalar losses below,
//                      kOnePerClass for one per class (known at run time)
//   from(LossParameters)  the struct built from the run-time parameters
// and a loss with kDualDimension == 1 the scalar dual members of common.h's
// notation: coefficient(y), loss(y, margin), dual_value(y, alpha, C),
// interval(C), initial_alpha(C), step(y, alpha, margin, sq_norm, C, sigma),
// alpha_from_margin(y, margin, C).
//
// A loss whose dual variable per row is a vector (the multinomial loss: K = the
// number of classes) declares kDualDimension = K, or kOnePerClass when K is the
// data's class count, and the vector form of those members, which is_dual_loss
// does not read. The scalar solvers are not forked
// for it: dispatch.h's with_loss never instantiates a solver body with such a
// loss and throws InvalidArgument naming it instead, so a vector loss can be
// listed before any solver takes it; a solver that does reads the trait.
#pragma once

#include <type_traits>
#include <utility>

#include "snapml/losses/common.h"

namespace snapml::losses {

namespace detail {

template <typename T, typename Expected>
using exactly = std::enable_if_t<std::is_same_v<std::decay_t<T>, Expected>>;

template <typename Loss>
using identity_members = std::void_t<
    exactly<decltype(Loss::kName), const char*>, exactly<decltype(Loss::kIsClassification), bool>,
    exactly<decltype(Loss::kDualDimension), int>,
    exactly<decltype(Loss::from(std::declval<const LossParameters&>())), Loss>>;

template <typename Loss>
using scalar_dual_members = std::void_t<
    exactly<decltype(Loss::coefficient(0.0)), double>,
    exactly<decltype(std::declval<const Loss&>().loss(0.0, 0.0)), double>,
    exactly<decltype(std::declval<const Loss&>().dual_value(0.0, 0.0, 0.0)), double>,
    exactly<decltype(std::declval<const Loss&>().interval(0.0)), DualInterval>,
    exactly<decltype(std::declval<const Loss&>().initial_alpha(0.0)), double>,
    exactly<decltype(std::declval<const Loss&>().step(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)), double>,
    exactly<decltype(std::declval<const Loss&>().alpha_from_margin(0.0, 0.0, 0.0)), double>>;

}  // namespace detail

// Whether Loss can be minimised in the primal by the Newton solver
// (snapml/src/primal/primal_newton_solver.cpp): loss(y, m) is once differentiable in the margin m with a
// Lipschitz derivative, and carries
//   primal_derivative(y, m)  d/dm loss(y, m)
//   primal_curvature(y, m)   d2/dm2 loss(y, m), or the generalized second
//                            derivative where it jumps (squared hinge, squared
//                            loss with epsilon > 0), >= 0
// The hinge is not differentiable at y*m = 1 and has neither: no primal loss.
template <typename Loss, typename = void>
struct is_primal_loss : std::false_type {};
template <typename Loss>
struct is_primal_loss<
    Loss, std::void_t<detail::exactly<decltype(std::declval<const Loss&>().primal_derivative(0.0, 0.0)), double>,
                      detail::exactly<decltype(std::declval<const Loss&>().primal_curvature(0.0, 0.0)), double>>>
    : std::true_type {};

// Whether Loss carries its identity (name, task, dual dimension, from).
template <typename Loss, typename = void>
struct has_loss_identity : std::false_type {};
template <typename Loss>
struct has_loss_identity<Loss, detail::identity_members<Loss>> : std::true_type {};

// Whether Loss has every scalar dual member a solver calls.
template <typename Loss, typename = void>
struct has_scalar_dual : std::false_type {};
template <typename Loss>
struct has_scalar_dual<Loss, detail::scalar_dual_members<Loss>> : std::true_type {};

// Whether Loss may be listed in dispatch.h's AllLosses: its identity, a dual
// dimension of at least 1, and the scalar members when that dimension is 1.
template <typename Loss>
constexpr bool is_dual_loss() {
  if constexpr (!has_loss_identity<Loss>::value) {
    return false;
  } else {
    return (Loss::kDualDimension >= 1 || Loss::kDualDimension == kOnePerClass) &&
           (Loss::kDualDimension != 1 || has_scalar_dual<Loss>::value);
  }
}

// Whether a loss has one dual variable per class (the multinomial loss): the
// primal Newton solver minimises it (snapml/src/primal/multinomial_objective.cpp).
template <typename Loss>
constexpr bool is_per_class_loss() {
  if constexpr (!is_dual_loss<Loss>()) {
    return false;
  } else {
    return Loss::kDualDimension == kOnePerClass;
  }
}

// Whether a loss has one dual variable a row (what every solver here solves).
template <typename Loss>
constexpr bool is_scalar_dual_loss() {
  if constexpr (!is_dual_loss<Loss>()) {
    return false;
  } else {
    return Loss::kDualDimension == 1;
  }
}

}  // namespace snapml::losses
