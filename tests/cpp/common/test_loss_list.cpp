// The list of losses (snapml/losses/dispatch.h): every listed loss is reached by
// its kind and its name, an unknown kind or name is an error, the traits agree
// with the structs, and the compile-time contract (contract.h) refuses a loss
// without a member a solver needs.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/solver.h"

namespace {

using namespace snapml;

// A loss with its identity but no step: not listable.
struct WithoutStep {
  static constexpr const char* kName = "without_step";
  static constexpr bool kIsClassification = true;
  static constexpr int kDualDimension = 1;
  static WithoutStep from(const losses::LossParameters&) { return {}; }
  static double coefficient(double y) { return y; }
  double loss(double, double) const { return 0.0; }
  double dual_value(double, double, double) const { return 0.0; }
  losses::DualInterval interval(double C) const { return {0.0, C}; }
  double initial_alpha(double) const { return 0.0; }
  double alpha_from_margin(double, double, double) const { return 0.0; }
};

// The hinge's members without a name: not listable.
struct WithoutName : losses::HingeLoss {
  static constexpr bool kIsClassification = true;
};

// A loss with K = 3 dual variables a row, as the multinomial loss would declare.
struct VectorDual {
  static constexpr const char* kName = "vector_dual";
  static constexpr bool kIsClassification = true;
  static constexpr int kDualDimension = 3;
  static VectorDual from(const losses::LossParameters&) { return {}; }
};

static_assert(losses::is_dual_loss<losses::LogisticLoss>());
static_assert(losses::is_dual_loss<losses::HingeLoss>());
static_assert(losses::is_dual_loss<losses::SquaredHingeLoss>());
static_assert(losses::is_dual_loss<losses::SquaredLoss>());
static_assert(!losses::is_dual_loss<WithoutStep>(), "a loss without step() must not be listable");
static_assert(!losses::is_dual_loss<WithoutName>(), "a loss without kName must not be listable");
static_assert(losses::is_dual_loss<VectorDual>() && !losses::is_scalar_dual_loss<VectorDual>(),
              "a vector-dual loss is listable, and not scalar");
static_assert(loss_kind_of<losses::SquaredLoss>() == LossKind::Squared);

template <typename Function, typename... Losses>
void for_each_listed(LossList<Losses...>, Function function) {
  (function(LossTag<Losses>{}), ...);
}

TEST(LossList, NamesRoundTripAndAreDistinct) {
  std::set<std::string> seen;
  for (int index = 0; index < AllLosses::size; ++index) {
    const auto kind = static_cast<LossKind>(index);
    const std::string name = loss_name(kind);
    EXPECT_EQ(loss_from_name(name), kind) << name;
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
  EXPECT_EQ(loss_names(), std::vector<std::string>(
                              {"logistic", "hinge", "squared_hinge", "squared", "multinomial"}));  // the files' names
  EXPECT_EQ(loss_names_text(), "logistic, hinge, squared_hinge, squared or multinomial");
}

TEST(LossList, UnknownNameOrKindIsAnError) {
  try {
    loss_from_name("crammer_singer");
    FAIL() << "no throw";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("logistic, hinge, squared_hinge, squared or multinomial"),
              std::string::npos);
  }
  const auto unknown = static_cast<LossKind>(AllLosses::size);
  EXPECT_FALSE(is_listed_loss(unknown));
  EXPECT_TRUE(is_listed_loss(LossKind::Squared));
  EXPECT_THROW(loss_name(unknown), InvalidArgument);
  EXPECT_THROW(is_classification(unknown), InvalidArgument);
  EXPECT_THROW(with_loss(unknown, 0.0, 1e-11, [](const auto&) { return 0; }), InvalidArgument);
  EXPECT_THROW(with_loss(static_cast<LossKind>(-1), 0.0, 1e-11, [](const auto&) {}), InvalidArgument);
  SolverParameters p;
  p.loss = unknown;
  EXPECT_THROW(validate(p), InvalidArgument);
  p.penalty = Penalty::L1;
  EXPECT_THROW(validate(p), InvalidArgument);
}

TEST(LossList, TraitsComeFromTheStructs) {
  for_each_listed(AllLosses{}, [](auto tag) {
    using Loss = typename decltype(tag)::type;
    const LossKind kind = loss_kind_of<Loss>();
    EXPECT_EQ(std::string(loss_name(kind)), Loss::kName);
    EXPECT_EQ(is_classification(kind), Loss::kIsClassification) << Loss::kName;
    EXPECT_EQ(loss_is_zero_beyond_margin_one(kind), losses::is_zero_beyond_margin_one<Loss>::value) << Loss::kName;
    EXPECT_EQ(loss_has_probabilities(kind), losses::has_probabilities<Loss>::value) << Loss::kName;
    // with_loss hands over the struct of the kind; a loss with one dual variable
    // per class (multinomial) is refused by the scalar solvers' dispatch.
    if constexpr (losses::is_scalar_dual_loss<Loss>()) {
      EXPECT_TRUE(with_loss(kind, 0.0, 1e-11, [](const auto& loss) {
        return std::is_same_v<std::decay_t<decltype(loss)>, Loss>;
      })) << Loss::kName;
    } else {
      EXPECT_THROW(with_loss(kind, 0.0, 1e-11, [](const auto&) { return true; }), InvalidArgument) << Loss::kName;
      EXPECT_TRUE(loss_is_per_class(kind)) << Loss::kName;
    }
  });
  EXPECT_TRUE(loss_is_primal(LossKind::Multinomial));
  EXPECT_TRUE(loss_has_probabilities(LossKind::Multinomial));
  EXPECT_FALSE(is_classification(LossKind::Squared));
  EXPECT_TRUE(loss_is_zero_beyond_margin_one(LossKind::Hinge));
  EXPECT_FALSE(loss_is_zero_beyond_margin_one(LossKind::Logistic));
  EXPECT_TRUE(loss_has_probabilities(LossKind::Logistic));
  EXPECT_FALSE(loss_has_probabilities(LossKind::SquaredHinge));
}

TEST(LossList, WithLossPassesTheRunTimeParameters) {
  EXPECT_EQ(with_loss(LossKind::Squared, 0.25, 1e-11, [](const auto& loss) {
              if constexpr (std::is_same_v<std::decay_t<decltype(loss)>, losses::SquaredLoss>) return loss.epsilon;
              else return -1.0;
            }),
            0.25);
  EXPECT_EQ(with_loss(LossKind::Logistic, 0.0, 1e-3, [](const auto& loss) {
              if constexpr (std::is_same_v<std::decay_t<decltype(loss)>, losses::LogisticLoss>)
                return loss.newton_tolerance;
              else return -1.0;
            }),
            1e-3);
}

TEST(LossList, AScalarSolverRefusesAVectorDualLossWithoutInstantiatingForIt) {
  using Mixed = LossList<losses::HingeLoss, VectorDual>;
  int calls = 0;
  // The body calls step(), which VectorDual lacks: it compiles because with_loss_in
  // never instantiates the body with VectorDual.
  const auto body = [&](const auto& loss) {
    ++calls;
    return loss.step(1.0, 0.0, 0.0, 1.0, 1.0, 1.0);
  };
  EXPECT_EQ(with_loss_in<Mixed>(0, {}, body), 1.0);
  try {
    with_loss_in<Mixed>(1, {}, body);
    FAIL() << "no throw";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("vector_dual loss has 3 dual variables"), std::string::npos);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_THROW(with_loss_in<Mixed>(2, {}, body), InvalidArgument);
}

TEST(LossList, PenaltyL1TakesTheLossesItHasRowsFor) {
  EXPECT_TRUE(l1_penalty_supports(LossKind::Logistic));
  EXPECT_TRUE(l1_penalty_supports(LossKind::SquaredHinge));
  EXPECT_TRUE(l1_penalty_supports(LossKind::Squared));
  EXPECT_FALSE(l1_penalty_supports(LossKind::Hinge));
  SolverParameters p;
  p.penalty = Penalty::L1;
  p.loss = LossKind::Hinge;
  try {
    validate(p);
    FAIL() << "no throw";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("hinge loss; use penalty l2, or a loss penalty l1 takes: logistic, "
                                             "squared_hinge or squared"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
