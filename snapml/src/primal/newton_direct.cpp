#include "newton_direct.h"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

#include "packed_cholesky.h"

namespace snapml::detail {

namespace {

// The minimum-norm solution of H p = -g where H is singular: no penalty, and
// collinear columns or fewer rows than weights, so that every w + null(H) fits
// equally well. scikit-learn's LinearRegression returns the least-squares solution
// of least norm over the features (scipy's lstsq of the centred data, its
// intercept free and outside the norm), and so does this step from w = 0: each
// step lies in range(H) = the centred rows' span, which holds that solution and
// no other (Golub & Van Loan, Matrix Computations, 4th ed., 5.5.1).
//
// The free intercepts (the last `free` weights, outside the norm) are eliminated
// first: with H = [A C; C^T D] and g = [g_w; g_b], the features' system is
// S p_w = -r with S = A - C D^-1 C^T (the centred Hessian) and r = g_w - C D^-1
// g_b, and then p_b = -D^-1 (g_b + C^T p_w). S's null space is read from the
// eigenvalues of its Jacobi-scaled form T S T (T = diag(S)^-1/2), so that a
// column's scale does not decide the rank (as in solve_newton_system): those at
// most kSmallestReciprocalCondition (or width x eps) of the largest are taken as
// zero. p_w is a solution on the other eigenvectors, T q, less its projection
// onto null(S) = T null(T S T): the least-norm one in the unscaled weights.
// Rank is decided on the normal equations, at singular values of about
// sqrt(1e-13) ~ 3e-7 of the largest (scaled) where lstsq's cut is at ~1e-13.
bool minimum_norm_step(const Eigen::MatrixXd& lower, const Eigen::VectorXd& gradient, Eigen::Index free,
                       Eigen::VectorXd& step) {
  const Eigen::Index width = gradient.size();
  const Eigen::Index m = width - free;
  const Eigen::MatrixXd h = lower.selfadjointView<Eigen::Lower>();
  Eigen::MatrixXd s = h.topLeftCorner(m, m);
  Eigen::VectorXd r = gradient.head(m);
  Eigen::LLT<Eigen::MatrixXd> intercepts;
  if (free > 0) {
    intercepts.compute(h.bottomRightCorner(free, free));
    if (intercepts.info() != Eigen::Success) return false;
    const Eigen::MatrixXd c = h.topRightCorner(m, free);
    s.noalias() -= c * intercepts.solve(c.transpose());
    r.noalias() -= c * intercepts.solve(gradient.tail(free));
  }
  Eigen::VectorXd scale(m);
  for (Eigen::Index a = 0; a < m; ++a) scale(a) = s(a, a) > 0.0 ? 1.0 / std::sqrt(s(a, a)) : 1.0;
  const Eigen::MatrixXd scaled = scale.asDiagonal() * s * scale.asDiagonal();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(scaled);
  if (eigen.info() != Eigen::Success) return false;
  const Eigen::VectorXd& values = eigen.eigenvalues();  // ascending
  const double largest = m > 0 ? values(m - 1) : 0.0;
  if (!(largest > 0.0) || !std::isfinite(largest)) return false;
  const double cut = std::max(kSmallestReciprocalCondition,
                              static_cast<double>(width) * std::numeric_limits<double>::epsilon()) * largest;
  const Eigen::Index nulls = static_cast<Eigen::Index>(
      std::upper_bound(values.data(), values.data() + m, cut) - values.data());
  const Eigen::MatrixXd range = eigen.eigenvectors().rightCols(m - nulls);
  Eigen::VectorXd p_w =
      scale.asDiagonal() * (range * (-(range.transpose() * (scale.asDiagonal() * r)).cwiseQuotient(values.tail(m - nulls))));
  if (nulls > 0) {
    const Eigen::HouseholderQR<Eigen::MatrixXd> basis(scale.asDiagonal() * eigen.eigenvectors().leftCols(nulls));
    const Eigen::MatrixXd q = basis.householderQ() * Eigen::MatrixXd::Identity(m, nulls);
    p_w -= q * (q.transpose() * p_w);
  }
  step.resize(width);
  step.head(m) = p_w;
  if (free > 0) {
    const Eigen::MatrixXd c = h.topRightCorner(m, free);
    step.tail(free) = -intercepts.solve(gradient.tail(free) + c.transpose() * p_w);
  }
  return step.allFinite();
}

}  // namespace

bool direct_newton_pays(double pairs, double entries, std::size_t width) {
  if (width > kMaxDirectNewtonWidth || !std::isfinite(pairs)) return false;
  const auto n = static_cast<double>(width);
  return pairs + n * n * n / 6.0 <= kDirectNewtonProducts * 2.0 * entries;
}

bool solve_newton_system(const std::vector<double>& packed_lower, const std::vector<double>& regulariser,
                         const std::vector<double>& g, std::size_t free_intercepts, std::vector<double>& p) {
  const auto width = static_cast<Eigen::Index>(g.size());
  Eigen::MatrixXd h = lower_from_packed(packed_lower, width,
                                        [&](Eigen::Index a) { return regulariser[static_cast<std::size_t>(a)]; });
  // Untouched and unpenalised: its gradient entry is 0, and so is its step.
  for (Eigen::Index a = 0; a < width; ++a)
    if (h(a, a) == 0.0) h(a, a) = 1.0;
  const Eigen::Map<const Eigen::VectorXd> gradient(g.data(), width);
  Eigen::VectorXd step;
  LowerCholesky cholesky(h);
  if (positive_definite(cholesky)) {
    step = cholesky.solve(-gradient);
  } else {
    // Again with unit diagonal, S H S with S = diag(H)^-1/2 (Jacobi scaling), and
    // p = S (S H S)^-1 S (-g): the same step, but the factorisation and its
    // condition check see the columns' correlations, not their scales. Unscaled,
    // unpenalised features of magnitude 1e-8 beside the intercept's column of
    // ones gave a condition number past 1e16 and no step, where the problem is
    // well posed (an unpenalised fit is equivariant under a column's scale).
    // Only where the plain factorisation fails, so that every system it solves
    // keeps its rounding. (Only the lower triangle of h is set, and read.)
    const Eigen::VectorXd scale = h.diagonal().cwiseSqrt().cwiseInverse();
    if (!scale.allFinite()) return false;
    Eigen::MatrixXd scaled = h;
    for (Eigen::Index a = 0; a < width; ++a)
      for (Eigen::Index b = 0; b <= a; ++b) scaled(a, b) *= scale(a) * scale(b);
    cholesky.compute(scaled);
    if (positive_definite(cholesky)) {
      step = scale.asDiagonal() * cholesky.solve(-(scale.asDiagonal() * gradient));
    } else {
      // Singular: without a penalty, the least-norm step (minimum_norm_step); with
      // one H is positive definite, and this is rounding the caller meets otherwise.
      const auto features = static_cast<std::ptrdiff_t>(g.size() - free_intercepts);
      if (std::any_of(regulariser.begin(), regulariser.begin() + features, [](double r) { return r != 0.0; }))
        return false;
      if (!minimum_norm_step(h, gradient, static_cast<Eigen::Index>(free_intercepts), step)) return false;
    }
  }
  if (!step.allFinite()) return false;
  p.assign(step.data(), step.data() + width);
  return true;
}

}  // namespace snapml::detail
