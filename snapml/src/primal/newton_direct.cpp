#include "newton_direct.h"

#include <cmath>

#include "packed_cholesky.h"

namespace snapml::detail {

bool direct_newton_pays(double pairs, double entries, std::size_t width) {
  if (width > kMaxDirectNewtonWidth || !std::isfinite(pairs)) return false;
  const auto n = static_cast<double>(width);
  return pairs + n * n * n / 6.0 <= kDirectNewtonProducts * 2.0 * entries;
}

bool solve_newton_system(const std::vector<double>& packed_lower, const std::vector<double>& regulariser,
                         const std::vector<double>& g, std::vector<double>& p) {
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
    for (Eigen::Index a = 0; a < width; ++a)
      for (Eigen::Index b = 0; b <= a; ++b) h(a, b) *= scale(a) * scale(b);
    cholesky.compute(h);
    if (!positive_definite(cholesky)) return false;
    step = scale.asDiagonal() * cholesky.solve(-(scale.asDiagonal() * gradient));
  }
  if (!step.allFinite()) return false;
  p.assign(step.data(), step.data() + width);
  return true;
}

}  // namespace snapml::detail
