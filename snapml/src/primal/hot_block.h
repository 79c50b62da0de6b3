// The trust region's block preconditioner (trust_region_cpu.cpp,
// PrimalNewtonSolver::update_preconditioner): M is the exact block B of H on the
// few weights of the largest Hessian diagonal and diag(H) on the others, where
// LIBLINEAR's diagonal preconditioner (Hsia, Chiang & Lin, ACML 2018;
// trust_region.h's preconditioner_entry) sees only each weight's own scale.
//
// Why: a click log's frequent categorical values and the intercept are columns
// in a large share of the rows, and they overlap one another (a field's values
// sum to the intercept's column): H's ill conditioning lives in that small block,
// which a diagonal cannot undo. With it CG needs far fewer products: on the
// generated 2M-row click log (70M non-zeros, -s 0 -c 0.1 -e 1e-4, 2 threads) CG
// took 41 steps over 8 Newton iterations against 132 over 10 (an instrumented
// build), and the fit 0.48-0.51 of the diagonal's time (docs/benchmarks/primal.md,
// "A block for the hot columns"). Where the heaviest weights hold a smaller share
// of the diagonal (at the fit's start, news20 binary 46 % in its heaviest 256,
// text-like data 54 %) the whole diagonal beside a block costs CG more steps than
// LIBLINEAR's mix with the identity (news20 binary: 91 steps mixed, 148 with a
// 256-weight block), so those fits keep the mix (kHotDiagonalShare).
//
// Forming B is one pass (MatrixOperations::hessian_block: each row's pairs of
// entries in the block, about 3 Hessian-vector products' time on the 2M-row click
// log at 512 weights) and its Cholesky factorisation size^3 / 3 multiply-adds,
// at each Newton iteration's preconditioner; each CG iteration adds two
// size x size products.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace snapml::detail {

// The block's size: the largest power of two from kFewestHotWeights to
// kMostHotWeights whose factorisation (size^3 / 3) costs at most the data's
// `entries` (a pass), if the heaviest that many of `diagonal` (H's diagonal at the
// fit's start, the penalty's left out) hold at least kHotDiagonalShare of its sum;
// else 0, no block. At most half the weights: a narrower w is solved by
// Cholesky whole (newton_direct.h).
inline constexpr int kFewestHotWeights = 64;
inline constexpr int kMostHotWeights = 1024;
inline constexpr double kHotDiagonalShare = 0.85;
int hot_block_size(const std::vector<double>& diagonal, double entries);

// M_j beside an active block, from the penalty's r_j and H's diagonal entry: the
// whole diagonal (trust_region.h's preconditioner_entry mixes it with the
// identity; beside a block the weights just outside it were then scaled unlike
// those inside, and CG took more steps than with no block: docs/benchmarks/
// primal.md). 1 for a weight no row touches and no penalty holds.
inline double entry_beside_block(double regulariser, double hessian_diagonal) {
  const double diagonal = regulariser + hessian_diagonal;
  return diagonal > 0.0 ? diagonal : 1.0;
}

class HotBlock {
 public:
  HotBlock();
  ~HotBlock();
  HotBlock(HotBlock&&) noexcept;
  HotBlock& operator=(HotBlock&&) noexcept;

  // Chooses the block's weights: the `size` entries of largest `diagonal` (ties
  // to the lower index), placed in increasing weight order. size 0: no block.
  // Every rank chooses the same from the same (summed) diagonal.
  void choose(const std::vector<double>& diagonal, int size);
  int size() const { return static_cast<int>(weights_.size()); }
  // Whether the last factor() succeeded: the block preconditions its weights.
  bool active() const { return factor_ != nullptr; }
  // Each weight's place in the block, or -1 (MatrixOperations::hessian_block).
  const std::vector<std::int32_t>& position() const { return position_; }
  const std::vector<std::int32_t>& weights() const { return weights_; }

  // Factorises B = the packed lower triangle `packed` plus regulariser on its
  // diagonal. False where B is not numerically positive definite (no penalty,
  // collinear columns): the caller then preconditions by the diagonal alone.
  bool factor(const std::vector<double>& packed, const std::vector<double>& regulariser);

  // a_B . B^-1 a_B over the block's entries of a; where `out` is given, B^-1 a_B
  // is written into its block entries.
  double inverse_product(const std::vector<double>& a, std::vector<double>* out) const;
  // a_B . B b_B
  double product(const std::vector<double>& a, const std::vector<double>& b) const;

 private:
  struct Factor;
  std::vector<std::int32_t> weights_;
  std::vector<std::int32_t> position_;
  std::unique_ptr<Factor> factor_;
};

}  // namespace snapml::detail
