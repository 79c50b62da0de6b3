#include "quasi_newton.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "../common/interleaved_sums.h"
#include "../common/omp_threads.h"

namespace snapml::detail {

LbfgsMemory::LbfgsMemory(std::size_t width, int pairs, int threads)
    : threads_(threads),
      pairs_(static_cast<std::size_t>(pairs)),
      s_(pairs_, std::vector<float>(width)),
      y_(pairs_, std::vector<float>(width)),
      rho_(pairs_, 0.0),
      alpha_(pairs_, 0.0) {}

namespace {

// out = factor * out + scale * x, then returns next . out, in one sweep over the
// entries: the two-loop recursion's update of one pair fused with the next inner
// product. x is a kept pair's vector (float); next is one too, or g (double) for
// the slope.
template <typename Next>
double sweep(std::vector<double>& out, double factor, double scale, const float* x, const Next* next, int threads) {
  double* o = out.data();
  return blocked_sum(static_cast<std::int64_t>(out.size()), threads, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t j = begin; j < end; ++j) o[j] = factor * o[j] + scale * x[j];
    return interleaved_sums<1>(begin, end, [&](std::int64_t j, double* sum) {
      sum[0] += static_cast<double>(next[j]) * o[j];
    })[0];
  });
}

}  // namespace

bool LbfgsMemory::remember(const std::vector<double>& s, const std::vector<double>& y) {
  return keep(s, [&](std::int64_t j) { return y[static_cast<std::size_t>(j)]; });
}

bool LbfgsMemory::remember_change(const std::vector<double>& s, const std::vector<double>& g,
                                  const std::vector<double>& previous) {
  return keep(s, [&](std::int64_t j) { return g[static_cast<std::size_t>(j)] - previous[static_cast<std::size_t>(j)]; });
}

template <typename Y>
bool LbfgsMemory::keep(const std::vector<double>& s, const Y& y) {
  // Rounded into the spare vectors, with s~.y~ and y~.y~ in the same sweep.
  spare_s_.resize(s.size());
  spare_y_.resize(s.size());
  float* kept_s = spare_s_.data();
  float* kept_y = spare_y_.data();
  const std::int64_t width = static_cast<std::int64_t>(s.size());
  std::vector<double> yy_parts(static_cast<std::size_t>((width + kSumBlock - 1) / kSumBlock), 0.0);
  const double sy = blocked_sum(width, threads_, [&](std::int64_t begin, std::int64_t end) {
    const std::array<double, 2> sums = interleaved_sums<2>(begin, end, [&](std::int64_t j, double* sum) {
      kept_s[j] = static_cast<float>(s[j]);
      kept_y[j] = static_cast<float>(y(j));
      const double rounded_y = kept_y[j];
      sum[0] += static_cast<double>(kept_s[j]) * rounded_y;
      sum[1] += rounded_y * rounded_y;
    });
    yy_parts[static_cast<std::size_t>(begin / kSumBlock)] = sums[1];
    return sums[0];
  });
  double yy = 0.0;
  for (double part : yy_parts) yy += part;
  // A pair that overflows a float sums to inf or NaN: refused with the rest.
  if (!(sy > std::numeric_limits<double>::epsilon() * yy) || !std::isfinite(sy) || !std::isfinite(yy)) return false;
  newest_ = count_ == 0 ? 0 : (newest_ + 1) % pairs_;
  count_ = std::min(count_ + 1, pairs_);
  s_[newest_].swap(spare_s_);  // the oldest pair's vectors become the spares
  y_[newest_].swap(spare_y_);
  rho_[newest_] = 1.0 / sy;
  gamma_ = sy / yy;
  return true;
}

double LbfgsMemory::direction(const std::vector<double>& g, std::vector<double>& out) {
  out.resize(g.size());
  const std::size_t n = count_;
  auto slot = [&](std::size_t age) { return (newest_ + pairs_ - age) % pairs_; };
  // q = -g; newest pair first: alpha_i = rho_i s_i.q, q -= alpha_i y_i.
  double* o = out.data();
  const double* gradient = g.data();
  const auto width = static_cast<std::int64_t>(g.size());
  if (n == 0)
    return blocked_sum(width, threads_, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t j = begin; j < end; ++j) o[j] = -gradient[j];
      return interleaved_dot(gradient, o, begin, end);
    });
  const float* newest_s = s_[slot(0)].data();
  double next_dot = blocked_sum(width, threads_, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t j = begin; j < end; ++j) o[j] = -gradient[j];
    return interleaved_sums<1>(begin, end, [&](std::int64_t j, double* sum) {
      sum[0] += static_cast<double>(newest_s[j]) * o[j];
    })[0];
  });
  // The oldest pair's update also scales q to r = gamma q, and sums y_oldest.r
  // for the second loop's first beta.
  for (std::size_t age = 0; age < n; ++age) {
    const std::size_t i = slot(age);
    alpha_[i] = rho_[i] * next_dot;
    if (age + 1 < n)
      next_dot = sweep(out, 1.0, -alpha_[i], y_[i].data(), s_[slot(age + 1)].data(), threads_);
    else
      next_dot = sweep(out, gamma_, -gamma_ * alpha_[i], y_[i].data(), y_[i].data(), threads_);
  }
  // Oldest pair first: beta_i = rho_i y_i.r, r += (alpha_i - beta_i) s_i.
  for (std::size_t age = n; age-- > 0;) {
    const std::size_t i = slot(age);
    const double beta = rho_[i] * next_dot;
    const double change = alpha_[i] - beta;
    if (age > 0)
      next_dot = sweep(out, 1.0, change, s_[i].data(), y_[slot(age - 1)].data(), threads_);
    else
      next_dot = sweep(out, 1.0, change, s_[i].data(), gradient, threads_);
  }
  return next_dot;  // g.out
}

namespace {
constexpr double kArmijo = 1e-4;         // sufficient decrease
constexpr double kSlopeTolerance = 0.01;  // |phi'(t)| <= this x |phi'(0)|: the line's minimum, near enough
constexpr int kLineEvaluations = 20;
}  // namespace

LineStep minimise_along_line(const LineFunction& phi, double value0, double slope0, double start) {
  LineStep best;  // the lowest decreasing point so far
  best.value = value0;
  double best_change = 0.0;
  double lo = 0.0, hi = std::numeric_limits<double>::infinity();
  double t = start;
  LineValues at{value0, slope0, 0.0};
  for (int evaluation = 0; evaluation < kLineEvaluations; ++evaluation) {
    at = phi(t);
    ++best.evaluations;
    // Armijo's test, on the values; where they differ by rounding only (near the
    // optimum f changes by about ||g||^2 / L, below f's last digits), on the change
    // the slopes give, t (phi'(0) + phi'(t)) / 2 (the trapezoid rule, exact for a
    // quadratic): phi' is a sum of terms, not a difference of nearly equal values,
    // so the decision does not turn on rounding (nor on the ranks' order of sums).
    const bool rounding_only = std::fabs(at.value - value0) <= kValueRounding * std::fabs(value0);
    const double change = rounding_only ? 0.5 * t * (slope0 + at.slope) : at.value - value0;
    const bool decreases = change <= kArmijo * t * slope0;
    if (t > 0.0 && decreases && (best.t == 0.0 || change < best_change)) {
      best.t = t;
      best.value = at.value;
      best_change = change;
      if (std::fabs(at.slope) <= kSlopeTolerance * std::fabs(slope0)) break;  // the line's minimum
    }
    if (at.slope > 0.0)
      hi = t;
    else
      lo = t;
    double next = at.curvature > 0.0 ? t - at.slope / at.curvature : std::numeric_limits<double>::infinity();
    if (!(next > lo && next < hi)) next = std::isfinite(hi) ? 0.5 * (lo + hi) : std::max(2.0 * lo, 1.0);
    if (!(next != t)) break;  // the bracket has shrunk below rounding
    t = next;
  }
  return best;
}

}  // namespace snapml::detail
