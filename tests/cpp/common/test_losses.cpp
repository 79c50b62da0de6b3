// Each loss's maths against first principles: the coordinate step against a
// brute-force maximisation of the same 1-D dual sub-problem (with CoCoA+'s
// sigma' >= 1), Fenchel-Young for the primal/dual pair, and dual ascent step by step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "snapml/impl/dual_start.h"
#include "snapml/losses/hinge.h"
#include "snapml/losses/logistic.h"
#include "snapml/losses/primal_terms.h"
#include "snapml/losses/squared.h"
#include "snapml/losses/squared_hinge.h"

namespace {

using namespace snapml::losses;

// f(a) = dual_value(a) - (a - alpha) coefficient(y) margin - 0.5 sigma q (a - alpha)^2,
// the part of D that depends on a (docs/algorithms.md).
template <typename Loss>
double sub_problem(const Loss& loss, double y, double alpha, double margin, double sq_norm,
                   double C, double sigma, double a) {
  const double d = a - alpha;
  return loss.dual_value(y, a, C) - d * Loss::coefficient(y) * margin - 0.5 * sigma * sq_norm * d * d;
}

// Ternary search of the concave sub-problem over its interval (cut to a bracket
// wide enough to hold the maximiser when the interval is unbounded).
template <typename Loss>
double brute_force_argmax(const Loss& loss, double y, double alpha, double margin, double sq_norm,
                          double C, double sigma) {
  const DualInterval interval = loss.interval(C);
  const double reach = 1e3 * (1.0 + std::fabs(alpha) + C + std::fabs(margin));
  double lo = std::max(interval.lower, alpha - reach);
  double hi = std::min(interval.upper, alpha + reach);
  for (int i = 0; i < 400; ++i) {
    const double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
    if (sub_problem(loss, y, alpha, margin, sq_norm, C, sigma, m1) <
        sub_problem(loss, y, alpha, margin, sq_norm, C, sigma, m2))
      lo = m1;
    else
      hi = m2;
  }
  return 0.5 * (lo + hi);
}

struct Draw {
  double y, alpha, margin, sq_norm, C, sigma;
};

template <typename Loss>
std::vector<Draw> draws(const Loss& loss, std::uint64_t seed, int count) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double sigmas[] = {1.0, 2.0, 3.0, 7.5};
  std::vector<Draw> out;
  for (int i = 0; i < count; ++i) {
    Draw d;
    d.y = Loss::kIsClassification ? (uniform(random) < 0.5 ? -1.0 : 1.0) : 2.0 * normal(random);
    d.margin = 2.0 * normal(random);
    d.sq_norm = 0.01 + 5.0 * uniform(random);
    d.C = std::pow(10.0, -2.0 + 4.0 * uniform(random));
    d.sigma = sigmas[i % 4];
    const DualInterval interval = loss.interval(d.C);
    if (std::isfinite(interval.upper) && std::isfinite(interval.lower))
      d.alpha = interval.lower + (interval.upper - interval.lower) * uniform(random);
    else if (std::isfinite(interval.lower))
      d.alpha = interval.lower + d.C * std::fabs(normal(random));
    else
      d.alpha = d.C * normal(random);
    out.push_back(d);
  }
  return out;
}

template <typename Loss>
void expect_exact_steps(const Loss& loss, std::uint64_t seed) {
  for (const Draw& d : draws(loss, seed, 400)) {
    const double step = loss.step(d.y, d.alpha, d.margin, d.sq_norm, d.C, d.sigma);
    const double best = brute_force_argmax(loss, d.y, d.alpha, d.margin, d.sq_norm, d.C, d.sigma);
    const DualInterval interval = loss.interval(d.C);
    ASSERT_GE(step, interval.lower);
    ASSERT_LE(step, interval.upper);
    const double f_step = sub_problem(loss, d.y, d.alpha, d.margin, d.sq_norm, d.C, d.sigma, step);
    const double f_best = sub_problem(loss, d.y, d.alpha, d.margin, d.sq_norm, d.C, d.sigma, best);
    EXPECT_GE(f_step, f_best - 1e-10 * (1.0 + std::fabs(f_best)))
        << "y=" << d.y << " alpha=" << d.alpha << " margin=" << d.margin << " q=" << d.sq_norm
        << " C=" << d.C << " sigma=" << d.sigma;
    EXPECT_NEAR(step, best, 1e-5 * (1.0 + std::fabs(best)))
        << "y=" << d.y << " alpha=" << d.alpha << " margin=" << d.margin << " q=" << d.sq_norm
        << " C=" << d.C << " sigma=" << d.sigma;
  }
}

TEST(LossStep, HingeIsTheExactCoordinateMaximiser) { expect_exact_steps(HingeLoss{}, 1); }
TEST(LossStep, SquaredHingeIsTheExactCoordinateMaximiser) { expect_exact_steps(SquaredHingeLoss{}, 2); }
TEST(LossStep, LogisticIsTheExactCoordinateMaximiser) { expect_exact_steps(LogisticLoss{}, 3); }
TEST(LossStep, RidgeIsTheExactCoordinateMaximiser) { expect_exact_steps(SquaredLoss{0.0}, 4); }
TEST(LossStep, InsensitiveSquaredLossIsTheExactCoordinateMaximiser) {
  expect_exact_steps(SquaredLoss{0.1}, 5);
  expect_exact_steps(SquaredLoss{0.7}, 6);
}

TEST(LossStep, LogisticRecoversFromAlphaOnItsBounds) {
  const LogisticLoss loss;
  for (double alpha : {0.0, 1.0}) {
    for (double margin : {-3.0, 0.0, 3.0}) {
      const double step = loss.step(1.0, alpha, margin, 1.0, 1.0, 1.0);
      const double best = brute_force_argmax(loss, 1.0, alpha, margin, 1.0, 1.0, 1.0);
      EXPECT_GT(step, 0.0);
      EXPECT_LT(step, 1.0);
      EXPECT_NEAR(step, best, 1e-6);
    }
  }
}

// The cold start is alpha = 0, where w(alpha) = 0 needs no pass over the data;
// a start from weights pairs alpha with the margin, kept inside (0, C) by
// min(1e-3 C, 1e-8) however large the margin (dual_start.h).
TEST(LossStart, LogisticStartsColdAtZeroAndFromWeightsInsideTheInterval) {
  const LogisticLoss loss;
  for (double C : {1e-9, 1.0, 1e4}) {
    EXPECT_EQ(snapml::starting_alpha(loss, snapml::StartFrom::Cold, 0.0, 0.0, 1.0, C), 0.0);
    const double inset = std::min(1e-3 * C, 1e-8);
    for (double margin : {-1e3, 1e3}) {
      const double alpha = snapml::starting_alpha(loss, snapml::StartFrom::Weights, 0.0, margin, 1.0, C);
      EXPECT_GE(alpha, inset) << C << " " << margin;
      EXPECT_LE(alpha, C - inset) << C << " " << margin;
    }
  }
}

// The step's Newton iteration (logistic.h) over sub-problems far outside the
// draws above: curvature a = sigma q from 1e-6 to 1e8, C from 1e-4 to 1e4, |b|
// from 1e-4 to 1e3, alpha anywhere in [0, C] including both bounds. With at most
// 12 Newton steps (the loss allows 100) every step must reach the root: f' in
// long double changes sign within a few units in the last place of the step, or
// is below the tolerance there. Newton in z alone needed up to 100 steps on this
// grid (a start near 0 climbs slowly through the logarithm), in u alone as many
// where the quadratic rules and the root is far (the exponential descends by
// about 1 a step).
TEST(LossStep, LogisticNewtonReachesTheRootOfExtremeSubProblems) {
  LogisticLoss loss;
  loss.max_newton_steps = 12;
  auto derivative = [](long double a, long double b, long double alpha, long double C, long double z) {
    return a * (z - alpha) + b + std::log(z / (C - z));
  };
  int cases = 0;
  for (double a = 1e-6; a < 1e9; a *= 10.0)
    for (double C = 1e-4; C < 1e5; C *= 10.0)
      for (double size = 1e-4; size < 1e4; size *= 10.0)
        for (double b : {-size, size})
          for (double share : {0.0, 1e-30, 1e-12, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0 - 1e-9, 1.0}) {
            const double alpha = share * C;
            // y = 1, margin = b, sq_norm = a, sigma = 1.
            const double z = loss.step(1.0, alpha, b, a, C, 1.0);
            ASSERT_GE(z, 0.0);
            ASSERT_LE(z, C) << "a=" << a << " C=" << C << " b=" << b << " alpha=" << alpha;
            const double left = std::nextafter(std::nextafter(z, 0.0), 0.0);
            const double right = std::nextafter(std::nextafter(z, C), C);
            const long double at = derivative(a, b, alpha, C, z);
            const bool brackets = derivative(a, b, alpha, C, left) <= 0.0L && derivative(a, b, alpha, C, right) >= 0.0L;
            EXPECT_TRUE(brackets || std::fabs(at) <= 1e-9L)
                << "a=" << a << " C=" << C << " b=" << b << " alpha=" << alpha << " step=" << z
                << " f'=" << static_cast<double>(at);
            ++cases;
          }
  EXPECT_EQ(cases, 15 * 9 * 16 * 11);
}

// Per row, C loss(m) - dual_value(a) + a coefficient(y) m >= 0 (Fenchel-Young), with
// equality at the alpha the optimality conditions pair with m. Summed over rows
// this is exactly the duality gap, so it ties loss, dual_value and
// alpha_from_margin together.
template <typename Loss>
void expect_fenchel_young(const Loss& loss, std::uint64_t seed) {
  for (const Draw& d : draws(loss, seed, 400)) {
    auto term = [&](double a) {
      return d.C * loss.loss(d.y, d.margin) - loss.dual_value(d.y, a, d.C) +
             a * Loss::coefficient(d.y) * d.margin;
    };
    const double scale = 1e-9 * (1.0 + d.C * (1.0 + std::fabs(d.margin) + std::fabs(d.y)));
    EXPECT_GE(term(d.alpha), -scale);
    EXPECT_NEAR(term(loss.alpha_from_margin(d.y, d.margin, d.C)), 0.0, 1e-6 * scale / 1e-9);
  }
}

TEST(LossDuality, FenchelYoungHoldsAndIsTightAtTheOptimalPairing) {
  expect_fenchel_young(HingeLoss{}, 11);
  expect_fenchel_young(SquaredHingeLoss{}, 12);
  expect_fenchel_young(LogisticLoss{}, 13);
  expect_fenchel_young(SquaredLoss{0.0}, 14);
  expect_fenchel_young(SquaredLoss{0.3}, 15);
}

TEST(LossValues, PrimalLossesMatchTheirDefinitions) {
  EXPECT_DOUBLE_EQ(HingeLoss{}.loss(1.0, 0.25), 0.75);
  EXPECT_DOUBLE_EQ(HingeLoss{}.loss(-1.0, -2.0), 0.0);
  EXPECT_DOUBLE_EQ(SquaredHingeLoss{}.loss(1.0, 0.25), 0.5625);
  EXPECT_NEAR(LogisticLoss{}.loss(1.0, 0.0), std::log(2.0), 1e-15);
  EXPECT_NEAR(LogisticLoss{}.loss(-1.0, 800.0), 800.0, 1e-12);  // no overflow
  EXPECT_NEAR(LogisticLoss{}.loss(1.0, 800.0), 0.0, 1e-300);
  EXPECT_DOUBLE_EQ((SquaredLoss{0.0}.loss(2.0, 0.5)), 2.25);
  EXPECT_DOUBLE_EQ((SquaredLoss{0.5}.loss(2.0, 0.5)), 1.0);
  EXPECT_DOUBLE_EQ((SquaredLoss{0.5}.loss(2.0, 1.75)), 0.0);
}

// primal_terms and paired_dual_value: the Newton solver's per-row reads.
constexpr double kTermMargins[] = {0.0, 1e-9, 0.3, -0.3, 1.0, -1.0, 2.5, -4.0, 17.0, -17.0,
                                   40.0, -40.0, 700.0, -700.0, 800.0, -800.0};

// The logistic's fused form (one exp, one log1p) against long-double evaluations
// of the definitions, from margin 0 to beyond the overflow of exp: value,
// derivative and curvature to a few ulps (the members lose the curvature's digits
// where 1 - sigmoid cancels, m > 15), the paired dual value (the entropy of
// alpha = C sigmoid(-y m)) to its size or, where its terms cancel (y m << 0), to
// C eps |m|.
TEST(LossPrimalTerms, LogisticFusedTermsMatchTheDefinitions) {
  using Long = long double;
  for (double y : {1.0, -1.0}) {
    for (double m : kTermMargins) {
      const Long u = static_cast<Long>(y) * m;
      const Long value = u < 0 ? -u + std::log1p(std::exp(u)) : std::log1p(std::exp(-u));
      const Long s = 1 / (1 + std::exp(u));  // sigmoid(-y m)
      const Long curvature = std::exp(-std::fabs(u)) / ((1 + std::exp(-std::fabs(u))) * (1 + std::exp(-std::fabs(u))));
      const PrimalTerms terms = primal_terms(LogisticLoss{}, y, m);
      auto near = [](double got, Long want) {
        EXPECT_NEAR(got, static_cast<double>(want), 1e-14 * std::fabs(static_cast<double>(want)) + 1e-300);
      };
      near(terms.value, value);
      near(terms.derivative, -y * s);
      near(terms.curvature, curvature);
      for (double C : {1.0, 0.25, 30.0}) {
        // C times the binary entropy of s: -s log s - (1 - s) log(1 - s).
        const Long entropy = (s > 0 ? -s * std::log(s) : 0) + (s < 1 ? -(1 - s) * std::log1p(-s) : 0);
        const auto want = static_cast<double>(C * entropy);
        EXPECT_NEAR(paired_dual_value(LogisticLoss{}, y, m, C, terms), want,
                    1e-13 * want + 4e-16 * C * (1.0 + std::fabs(m)))
            << "y " << y << " m " << m << " C " << C;
        if (std::fabs(m) < 30.0) {  // where the entropy form of dual_value keeps its digits
          EXPECT_NEAR(paired_dual_value(LogisticLoss{}, y, m, C, terms),
                      LogisticLoss{}.dual_value(y, C * static_cast<double>(s), C), 1e-12 * C);
        }
      }
    }
  }
}

// The logistic dual term C log C - a log a - (C - a) log(C - a) against long
// double, from a near 0 to a near C.
TEST(LossValues, LogisticDualValueIsTheScaledEntropy) {
  using Long = long double;
  for (double C : {1.0, 0.1, 1e-6, 300.0}) {
    for (double share : {1e-300, 1e-20, 1e-9, 0.01, 0.3, 0.5, 0.77, 1.0 - 1e-9, 1.0 - 1e-15}) {
      const double alpha = C * share;
      const Long a = alpha, rest = static_cast<Long>(C) - a;
      // log(a / C) and log(rest / C), each through log1p where its quotient is near 1.
      const Long log_a = a <= rest ? std::log(a / C) : std::log1p(-rest / C);
      const Long log_rest = rest <= a ? std::log(rest / C) : std::log1p(-a / C);
      const Long want = -a * log_a - (rest > 0 ? rest * log_rest : 0);
      EXPECT_NEAR(LogisticLoss{}.dual_value(1.0, alpha, C), static_cast<double>(want),
                  1e-14 * static_cast<double>(want) + 1e-300)
          << "C " << C << " alpha / C " << share;
    }
    EXPECT_EQ(LogisticLoss{}.dual_value(1.0, 0.0, C), 0.0);
    EXPECT_EQ(LogisticLoss{}.dual_value(-1.0, C, C), 0.0);
  }
}

// The other primal losses read their members: the same values, bit for bit.
template <typename Loss>
void expect_terms_are_the_members(const Loss& loss) {
  for (double y : {1.0, -1.0, 0.7}) {
    if (Loss::kIsClassification && y != 1.0 && y != -1.0) continue;
    for (double m : kTermMargins) {
      const PrimalTerms terms = primal_terms(loss, y, m);
      EXPECT_EQ(terms.value, loss.loss(y, m));
      EXPECT_EQ(terms.derivative, loss.primal_derivative(y, m));
      EXPECT_EQ(terms.curvature, loss.primal_curvature(y, m));
      const double C = 0.25;
      const double alpha = -(C * loss.primal_derivative(y, m)) * Loss::coefficient(y);
      EXPECT_EQ(paired_dual_value(loss, y, m, C, terms), loss.dual_value(y, alpha, C));
    }
  }
}

TEST(LossPrimalTerms, OtherPrimalLossesReadTheirMembers) {
  expect_terms_are_the_members(SquaredHingeLoss{});
  expect_terms_are_the_members(SquaredLoss{0.0});
  expect_terms_are_the_members(SquaredLoss{0.3});
}

// Cyclic exact steps on a small dense problem: after every single step the dual
// objective D(alpha) = sum dual_value - 0.5 ||w||^2 must not decrease.
template <typename Loss>
void expect_monotone_dual(const Loss& loss, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int n = 30, d = 5;
  std::vector<double> x(n * d), y(n), alpha(n), cost(n);
  std::vector<double> w(d, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < d; ++j) x[i * d + j] = normal(random);
    y[i] = Loss::kIsClassification ? (normal(random) > 0 ? 1.0 : -1.0) : normal(random);
    cost[i] = 0.5 + std::fabs(normal(random));
    alpha[i] = loss.initial_alpha(cost[i]);
    for (int j = 0; j < d; ++j) w[j] += alpha[i] * Loss::coefficient(y[i]) * x[i * d + j];
  }
  auto dual = [&] {
    double sum = 0.0, norm = 0.0;
    for (int i = 0; i < n; ++i) sum += loss.dual_value(y[i], alpha[i], cost[i]);
    for (double v : w) norm += v * v;
    return sum - 0.5 * norm;
  };
  double previous = dual();
  for (int epoch = 0; epoch < 4; ++epoch) {
    for (int i = 0; i < n; ++i) {
      double margin = 0.0, sq = 0.0;
      for (int j = 0; j < d; ++j) {
        margin += w[j] * x[i * d + j];
        sq += x[i * d + j] * x[i * d + j];
      }
      const double next = loss.step(y[i], alpha[i], margin, sq, cost[i], 1.0);
      for (int j = 0; j < d; ++j) w[j] += (next - alpha[i]) * Loss::coefficient(y[i]) * x[i * d + j];
      alpha[i] = next;
      const double current = dual();
      ASSERT_GE(current, previous - 1e-12 * (1.0 + std::fabs(previous))) << "epoch " << epoch << " row " << i;
      previous = current;
    }
  }
}

TEST(LossStep, DualNeverDecreasesStepByStep) {
  expect_monotone_dual(HingeLoss{}, 21);
  expect_monotone_dual(SquaredHingeLoss{}, 22);
  expect_monotone_dual(LogisticLoss{}, 23);
  expect_monotone_dual(SquaredLoss{0.2}, 24);
}

}  // namespace

// LIBLINEAR's shrinking rule (losses/common.h, svc_shrinks): a coordinate at a bound
// whose gradient points out of the box by more than last pass's largest violation
// is left out; otherwise the projected gradient is 0 at such a bound, G inside.
TEST(LossShrinking, LeavesOutOnlyBeyondLastPassesViolations) {
  using snapml::losses::svc_shrinks;
  double projected = 1.0;
  // alpha = 0: G > pg_max_old leaves out; 0 <= G <= pg_max_old stays, projected 0;
  // G < 0 (wants to grow) stays with projected G.
  EXPECT_TRUE(svc_shrinks(0.5, 0.0, 1.0, 0.25, -0.25, projected));
  EXPECT_FALSE(svc_shrinks(0.2, 0.0, 1.0, 0.25, -0.25, projected));
  EXPECT_EQ(projected, 0.0);
  EXPECT_FALSE(svc_shrinks(-0.3, 0.0, 1.0, 0.25, -0.25, projected));
  EXPECT_EQ(projected, -0.3);
  // alpha = upper bound: the mirror image.
  EXPECT_TRUE(svc_shrinks(-0.5, 1.0, 1.0, 0.25, -0.25, projected));
  EXPECT_FALSE(svc_shrinks(-0.2, 1.0, 1.0, 0.25, -0.25, projected));
  EXPECT_EQ(projected, 0.0);
  EXPECT_FALSE(svc_shrinks(0.3, 1.0, 1.0, 0.25, -0.25, projected));
  EXPECT_EQ(projected, 0.3);
  // Inside the box: never left out, projected = G.
  EXPECT_FALSE(svc_shrinks(5.0, 0.5, 1.0, 0.25, -0.25, projected));
  EXPECT_EQ(projected, 5.0);
  // Squared hinge: no upper bound, so a large alpha is inside.
  EXPECT_FALSE(svc_shrinks(-5.0, 1e6, HUGE_VAL, 0.25, -0.25, projected));
  EXPECT_EQ(projected, -5.0);
  // The first pass (infinite thresholds) leaves nothing out.
  EXPECT_FALSE(svc_shrinks(1e300, 0.0, 1.0, HUGE_VAL, -HUGE_VAL, projected));
  // The gradient the solver passes, G = y*margin - 1 + diag*alpha, with each loss's table.
  using snapml::losses::svc_gradient;
  EXPECT_TRUE(svc_shrinks(svc_gradient(1.0, 0.0, 3.0, SquaredHingeLoss::diag(1.0)), 0.0,
                          SquaredHingeLoss::upper_bound(1.0), 1.0, -1.0, projected));  // G = 2 > 1
  EXPECT_FALSE(svc_shrinks(svc_gradient(-1.0, 0.0, 3.0, SquaredHingeLoss::diag(1.0)), 0.0,
                           SquaredHingeLoss::upper_bound(1.0), 1.0, -1.0, projected));  // G = -4
  EXPECT_EQ(projected, -4.0);
  EXPECT_TRUE(svc_shrinks(svc_gradient(1.0, 2.0, -3.0, HingeLoss::diag(2.0)), 2.0, HingeLoss::upper_bound(2.0),
                          1.0, -1.0, projected));  // at C = 2, G = -4 < -1
  static_assert(snapml::losses::is_shrinkable<HingeLoss>::value);
  static_assert(snapml::losses::is_shrinkable<SquaredHingeLoss>::value);
  static_assert(!snapml::losses::is_shrinkable<LogisticLoss>::value);
  static_assert(!snapml::losses::is_shrinkable<SquaredLoss>::value);
}

// Ridge's curvature is 2 on every row, a residual of 0 included (a target of 0 at
// w = 0); the insensitive loss's is 0 inside its zone (LIBLINEAR's -s 11).
TEST(SquaredLoss, RidgesCurvatureIsTwoEverywhere) {
  const snapml::losses::SquaredLoss ridge{0.0}, insensitive{0.1};
  EXPECT_EQ(ridge.primal_curvature(0.0, 0.0), 2.0);
  EXPECT_EQ(ridge.primal_curvature(1.5, -0.5), 2.0);
  EXPECT_EQ(insensitive.primal_curvature(0.0, 0.0), 0.0);
  EXPECT_EQ(insensitive.primal_curvature(0.0, 0.05), 0.0);
  EXPECT_EQ(insensitive.primal_curvature(0.0, 0.2), 2.0);
}
