// The GPU Newton solver's kernels as the host calls them (cuda/src/primal/*.cu):
// the views of the device data they read, and one launcher per kernel family.
// Each launcher queues its kernels on `stream` and checks the launch; a fault
// inside a kernel surfaces at the next synchronising call, which the callers
// check too.
//
// Rows are cut into tiles (snapml/cuda/operations_plan.h). A tile holds its rows
// as CSR (RowTile: int32 offsets, {column, float value} entries, no intercept
// column: the row products add intercept.value * v[intercept.index]) and as the
// CSR of X^T (ColumnTile: {tile-local row, float value} entries, the intercept's
// column stored with value 1, so a product's entry there is the plain sum over
// the rows and its reader scales it). Per-row pointers passed with a tile point
// at the tile's first row.
//
// Sums over rows or weights are deterministic: each block reduces its share by a
// fixed tree, the last block to finish adds the blocks' partials in block order
// (reduce.cuh), and grids depend on the sizes only, never on the device: the same
// bits on every run and on every rank.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "snapml/cuda/operations_plan.h"
#include "snapml/error.h"
#include "snapml/host_device.h"
#include "snapml/losses/dispatch.h"
#include "snapml/losses/multinomial.h"

namespace snapml::cuda::primal {

inline constexpr int kThreads = 256;
// The most blocks a kernel that sums launches: the size of its partials.
inline constexpr int kMaxBlocks = 2048;
// The most sums one kernel returns.
inline constexpr int kMaxSums = 4;

struct Entry {
  std::int32_t index;  // the column (CSR) or the tile-local row (X^T)
  float value;
};
static_assert(sizeof(Entry) == 8, "an entry is one 8-byte load");

struct RowTile {
  std::int64_t n_rows = 0;
  const std::int32_t* offsets = nullptr;  // n_rows + 1
  const Entry* entries = nullptr;
  int lanes = 32;  // threads per row (lanes_for)
};

struct ColumnTile {
  std::int32_t n_columns = 0;             // n_weights
  const std::int32_t* offsets = nullptr;  // n_columns + 1
  const Entry* entries = nullptr;
  int lanes = 2;                          // ColumnPlan's
  std::int32_t long_threshold = 0;
  std::int32_t n_long = 0;
  const std::int32_t* long_columns = nullptr;  // n_long
  const std::int32_t* first_piece = nullptr;   // n_long + 1
  std::int32_t n_pieces = 0;
  const std::int32_t* piece_begin = nullptr;  // n_pieces
  const std::int32_t* piece_end = nullptr;
};

// Where a summing kernel leaves its sums: `result[0 .. count)`, overwritten, or
// added to with `accumulate` (the tiles of a pass add up). `partials` holds
// kMaxBlocks * kMaxSums doubles and `counter` one zero word between launches; one
// pair per stream.
struct Reduction {
  double* partials = nullptr;
  unsigned int* counter = nullptr;
  double* result = nullptr;
};

struct PrimalLoss {
  LossKind kind = LossKind::Logistic;
  double epsilon = 0.0;
};

// x_i's constant feature: entry `index` (n_features) of every row is `value` (0:
// no intercept).
struct Intercept {
  std::int32_t index = 0;
  double value = 0.0;
};

// Calls function(loss) with the loss struct of the scalar primal losses (the
// logistic, squared hinge and squared losses); throws InvalidArgument for another.
template <typename Function>
void with_primal_loss(const PrimalLoss& setup, Function&& function) {
  with_loss(setup.kind, setup.epsilon, 0.0, [&](const auto& loss) {
    using Loss = std::decay_t<decltype(loss)>;
    if constexpr (losses::is_primal_loss<Loss>::value)
      function(loss);
    else
      throw InvalidArgument(std::string("the ") + Loss::kName + " loss is not a primal loss");
  });
}

// ---- rows (row_kernels.cu) ----
// At the margins m_i = x_i . v (v null: m = 0) of the tile's rows: derivatives_i
// = C_i loss'(m_i), curvatures_i = C_i loss''(m_i) (0 where C_i = 0), and
// result[0] = sum_i C_i loss(m_i), result[1] = the paired dual values' sum.
void launch_margin_terms(const PrimalLoss& loss, const RowTile& tile, const double* v, Intercept intercept,
                         const double* targets, const double* costs, double* derivatives, double* curvatures,
                         Reduction reduction, bool accumulate, cudaStream_t stream);
// out_i = c_i (x_i . v), 0 where c_i = 0 (the squared hinge's inactive rows).
void launch_curvature_rows(const RowTile& tile, const double* v, Intercept intercept, const double* curvatures,
                           double* out, cudaStream_t stream);
// out_i = x_i . v
void launch_row_dots(const RowTile& tile, const double* v, Intercept intercept, double* out, cudaStream_t stream);
// In place: values_i = C_i > 0 ? values_i * coefficient(y_i) : 0 (a warm start's
// alpha to the derivatives whose X^T sum is w(alpha)).
void launch_alpha_derivatives(const PrimalLoss& loss, std::int64_t n, const double* targets, const double* costs,
                              double* values, cudaStream_t stream);
// alpha_i = -derivatives_i * coefficient(y_i): the dual point paired with the margins.
void launch_paired_alpha(const PrimalLoss& loss, std::int64_t n, const double* targets, const double* derivatives,
                         double* alpha, cudaStream_t stream);

// ---- the multinomial loss, K classes at once (class_rows.cu, column_kernels.cu) ----
// Per-row vectors of K entries are row-major (entry i K + k), weight-sized ones
// feature-major (WeightSetup). targets_i: row i's class index; costs_i: C_i.
// Margins m_ik = x_i . v_k; with p_i = softmax(m_i): derivatives_ik = C_i (p_ik -
// [k = y_i]), probabilities_ik = p_ik (both 0 where C_i = 0); result[0] = sum_i
// C_i (log sum_k exp m_ik - m_i,y_i), result[1] = sum_i C_i H(p_i), the paired dual
// point's dual values (losses/multinomial.h; multinomial_objective.cpp on the CPU).
void launch_softmax_terms(const RowTile& tile, int classes, const double* v, Intercept intercept,
                          const double* targets, const double* costs, double* derivatives, double* probabilities,
                          Reduction reduction, bool accumulate, cudaStream_t stream);
// The Hessian product's rows: with u_i = X v (K entries), out_ik = C_i p_ik (u_ik -
// sum_l p_il u_il).
void launch_softmax_curvature_rows(const RowTile& tile, int classes, const double* v, Intercept intercept,
                                   const double* costs, const double* probabilities, double* out,
                                   cudaStream_t stream);
// out_(j K + k) = sum_i x_ij z_ik (z row-major, K entries a row).
void launch_block_column_sums(const ColumnTile& tile, int classes, const double* z, double* out,
                              double* piece_partials, bool accumulate, cudaStream_t stream);
// out_g_(j K + k) = sum_i x_ij d_ik and out_h_(j K + k) = sum_i x_ij^2 C_i p_ik (1 -
// p_ik) (the Hessian's diagonal) in one pass.
void launch_softmax_column_gradient(const ColumnTile& tile, int classes, const double* d, const double* costs,
                                    const double* probabilities, double* out_g, double* out_h,
                                    double* piece_partials, bool accumulate, cudaStream_t stream);
// One row's work after its margins, written once for the kernels and the
// emulation's host loops. The margin pass: p (holding the margins on entry)
// becomes softmax(m), d = C (p - e_y); adds the row's loss and dual value to
// sums[0], sums[1]. A row with C = 0 gets zeros.
SNAPML_HOST_DEVICE inline void softmax_row(int classes, int y, double cost, double* p, double* d, double* sums) {
  if (!(cost > 0.0)) {  // a row absent from the problem: no loss, no curvature
    for (int k = 0; k < classes; ++k) p[k] = d[k] = 0.0;
    return;
  }
  const double own_margin = p[y];
  const double log_sum = losses::MultinomialLoss::softmax(p, classes, p);
  for (int k = 0; k < classes; ++k) d[k] = cost * (p[k] - (k == y ? 1.0 : 0.0));
  sums[0] += cost * (log_sum - own_margin);
  sums[1] += cost * losses::MultinomialLoss::entropy(p, classes);
}
// The Hessian product: u (X v's row on entry) becomes C p .* (u - p . u).
SNAPML_HOST_DEVICE inline void softmax_curvature_row(int classes, double cost, const double* p, double* u) {
  double mean = 0.0;
  for (int k = 0; k < classes; ++k) mean += p[k] * u[k];
  for (int k = 0; k < classes; ++k) u[k] = cost > 0.0 ? cost * p[k] * (u[k] - mean) : 0.0;
}

// The classes a launch of the kernels above sums at once (each pass over a tile's
// entries adds this many classes; more classes take more passes), and the
// piece partials' doubles per piece they need (every launcher's pieces fit).
inline constexpr int kClassChunk = 4;
inline constexpr int kPiecePartials = 2 * kClassChunk;

// ---- transposed rows (column_kernels.cu) ----
enum class ColumnSum { Plain, Squares };  // out_j = sum_i x_ij z_i, or sum_i x_ij^2 z_i
// `piece_partials`: 2 doubles per piece of the tile.
void launch_column_sums(const ColumnTile& tile, ColumnSum kind, const double* z, double* out, double* piece_partials,
                        bool accumulate, cudaStream_t stream);
// out_g_j = sum_i x_ij d_i and out_h_j = sum_i x_ij^2 c_i in one pass.
void launch_column_gradient(const ColumnTile& tile, const double* d, const double* c, double* out_g, double* out_h,
                            double* piece_partials, bool accumulate, cudaStream_t stream);

// ---- the transposition (transpose.cu) ----
struct TransposeScratch {
  std::uint32_t* keys_in = nullptr;    // items
  std::uint32_t* keys_out = nullptr;   // items
  std::uint64_t* values_in = nullptr;  // items
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
};
// The radix sort's scratch for `items` keys below n_columns (the current device's).
std::size_t transpose_temp_bytes(std::int64_t items, std::int32_t n_columns);
// X^T of the tile (`nnz` entries) into t_offsets (n_columns + 1) and t_entries
// (items): a stable radix sort of the entries by column, so each transposed row
// lists its rows in order; with `intercept` the column intercept_index gets every
// row with value 1. The scratch is sized for at least this tile's items.
void launch_transpose(const RowTile& tile, std::int64_t nnz, bool intercept, std::int32_t intercept_index,
                      std::int32_t n_columns, const TransposeScratch& scratch, std::int32_t* t_offsets,
                      Entry* t_entries, cudaStream_t stream);

// ---- weight-sized sweeps (sweep_kernels.cu) ----
// The parts' raw products, added in part order.
struct PartSums {
  const double* part[kMaxParts] = {};
  int count = 0;
};
// The weights' penalty: r_j = penalty, except 0 at the intercept's weight when it
// is free; and the intercept's scale in raw products. With K classes (the
// multinomial loss) the vectors hold K weights a feature, feature-major: entry
// j K + k is feature j's weight of class k, so the K intercept weights are the
// last K entries.
struct WeightSetup {
  std::int64_t n = 0;  // entries: n_weights x classes
  Intercept intercept;
  double penalty = 1.0;  // 1 under penalty L2, 0 under none
  bool penalise_intercept = true;
  std::int32_t classes = 1;
};

// Whether entry j of a weight-sized vector is an intercept weight.
SNAPML_HOST_DEVICE inline bool is_intercept(const WeightSetup& setup, std::int64_t j) {
  return j / setup.classes == setup.intercept.index;
}

SNAPML_HOST_DEVICE inline double regulariser(const WeightSetup& setup, std::int64_t j) {
  return (is_intercept(setup, j) && !setup.penalise_intercept) ? 0.0 : setup.penalty;
}

// The parts' raw product at j, added in part order, the intercept's entry scaled
// by value^power (power 0, 1 or 2: its column is stored with value 1).
SNAPML_HOST_DEVICE inline double raw_at(const PartSums& raw, const WeightSetup& setup, std::int64_t j, int power) {
  double sum = raw.part[0][j];
  for (int k = 1; k < raw.count; ++k) sum += raw.part[k][j];
  if (power > 0 && is_intercept(setup, j))
    sum *= power == 2 ? setup.intercept.value * setup.intercept.value : setup.intercept.value;
  return sum;
}
// g = raw_g + r w (the intercept's raw entry times its value), M_j =
// preconditioner_entry(r_j, raw_h_j) (its raw entry times value^2); result: ||g||^2,
// ||w - g||^2, sum_j g_j^2 / M_j.
void launch_gradient_epilogue(const WeightSetup& setup, const PartSums& raw_g, const PartSums& raw_h,
                              const double* w, double* g, double* m, Reduction reduction, cudaStream_t stream);
// hd = raw + r d; result: d . hd.
void launch_hessian_epilogue(const WeightSetup& setup, const PartSums& raw, const double* d, double* hd,
                             Reduction reduction, cudaStream_t stream);
// out = raw, the intercept's entry scaled by value^power (0: unscaled, for sums
// that are scaled later; 1: X^T z itself; 2: (X.^2)^T z).
void launch_assign_sum(const WeightSetup& setup, const PartSums& raw, int power, double* out, cudaStream_t stream);
// r = -g, d = r / M; result: r.d, d.M.d.
void launch_cg_start(std::int64_t n, const double* g, const double* m, double* r, double* d, Reduction reduction,
                     cudaStream_t stream);
// s += step d, r -= step hd, result_a: r.M^-1.r, r.r; then beta = result_a[0] /
// zr, d = r / M + beta d, result_b: s.M.d, d.M.d.
void launch_cg_advance(std::int64_t n, double step, double zr, double* s, double* r, double* d, const double* hd,
                       const double* m, Reduction reduction_a, Reduction reduction_b, cudaStream_t stream);
// s += tau d, r -= tau hd.
void launch_cg_boundary(std::int64_t n, double tau, double* s, double* r, const double* d, const double* hd,
                        cudaStream_t stream);
// trial = w + s; result: g.s, s.r, s.M.s, sum_j r_j trial_j^2.
void launch_trial_point(const WeightSetup& setup, const double* w, const double* s, const double* g, const double* r,
                        const double* m, double* trial, Reduction reduction, cudaStream_t stream);
// result: sum_j r_j w_j^2.
void launch_penalty(const WeightSetup& setup, const double* w, Reduction reduction, cudaStream_t stream);

}  // namespace snapml::cuda::primal
