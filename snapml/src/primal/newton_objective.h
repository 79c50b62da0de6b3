// What the primal Newton solver (primal_newton_solver.cpp) minimises, as it sees it: the loss part
// of f(w) = sum_i C_i loss_i(w) + 0.5 sum_j r_j w_j^2 over this rank's rows, with
// its gradient, Hessian-vector products, Hessian diagonal and the paired dual
// point. The trust region, CG, the penalty, the sums over ranks and the
// certificate are the solver's, written once; an objective is one loss family
// over the MatrixOperations seam: the scalar losses (one weight vector,
// scalar_objective.cpp) and the multinomial loss (K weight vectors,
// multinomial_objective.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "../common/omp_threads.h"
#include "snapml/communicator.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml::detail {

// Relative differences of the objective below this are rounding: its terms are
// all >= 0, so its rounding is a few thousand ulps of it at most, summed in blocks
// (ordered_sum). The line search (quasi_newton.cpp) and the multinomial loss's
// intercept centring (multinomial_objective.cpp) read two values this close as equal.
inline constexpr double kValueRounding = 1e-12;

// The loss part along the line m + t u of margins (the quasi-Newton line search,
// quasi_newton.h): its value and first two derivatives in t.
struct LineValues {
  double value = 0.0;
  double slope = 0.0;
  double curvature = 0.0;
  LineValues& operator+=(const LineValues& other) {
    value += other.value;
    slope += other.slope;
    curvature += other.curvature;
    return *this;
  }
};

class NewtonObjective {
 public:
  virtual ~NewtonObjective() = default;
  // Weights the solver iterates on; the penalty-free ones (the intercepts when
  // they are free) are the last intercept_count() of them.
  virtual std::size_t width() const = 0;
  virtual std::size_t intercept_count() const = 0;
  // Entries of the per-row margins array.
  virtual std::size_t margins_size() const = 0;
  // The solver's starting weights from `state` (SolverState's warm-start rule;
  // local products summed over `communicator`).
  virtual std::vector<double> start(SolverState& state, Communicator& communicator) = 0;
  // sum_i C_i loss_i at w over this rank's rows; writes w's margins.
  virtual double loss_sum(const std::vector<double>& w, std::vector<double>& margins) = 0;
  // The margins of v alone (one pass; the intercepts' included). Margins are
  // linear in the weights: those of w + t v are m(w) + t m(v).
  virtual void margins(const std::vector<double>& v, std::vector<double>& out) = 0;
  // sum_i C_i loss_i at the margins m + t u over this rank's rows, with its
  // derivatives in t: no pass over the data.
  virtual LineValues along_line(const std::vector<double>& m, const std::vector<double>& u, double t) = 0;
  // This rank's share of the loss's gradient into g (width() entries) from w's
  // margins; keeps the curvatures for the products below and returns this rank's
  // sum of the paired dual point's dual values.
  virtual double gradient(const std::vector<double>& margins, double* g) = 0;
  // This rank's share of (the loss's Hessian) v at the last gradient()'s point.
  virtual void hessian_product(const std::vector<double>& v, double* out) = 0;
  // This rank's share of the loss's Hessian diagonal at that point.
  virtual void hessian_diagonal(double* out) = 0;
  // This rank's share of the whole loss Hessian at that point, packed as
  // MatrixOperations::hessian_matrix packs it (the direct Newton step,
  // newton_direct.h). The scalar losses only: the solver asks no other.
  virtual void hessian_matrix(double* out);
  // This rank's share of the loss Hessian's block on the weights that `position`
  // places (MatrixOperations::hessian_block). The scalar losses only.
  virtual void hessian_block(const std::int32_t* position, int size, double* out);
  // Writes the solution into `state` in SolverState's layout: the weights, and the
  // dual point paired with the last gradient().
  virtual void finish(const std::vector<double>& w, SolverState& state) = 0;

  // A free intercept's certificate (primal_newton_solver.cpp, "Certificate"):
  // whether this objective makes the paired dual point feasible for the
  // constraint s(alpha) = sum_i c(y_i) alpha_i = 0. The multinomial loss does not.
  virtual bool repairs_dual() const { return false; }
  // This rank's sums of the paired alpha (at the last gradient()) per side, into
  // sides[0..2]: classification's S_+ and S_- (the rows with y = +1 and -1) and
  // the rows with a cost; regression's rows all count on the first side.
  virtual void dual_sides(double* sides);
  // From the sides summed over the ranks: the feasible alpha' = alpha + delta
  // (dual_repair, snapml/impl/objectives.h). Writes this rank's u = sum_i delta_i c(y_i) x_i into
  // `moved` (width() entries; the intercept's last, which the caller ignores;
  // one pass, none where delta = 0) and returns this rank's sum_i
  // dual_value(alpha'_i).
  virtual double feasible_dual(const double* sides, double* moved);

  // Free intercepts with the weights penalised (penalty l2 or l1): the objectives that
  // certify such a fit (the multinomial loss, multinomial_objective.cpp) answer
  // true. The dual then has the constraint sum_i alpha_i = 0 that the paired
  // point meets only where the intercepts' gradient is 0.
  virtual bool certifies_free_intercepts() const { return false; }
  // Moves the intercepts (now `intercepts`, intercept_count() entries) to the
  // minimiser of the loss over them with the other weights fixed (no pass over
  // the data: they shift every row's margins by a constant), summed over
  // `communicator`'s ranks: writes the new margins, the intercepts' change into
  // `shift` (the last of w's) and returns the loss sum's change. Where the loss
  // is flat along a direction of the intercepts (the softmax's, all K moved
  // alike), the minimiser taken is the one whose intercepts are 0 along it. Only
  // where certifies_free_intercepts().
  virtual double centre_intercepts(const double* intercepts, std::vector<double>& margins,
                                   std::vector<double>& shift, Communicator& communicator);
  // The certificate's dual point at iterate w with gradient g (summed over the
  // ranks; g = r w - v with v = X^T alpha the paired point's weights, r the
  // penalty's diagonal): a dual point alpha' that meets the constraint, near the
  // paired one. Writes X^T alpha' into `dual_weights` (w's layout, the free
  // intercepts' entries 0) and returns a factor that the paired point's
  // sum_i dual_value times bounds alpha''s from below; -inf where no such point
  // is found. Only where certifies_free_intercepts().
  virtual double free_intercept_dual(const std::vector<double>& w, const std::vector<double>& g,
                                     const std::vector<double>& regulariser, std::vector<double>& dual_weights);
};


// The scalar losses over `operations` (scalar_objective.cpp).
std::unique_ptr<NewtonObjective> make_scalar_objective(MatrixOperations& operations, const SolverParameters& parameters,
                                                       int threads);

// The multinomial loss over `operations` (multinomial_objective.cpp).
std::unique_ptr<NewtonObjective> make_multinomial_objective(MatrixOperations& operations,
                                                           const SolverParameters& parameters, int threads);

// Sum over i < n of term(i), in blocks of rows whose sums are added in order: the
// same bits for any thread count. The terms are doubles, or any value type with
// += (LineValues).
template <typename Term, typename Value = std::decay_t<std::invoke_result_t<const Term&, std::int64_t>>>
Value ordered_sum(std::int64_t n, int threads, const Term& term) {
  const std::int64_t blocks = row_blocks(n);
  std::vector<Value> sums(static_cast<std::size_t>(blocks), Value{});
SNAPML_OMP(parallel for num_threads(threads) schedule(static))
  for (std::int64_t block = 0; block < blocks; ++block) {
    Value sum{};
    const std::int64_t end = std::min(n, (block + 1) * kRowBlock);
    for (std::int64_t i = block * kRowBlock; i < end; ++i) sum += term(i);
    sums[static_cast<std::size_t>(block)] = sum;
  }
  Value total{};
  for (const Value& s : sums) total += s;
  return total;
}

}  // namespace snapml::detail
