// The matrix-operations seam of the primal Newton solver (snapml/src/primal/primal_newton_solver.cpp).
//
// TRON's work is three products with this rank's rows x_i (each with the
// constant feature `bias_value` appended at index n_features, the intercept's):
//   margins          m = X w
//   transpose_times  X^T d
//   hessian_product  X^T D X v   (D diagonal: the loss's second derivatives)
//   hessian_diagonal diag(X^T D X) = sum_i D_i x_ij^2 (CG's preconditioner)
//   hessian_matrix   X^T D X itself, where it is small (the direct Newton step)
// and their block forms over K weight vectors at once (the multinomial loss's K
// rows: one pass over the data instead of K).
// Everything else (the losses, the trust region, conjugate gradients, the sums
// over ranks) is the solver's, written once over this interface; a backend
// implements the products where the rows are: CPU threads here
// (make_cpu_matrix_operations), GPUs (cuda/src/primal/matrix_operations_gpu.cpp:
// the L-BFGS and Cholesky steps and the multinomial loss on a GPU; the trust
// region there runs device-resident instead; docs/gpu.md, "Primal Newton on the GPU").
// Products are local to the rank: the solver sums X^T d and X^T D X v over the
// ranks through its Communicator.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "snapml/chunk_source.h"

namespace snapml {

class Solver;
struct SolverParameters;

class MatrixOperations {
 public:
  virtual ~MatrixOperations() = default;
  // This rank's rows; every per-row array below has this many entries, in the
  // source's visiting order.
  virtual std::int64_t n_rows() const = 0;
  // Weights per product: the global n_features + 1 (the intercept's last).
  virtual std::size_t n_weights() const = 0;
  // Each row's label and sample weight (1 where the data has none).
  virtual void rows(double* labels, double* sample_weights) = 0;
  // out[i] = x_i . w
  virtual void margins(const double* w, double* out) = 0;
  // out = sum_i d[i] x_i (n_weights() entries, overwritten).
  virtual void transpose_times(const double* d, double* out) = 0;
  // out = sum_i curvature[i] (x_i . v) x_i, skipping the rows whose curvature is 0
  // (the squared hinge's inactive rows). Overwrites out.
  virtual void hessian_product(const double* curvature, const double* v, double* out) = 0;
  // out[j] = sum_i curvature[i] x_ij^2 (the diagonal of X^T D X), skipping the
  // rows whose curvature is 0. Overwrites out.
  virtual void hessian_diagonal(const double* curvature, double* out) = 0;

  // The whole of X^T D X: its lower triangle packed row by row, entry (a, b) with
  // a >= b at a (a + 1) / 2 + b (n_weights() (n_weights() + 1) / 2 entries),
  // skipping the rows whose curvature is 0. Overwrites out. The default builds it
  // column by column from n_weights() Hessian-vector products (a pass each): right
  // on any backend; the CPU backend forms it in one pass (hessian_matrix_pairs).
  virtual void hessian_matrix(const double* curvature, double* out);
  // What one hessian_matrix visits on this rank: the pairs of entries of each row,
  // sum_i e_i (e_i + 1) / 2 over its e_i entries (the bias among them), and the
  // entries themselves, sum_i e_i (a Hessian-vector product visits each twice).
  // Known after rows(); pairs are infinite where the backend has only the
  // column-by-column default.
  virtual double hessian_matrix_pairs() const;
  virtual double row_entries() const;

  // The block of X^T D X on `size` weights: position[j] (n_weights() entries) is
  // weight j's place in the block, or -1 for a weight outside it; out gets the
  // block's lower triangle packed as hessian_matrix packs it (entry (a, b), a >= b,
  // at a (a + 1) / 2 + b), skipping the rows whose curvature is 0. One pass
  // (the trust region's block preconditioner, hot_block.h). Only where
  // forms_hessian_block(): the default throws.
  virtual bool forms_hessian_block() const { return false; }
  virtual void hessian_block(const double* curvature, const std::int32_t* position, int size, double* out);

  // Block forms over `columns` = K vectors: weights feature-major (w[j * K + k],
  // n_weights() x K), per-row arrays row-major (d[i * K + k], n_rows() x K). The
  // defaults call the single products once per column; a backend overrides them
  // with one pass.
  // out[i * K + k] = x_i . w_k
  virtual void margins_block(const double* w, int columns, double* out);
  // out[j * K + k] = sum_i d[i * K + k] x_ij (overwritten)
  virtual void transpose_times_block(const double* d, int columns, double* out);
  // out[j * K + k] = sum_i curvature[i * K + k] x_ij^2 (overwritten)
  virtual void hessian_diagonal_block(const double* curvature, int columns, double* out);
};

// Builds the backend a fit runs over: (source, global n_features, bias_value,
// threads) as make_cpu_matrix_operations takes them. The primal solver is written
// once over this; make_tron_solver takes the backend (snapml/src/primal/primal_newton_solver.cpp).
using MatrixOperationsFactory = std::function<std::unique_ptr<MatrixOperations>(
    ChunkSource& source, std::int32_t n_features, double bias_value, int threads)>;

// The primal Newton solver over the backend `operations` builds in each fit
// (make_tron_cpu_solver passes make_cpu_matrix_operations).
std::unique_ptr<Solver> make_tron_solver(const SolverParameters& parameters, MatrixOperationsFactory operations);

// Over the chunks of `source` (read again for every product; a resident source
// costs no I/O) with `threads` OpenMP threads (0: all). Each thread sums its
// contiguous share of a chunk's rows into a vector of its own and the vectors are
// added in thread order, so a product's rounding depends on the thread count
// only, not on the schedule: a fit is repeatable. That costs threads x
// n_weights doubles. `n_features` is the global count (at least the source's).
std::unique_ptr<MatrixOperations> make_cpu_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                             double bias_value, int threads);

}  // namespace snapml
