// The list of losses, and the one dispatch that turns a run-time kind into a
// loss type.
//
// Solvers are templates over the loss struct so that the inner loop has no
// virtual call. AllLosses is the only list of losses: with_loss, the names
// (loss_name, loss_from_name, loss_names), the task (is_classification), the
// command line's --loss choices and Python's _core.loss_names() all iterate it.
// A loss's kind is its index in the list; LossKind names those indices for C++
// callers and is computed from the list, so the two cannot disagree. To add a
// loss: write its header (contract.h says what it must have), append it to
// AllLosses, and test it (tests/cpp/common/test_losses.cpp); docs/architecture.md
// lists the rest.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "snapml/error.h"
#include "snapml/losses/contract.h"
#include "snapml/losses/hinge.h"
#include "snapml/losses/logistic.h"
#include "snapml/losses/multinomial.h"
#include "snapml/losses/squared.h"
#include "snapml/losses/squared_hinge.h"

namespace snapml {

template <typename... Losses>
struct LossList {
  static constexpr int size = static_cast<int>(sizeof...(Losses));
};

// Every loss, once. Its position is its LossKind, written in model files by name
// only (loss_name), so appending keeps every file readable.
using AllLosses = LossList<losses::LogisticLoss, losses::HingeLoss, losses::SquaredHingeLoss, losses::SquaredLoss,
                           losses::MultinomialLoss>;

namespace detail {

// Index of Loss in the list, or -1.
template <typename Loss, typename... Losses>
constexpr int index_in(LossList<Losses...>) {
  constexpr bool matches[] = {std::is_same_v<Loss, Losses>..., false};
  for (int i = 0; i < static_cast<int>(sizeof...(Losses)); ++i)
    if (matches[i]) return i;
  return -1;
}

template <typename Loss>
constexpr int listed_index() {
  constexpr int index = index_in<Loss>(AllLosses{});
  static_assert(index >= 0, "this loss is not in AllLosses (snapml/losses/dispatch.h)");
  return index;
}

constexpr bool same_name(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

template <typename... Losses>
constexpr bool names_distinct(LossList<Losses...>) {
  const char* names[] = {Losses::kName..., nullptr};
  for (int i = 0; i < static_cast<int>(sizeof...(Losses)); ++i)
    for (int j = i + 1; j < static_cast<int>(sizeof...(Losses)); ++j)
      if (same_name(names[i], names[j])) return false;
  return true;
}

template <typename... Losses>
constexpr bool all_dual_losses(LossList<Losses...>) {
  return (losses::is_dual_loss<Losses>() && ...);
}

}  // namespace detail

static_assert(detail::all_dual_losses(AllLosses{}),
              "a loss in AllLosses lacks a member a solver needs (snapml/losses/contract.h)");
static_assert(detail::names_distinct(AllLosses{}), "two losses in AllLosses share a kName");

// The kind of a loss: its index in AllLosses. The enumerators are the listed
// losses' indices for C++ callers; a listed loss without one is still reached by
// name.
enum class LossKind : int {
  Logistic = detail::listed_index<losses::LogisticLoss>(),
  Hinge = detail::listed_index<losses::HingeLoss>(),
  SquaredHinge = detail::listed_index<losses::SquaredHingeLoss>(),
  Squared = detail::listed_index<losses::SquaredLoss>(),
  Multinomial = detail::listed_index<losses::MultinomialLoss>(),
};

template <typename Loss>
constexpr LossKind loss_kind_of() {
  return static_cast<LossKind>(detail::listed_index<Loss>());
}

// Stands for a loss type without building one (traits, names).
template <typename Loss>
struct LossTag {
  using type = Loss;
};

namespace detail {

[[noreturn]] inline void throw_unknown_loss_kind(int index, int size) {
  throw InvalidArgument("unknown loss kind " + std::to_string(index) + " (the losses are numbered 0 to " +
                        std::to_string(size - 1) + ")");
}

template <typename Result, int I, typename Function, typename Loss, typename... Rest>
Result visit_from(int index, Function& function) {
  if (index == I) return function(LossTag<Loss>{});
  if constexpr (sizeof...(Rest) > 0) {
    return visit_from<Result, I + 1, Function, Rest...>(index, function);
  } else {
    throw_unknown_loss_kind(index, I + 1);
  }
}

template <typename Function, typename First, typename... Rest>
decltype(auto) visit_loss_type_in(LossList<First, Rest...>, int index, Function& function) {
  using Result = decltype(function(LossTag<First>{}));
  return visit_from<Result, 0, Function, First, Rest...>(index, function);
}

template <typename... Losses>
struct first_scalar_loss;
template <>
struct first_scalar_loss<> {
  using type = void;
};
template <typename Loss, typename... Rest>
struct first_scalar_loss<Loss, Rest...> {
  using type = std::conditional_t<losses::is_scalar_dual_loss<Loss>(), Loss,
                                  typename first_scalar_loss<Rest...>::type>;
};
template <typename... Losses>
typename first_scalar_loss<Losses...>::type first_scalar_of(LossList<Losses...>);

}  // namespace detail

// Calls `function(LossTag<Loss>{})` with the loss at `index` of `List`; throws
// InvalidArgument when there is none. Every call returns the same type.
template <typename List, typename Function>
decltype(auto) visit_loss_type_in(int index, Function&& function) {
  return detail::visit_loss_type_in(List{}, index, function);
}

template <typename Function>
decltype(auto) visit_loss_type(LossKind kind, Function&& function) {
  return visit_loss_type_in<AllLosses>(static_cast<int>(kind), function);
}

// Calls `function(loss)` with the struct at `index` of `List`, built from
// `parameters`. A solver body is instantiated for the losses with one dual
// variable a row only; another (contract.h) is refused with InvalidArgument.
template <typename List, typename Function>
decltype(auto) with_loss_in(int index, const losses::LossParameters& parameters, Function&& function) {
  using FirstScalar = decltype(detail::first_scalar_of(List{}));
  static_assert(!std::is_void_v<FirstScalar>, "the list holds no loss with one dual variable a row");
  using Result = std::invoke_result_t<Function&, const FirstScalar&>;
  return visit_loss_type_in<List>(index, [&](auto tag) -> Result {
    using Loss = typename decltype(tag)::type;
    if constexpr (losses::is_scalar_dual_loss<Loss>()) {
      return function(Loss::from(parameters));
    } else {
      throw InvalidArgument(std::string("the ") + Loss::kName + " loss has " +
                            (Loss::kDualDimension == losses::kOnePerClass
                                 ? std::string("one dual variable per class")
                                 : std::to_string(Loss::kDualDimension) + " dual variables") +
                            " a row; this solver takes losses with one");
    }
  });
}

// with_loss_in over AllLosses, parameterised by `epsilon` (squared loss) and
// `newton_tolerance` (logistic).
template <typename Function>
decltype(auto) with_loss(LossKind kind, double epsilon, double newton_tolerance, Function&& function) {
  return with_loss_in<AllLosses>(static_cast<int>(kind), losses::LossParameters{epsilon, newton_tolerance},
                                 function);
}

// Whether `kind` is the index of a listed loss (every other query throws for it).
inline bool is_listed_loss(LossKind kind) {
  return static_cast<int>(kind) >= 0 && static_cast<int>(kind) < AllLosses::size;
}

inline bool is_classification(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) { return decltype(tag)::type::kIsClassification; });
}

// Whether the loss is 0 wherever y * margin >= 1 (common.h).
inline bool loss_is_zero_beyond_margin_one(LossKind kind) {
  return visit_loss_type(
      kind, [](auto tag) { return losses::is_zero_beyond_margin_one<typename decltype(tag)::type>::value; });
}

// Whether the loss is not smooth (common.h, is_non_smooth).
inline bool loss_is_non_smooth(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) { return losses::is_non_smooth<typename decltype(tag)::type>::value; });
}

// Whether the loss's models predict probabilities (common.h).
inline bool loss_has_probabilities(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) { return losses::has_probabilities<typename decltype(tag)::type>::value; });
}

// Whether the primal Newton solver minimises the loss (contract.h, is_primal_loss,
// and the multinomial loss, is_per_class_loss).
inline bool loss_is_primal(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) {
    using Loss = typename decltype(tag)::type;
    return losses::is_primal_loss<Loss>::value || losses::is_per_class_loss<Loss>();
  });
}

// Whether the loss has one dual variable per class (one model row per class,
// trained jointly: the multinomial loss).
inline bool loss_is_per_class(LossKind kind) {
  return visit_loss_type(kind, [](auto tag) { return losses::is_per_class_loss<typename decltype(tag)::type>(); });
}

// The loss's kName: the names of model files and of the Python and command-line
// surfaces. Throws InvalidArgument for a kind not in AllLosses.
const char* loss_name(LossKind kind);
// Inverse of loss_name; throws InvalidArgument naming the accepted names.
LossKind loss_from_name(const std::string& name);
// Every listed loss's name, in the list's order.
std::vector<std::string> loss_names();
// "logistic, hinge, squared_hinge or squared": for messages and help texts; with
// `keep`, the names of the losses it keeps only.
std::string loss_names_text(bool (*keep)(LossKind) = nullptr);

}  // namespace snapml
