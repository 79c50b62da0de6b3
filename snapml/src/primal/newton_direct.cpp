#include "newton_direct.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cmath>

namespace snapml::detail {
namespace {

constexpr double kSmallestReciprocalCondition = 1e-13;

}  // namespace

bool direct_newton_pays(double pairs, double entries, std::size_t width) {
  if (width > kMaxDirectNewtonWidth || !std::isfinite(pairs)) return false;
  const auto n = static_cast<double>(width);
  return pairs + n * n * n / 6.0 <= kDirectNewtonProducts * 2.0 * entries;
}

bool solve_newton_system(const std::vector<double>& packed_lower, const std::vector<double>& regulariser,
                         const std::vector<double>& g, std::vector<double>& p) {
  const auto width = static_cast<Eigen::Index>(g.size());
  Eigen::MatrixXd h(width, width);
  for (Eigen::Index a = 0; a < width; ++a) {
    const double* row = packed_lower.data() + static_cast<std::size_t>(a * (a + 1) / 2);
    for (Eigen::Index b = 0; b < a; ++b) h(a, b) = row[b];
    h(a, a) = row[a] + regulariser[static_cast<std::size_t>(a)];
    // Untouched and unpenalised: its gradient entry is 0, and so is its step.
    if (h(a, a) == 0.0) h(a, a) = 1.0;
  }
  const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> cholesky(h);
  // Singular up to rounding (collinear columns, no penalty): a factorisation
  // that succeeds by a rounding error would step without bound along H's null
  // space. With the penalty H >= I, far from this (a9a at C = 1e6: ~1e-10).
  if (cholesky.info() != Eigen::Success || cholesky.rcond() < kSmallestReciprocalCondition) return false;
  const Eigen::VectorXd step = cholesky.solve(-Eigen::Map<const Eigen::VectorXd>(g.data(), width));
  if (!step.allFinite()) return false;
  p.assign(step.data(), step.data() + width);
  return true;
}

}  // namespace snapml::detail
