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
  const LowerCholesky cholesky(h);
  if (!positive_definite(cholesky)) return false;
  const Eigen::VectorXd step = cholesky.solve(-Eigen::Map<const Eigen::VectorXd>(g.data(), width));
  if (!step.allFinite()) return false;
  p.assign(step.data(), step.data() + width);
  return true;
}

}  // namespace snapml::detail
