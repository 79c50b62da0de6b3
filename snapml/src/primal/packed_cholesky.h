// A symmetric matrix given by its packed lower triangle (entry (a, b), a >= b, at
// a (a + 1) / 2 + b: MatrixOperations::hessian_matrix and hessian_block), plus a
// diagonal, factorised by Cholesky: the direct Newton step's whole Hessian
// (newton_direct.cpp) and the trust region's hot block (hot_block.cpp).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace snapml::detail {

using LowerCholesky = Eigen::LLT<Eigen::MatrixXd, Eigen::Lower>;

// Singular up to rounding (collinear columns, no penalty): a factorisation that
// succeeds by a rounding error would step without bound along the null space.
// With the penalty H >= I, far from this (a9a at C = 1e6: ~1e-10).
inline constexpr double kSmallestReciprocalCondition = 1e-13;

// The lower triangle of the n x n matrix packed in `packed_lower` with
// `diagonal(a)` added to entry (a, a); the upper triangle is left unset (the
// factorisation and selfadjointView<Lower> read the lower one only).
template <typename Diagonal>
Eigen::MatrixXd lower_from_packed(const std::vector<double>& packed_lower, Eigen::Index n, const Diagonal& diagonal) {
  Eigen::MatrixXd matrix(n, n);
  for (Eigen::Index a = 0; a < n; ++a) {
    const double* row = packed_lower.data() + static_cast<std::size_t>(a * (a + 1) / 2);
    for (Eigen::Index b = 0; b < a; ++b) matrix(a, b) = row[b];
    matrix(a, a) = row[a] + diagonal(a);
  }
  return matrix;
}

// Whether the factorisation succeeded and is not singular up to rounding.
inline bool positive_definite(const LowerCholesky& cholesky) {
  return cholesky.info() == Eigen::Success && cholesky.rcond() >= kSmallestReciprocalCondition;
}

}  // namespace snapml::detail
