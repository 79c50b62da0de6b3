// The direct Newton step of the primal solver (primal_newton_solver.cpp, PrimalMethod::Cholesky):
// where the weights are few, the whole Hessian H = X^T D X + diag(r) is formed in
// one pass (MatrixOperations::hessian_matrix) and H p = -g solved by its Cholesky
// factorisation, as scikit-learn's "newton-cholesky" does. A trust-region
// iteration spends conjugate-gradient steps, a Hessian-vector product each, on the
// same system; on a9a at C = 1 to tight tolerance that is ~45 products per Newton
// iteration where forming H costs about 4 (docs/algorithms.md, "Primal Newton").
#pragma once

#include <cstddef>
#include <vector>

namespace snapml::detail {

// Whether forming H (`pairs` entry pairs over every rank's rows, width weights)
// and factorising it (width^3 / 6 multiply-adds) costs at most what
// kDirectNewtonProducts Hessian-vector products over the same rows (`entries`
// entries, each visited twice) cost; never above kMaxDirectNewtonWidth weights,
// whose matrix (one per thread) must stay small.
constexpr std::size_t kMaxDirectNewtonWidth = 1024;
constexpr double kDirectNewtonProducts = 20.0;
bool direct_newton_pays(double pairs, double entries, std::size_t width);

// Solves H p = -g for the symmetric H given by its packed lower triangle (entry
// (a, b), a >= b, at a (a + 1) / 2 + b; `regulariser` r added to its diagonal) by
// Cholesky's factorisation. A weight no row touches and no penalty holds (a zero
// row and column of H, its gradient entry 0) steps by 0. Where H is singular and
// nothing is penalised (collinear columns, fewer rows than weights), p is the
// solution of least norm over the features, the last `free_intercepts` weights
// (free intercepts) left outside the norm: scikit-learn's least-squares solution
// (lstsq) when the fit starts from w = 0. Returns false where no step is found
// (a penalised H not numerically positive definite, which a penalty rules out
// but for rounding): the caller steps another way.
bool solve_newton_system(const std::vector<double>& packed_lower, const std::vector<double>& regulariser,
                         const std::vector<double>& g, std::size_t free_intercepts, std::vector<double>& p);

}  // namespace snapml::detail
