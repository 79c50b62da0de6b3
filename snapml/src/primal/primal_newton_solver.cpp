// The primal trust-region Newton solver (TRON): Lin, Weng & Keerthi, "Trust
// region Newton method for large-scale logistic regression", JMLR 9 (2008),
// Algorithms 1 and 2; the solver of LIBLINEAR's -s 0, -s 2 and -s 11.
//
// It minimises
//   f(w) = sum_i C_i loss(y_i, x_i.w) + 0.5 sum_j r_j w_j^2
// with r_j = 1 for every feature under penalty L2, r = 0 for the intercept's
// weight when it is free, and r = 0 everywhere under penalty none. Each outer
// iteration solves the Newton system H s = -g approximately by conjugate
// gradients inside the trust region ||s|| <= Delta (Steihaug's rule: stop at the
// boundary, or on a direction of non-positive curvature), accepts w + s when the
// actual reduction is a fair share of the model's, and resizes Delta by how well
// the quadratic model predicted the reduction. The loss's derivatives come from
// its struct (losses/contract.h, is_primal_loss); the squared hinge and the
// epsilon-insensitive squared loss use the generalized Hessian (second
// derivative 0 on the rows outside the loss's active zone).
//
// Work: a gradient is one X w and one X^T d; a Hessian-vector product is one
// X^T D X v, over the MatrixOperations seam (snapml/impl/matrix_operations.h). With K
// ranks each product is summed over the ranks (one allreduce each), and every
// other step (CG's inner products, the trust region) runs on identical vectors
// on every rank, so K ranks take the single-process iterates up to rounding.
//
// Certificate (docs/algorithms.md, "Primal Newton"): with everything penalised
// the primal point gives the dual point alpha_i = -C_i loss'(m_i) c(y_i), whose
// w(alpha) = -X^T d = w - g (d_i = C_i loss'(m_i), g the gradient), so the gap
// P(w) - D(alpha) comes with every gradient at no extra pass, and the fit stops
// on the SDCA rule gap <= tol * P(w). With a free intercept the dual has one more
// constraint, s(alpha) = sum_i c(y_i) alpha_i = 0, which this alpha meets only at
// the optimum (s = -g_b / B, the intercept's gradient over its column): the scalar
// losses repair it as the dual solver's certificate does (free_intercept.h), alpha'
// = alpha + delta with the heavier class's alphas scaled towards 0 (regression:
// all shifted by -s / n), and D(alpha') = sum_i dual_value(alpha'_i) - 0.5 ||w_f -
// g_f + u||^2 over the features f, u = sum_i delta_i c(y_i) x_i, is a lower bound
// on P* by weak duality: exact, one pass for u. That pass is made only where the
// unrepaired gap is already within tol P (other records carry NaN and go on).
// Before it the free intercept stopped on the gradient rule with CG's forcing
// term alone, 23 passes a Newton iteration on a 21k x 131k click log against 14
// with the intercept penalised (docs/benchmarks/cpu.md, section 9). Without a
// penalty the fit stops on LIBLINEAR's ||g(w)|| <= tol * ||g(0)|| and the records
// carry NaN for dual and gap. The multinomial loss's free intercepts under penalty
// l2 by L-BFGS are centred before each gradient and certified by a dual point that
// meets their K constraints (multinomial_objective.cpp; `centred_`).
//
// The loss part is a NewtonObjective (newton_objective.h): the scalar losses in
// scalar_objective.cpp, the multinomial loss's K weight vectors in
// multinomial_objective.cpp; the trust region, CG and the certificate above are
// the same for both. This file is the driver (the sums over ranks, the records,
// which iterations run); the trust region's CPU backend is trust_region_cpu.cpp,
// L-BFGS and the Cholesky steps line_search_steps.cpp.
//
// The same solver also steps by limited-memory BFGS (PrimalMethod, solver.h;
// quasi_newton.h), the default for the multinomial loss: on news20 at C = 1 (raw
// counts, C max ||x||^2 = 4e5) the trust region stays at one CG step to its
// boundary per Newton iteration and takes thousands of passes where L-BFGS takes
// about 500 (docs/benchmarks/primal.md). Its line search reads no data (the
// margins of w + t p are m + t X p), so an iteration is two passes, X p and the
// gradient's X^T d; the records, the stopping rules and the ranks' sums are the
// trust region's.
//
// Where the weights are few (newton_direct.h), the Newton system is solved
// exactly instead: the whole Hessian is formed in one pass, factorised by
// Cholesky, and the step's length found by the same line search (three passes an
// iteration); the default for a penalised scalar loss whose Hessian costs at
// most ~20 Hessian-vector products to form.
#include "primal_newton_solver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "../common/omp_threads.h"
#include "newton_direct.h"
#include "trust_region.h"

namespace snapml {

void detail::NewtonObjective::hessian_matrix(double*) {
  throw InvalidArgument("the primal solver forms the whole Hessian for a scalar loss only");
}

void detail::NewtonObjective::dual_sides(double*) {
  throw InvalidArgument("the primal solver repairs the dual point of a scalar loss only");
}

double detail::NewtonObjective::feasible_dual(const double*, double*) {
  throw InvalidArgument("the primal solver repairs the dual point of a scalar loss only");
}

void detail::NewtonObjective::hessian_block(const std::int32_t*, int, double*) {
  throw InvalidArgument("the primal solver forms a block of the Hessian for a scalar loss only");
}

double detail::NewtonObjective::centre_intercepts(const double*, std::vector<double>&, std::vector<double>&,
                                                  Communicator&) {
  throw InvalidArgument("this loss does not centre free intercepts");
}

double detail::NewtonObjective::free_intercept_dual(const std::vector<double>&, const std::vector<double>&,
                                                    const std::vector<double>&, std::vector<double>&) {
  throw InvalidArgument("this loss has no free-intercept certificate");
}

namespace detail {

std::vector<double> PrimalNewtonSolver::prepare(ChunkSource& source, Communicator& communicator, SolverState& state) {
  communicator_ = &communicator;
  threads_ = detail::resolve_threads(parameters_.threads);
  std::int64_t features = source.n_features();
  communicator.allreduce_max(&features, 1);
  const auto n_features = static_cast<std::int32_t>(features);
  operations_ = std::make_unique<detail::CountedOperations>(
      make_operations_(source, n_features, parameters_.intercept_scaling, threads_));
  if (loss_is_per_class(parameters_.loss))
    objective_ = detail::make_multinomial_objective(*operations_, parameters_, threads_);
  else
    objective_ = detail::make_scalar_objective(*operations_, parameters_, threads_);
  const std::size_t width = objective_->width();
  repairs_dual_ = !parameters_.penalise_intercept && objective_->repairs_dual();
  // Penalty l1 (the multinomial loss): a = l1_ratio on |w_j| beside r_j = 1 - a,
  // scikit-learn's elastic net (l1_ratio 1: the pure L1 penalty).
  l1_ = parameters_.penalty == Penalty::L1 ? parameters_.l1_ratio : 0.0;
  regulariser_.assign(width, parameters_.penalty == Penalty::None ? 0.0 : 1.0 - l1_);
  l1_end_ = l1_ > 0.0 ? width : 0;
  if (!parameters_.penalise_intercept) {
    std::fill(regulariser_.end() - static_cast<std::ptrdiff_t>(objective_->intercept_count()), regulariser_.end(),
              0.0);
    if (l1_ > 0.0) l1_end_ = width - objective_->intercept_count();
  }
  // The same choice on every rank: from the pairs and entries summed over them.
  double work[3] = {operations_->hessian_matrix_pairs(), operations_->row_entries(),
                    static_cast<double>(operations_->n_rows())};
  communicator.allreduce_sum(work, 3);
  // Least squares without a penalty on fewer rows than weights: the fits are many,
  // and scikit-learn's is the one of least norm, which the direct step gives
  // (solve_newton_system) and the trust region's preconditioned steps do not. Its
  // Hessian, of at most rows x width^2 / 2 pairs, costs little to form there.
  // Wider than the direct step takes, plain CG gives it (least_norm_newton).
  const bool least_norm = parameters_.primal_method == PrimalMethod::Auto && parameters_.loss == LossKind::Squared &&
                          parameters_.penalty == Penalty::None && work[2] < static_cast<double>(width);
  const bool factorable = std::isfinite(work[0]) && width <= detail::kMaxDirectNewtonWidth;
  direct_ = parameters_.primal_method == PrimalMethod::Cholesky ||
            (parameters_.primal_method == PrimalMethod::Auto && !loss_is_per_class(parameters_.loss) &&
             parameters_.penalty != Penalty::L1 &&
             ((least_norm && factorable) || detail::direct_newton_pays(work[0], work[1], width)));
  least_norm_ = least_norm && !direct_;
  entries_ = work[1];
  rows_ = work[2];
  hot_chosen_ = false;
  hot_ = detail::HotBlock();
  std::vector<double> w = objective_->start(state, communicator);
  centred_ = uses_lbfgs() && objective_->certifies_free_intercepts();
  return w;
}

double PrimalNewtonSolver::cg_forcing(double gradient_norm, double start_gradient_norm, double target) const {
  if (hessian_is_constant() && target > 0.0) return 0.0;
  return detail::trust_region::cg_forcing(gradient_norm, start_gradient_norm);
}

double PrimalNewtonSolver::centre_intercepts(std::vector<double>& w, std::vector<double>& margins,
                                             std::vector<double>* step) {
  std::vector<double> shift;
  const std::size_t first = w.size() - objective_->intercept_count();  // the intercepts are the last weights
  const double change = objective_->centre_intercepts(w.data() + first, margins, shift, *communicator_);
  for (std::size_t k = 0; k < shift.size(); ++k) {
    w[first + k] += shift[k];
    if (step) (*step)[first + k] += shift[k];
  }
  return change;
}

double PrimalNewtonSolver::value(const std::vector<double>& w, std::vector<double>& margins) {
  double loss_sum = objective_->loss_sum(w, margins);
  communicator_->allreduce_sum(&loss_sum, 1);
  const double penalty = sum_over(w.size(), [&](std::size_t j) { return regulariser_[j] * w[j] * w[j]; });
  return loss_sum + 0.5 * penalty;
}

double PrimalNewtonSolver::gradient(const std::vector<double>& w, const std::vector<double>& margins,
                               std::vector<double>& g) {
  // One allreduce for X^T d and the dual sum.
  const std::size_t width = w.size();
  g.resize(width + 1);
  g[width] = objective_->gradient(margins, g.data());
  communicator_->allreduce_sum(g.data(), g.size());
  const double dual_sum = g[width];
  g.resize(width);
  const auto entries = static_cast<std::int64_t>(width);
SNAPML_OMP(parallel for num_threads(detail::threads_for(entries, threads_)) schedule(static))
  for (std::int64_t j = 0; j < entries; ++j) g[j] += regulariser_[j] * w[j];
  return dual_sum;
}

void PrimalNewtonSolver::update_preconditioner() {
  const std::size_t width = regulariser_.size();
  preconditioner_.resize(width);
  objective_->hessian_diagonal(preconditioner_.data());
  communicator_->allreduce_sum(preconditioner_.data(), width);
  // The block is chosen once, at the fit's first preconditioner (hot_block.h),
  // from the diagonal summed over the ranks: the same weights on every rank.
  if (!hot_chosen_) {
    hot_chosen_ = true;
    if (operations_->forms_hessian_block() && !loss_is_per_class(parameters_.loss))
      hot_.choose(preconditioner_, detail::hot_block_size(preconditioner_, entries_));
  }
  if (hot_.size() > 0) {
    const auto size = static_cast<std::size_t>(hot_.size());
    std::vector<double> packed(size * (size + 1) / 2);
    objective_->hessian_block(hot_.position().data(), hot_.size(), packed.data());
    communicator_->allreduce_sum(packed.data(), packed.size());
    hot_.factor(packed, regulariser_);
  }
  divisor_.resize(width);
  const bool blocked = hot_.active();
  const auto entries = static_cast<std::int64_t>(width);
SNAPML_OMP(parallel for num_threads(detail::threads_for(entries, threads_)) schedule(static))
  for (std::int64_t j = 0; j < entries; ++j) {
    if (blocked && hot_.position()[j] >= 0) {
      preconditioner_[j] = 0.0;
      divisor_[j] = std::numeric_limits<double>::infinity();
      continue;
    }
    preconditioner_[j] = blocked ? detail::entry_beside_block(regulariser_[j], preconditioner_[j])
                                 : detail::trust_region::preconditioner_entry(regulariser_[j], preconditioner_[j]);
    divisor_[j] = preconditioner_[j];
  }
}

double PrimalNewtonSolver::hessian_product(const std::vector<double>& v, std::vector<double>& out) {
  out.resize(v.size());
  objective_->hessian_product(v, out.data());
  communicator_->allreduce_sum(out.data(), out.size());
  // The penalty's part and v.H v in one sweep (on the threads: CG's sweeps over
  // the weights are a sixth of a wide set's fit on one thread).
  return detail::vector_sums<1>(static_cast<std::int64_t>(v.size()), threads_, [&](std::int64_t j, double* sum) {
    out[j] += regulariser_[j] * v[j];
    sum[0] += v[j] * out[j];
  })[0];
}

bool PrimalNewtonSolver::record(FitResult& result, const std::vector<double>& w, double f, const std::vector<double>& g,
                           double dual_sum, double first_gradient_norm) {
  detail::trust_region::IterateSums sums;
  // Penalty l1: F = f + a ||w||_1 and its minimum-norm sub-gradient.
  sums.primal = f + l1_term(w);
  if (l1_ > 0.0) pseudo_gradient(w, g, dual_weights_);
  sums.gradient_norm = norm(l1_ > 0.0 ? dual_weights_ : g);
  sums.dual_sum = dual_sum;
  if (repairs_dual_) {
    // D(alpha) of the paired point, feasible or not, is a lower bound only once
    // repaired; its gap says when the repair's pass is worth making: from an
    // unconstrained gap above tol P the repaired one is rarely below (the repair
    // moves D by O(|s|)), and the record then carries NaN (no certificate) and
    // goes on.
    const std::size_t features = w.size() - objective_->intercept_count();
    const double squared = sum_over(features, [&](std::size_t j) { return (w[j] - g[j]) * (w[j] - g[j]); });
    const bool near = f - (dual_sum - 0.5 * squared) <= parameters_.tol * f;
    sums.dual_sum = near ? repaired_dual(w, g) : std::numeric_limits<double>::quiet_NaN();
  } else if (centred_ || (certified() && l1_ > 0.0)) {
    // The dual point's weights v = X^T alpha (the paired point's, r w - g, or the
    // free intercepts' feasible point's) through the penalty's conjugate.
    double factor = 1.0;
    if (centred_) {
      factor = objective_->free_intercept_dual(w, g, regulariser_, dual_weights_);
    } else {
      dual_weights_.resize(w.size());
      for (std::size_t j = 0; j < w.size(); ++j) dual_weights_[j] = regulariser_[j] * w[j] - g[j];
    }
    penalty_dual(dual_weights_, factor, dual_sum, sums.dual_sum, sums.dual_weights_squared);
  } else if (certified()) {  // penalty l2: ||w(alpha)||^2 = ||w - g||^2
    sums.dual_weights_squared = sum_over(w.size(), [&](std::size_t j) { return (w[j] - g[j]) * (w[j] - g[j]); });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return detail::trust_region::record_iterate(result, parameters_, certified() || centred_, seconds,
                                              first_gradient_norm, sums);
}

double PrimalNewtonSolver::repaired_dual(const std::vector<double>& w, const std::vector<double>& g) {
  // D(alpha') = sum_i dual_value(alpha'_i) - 0.5 ||w(alpha) + u||^2 over the
  // features, w(alpha) = w - g there and u = sum_i delta_i c(y_i) x_i: exact, so
  // the record's gap is P(w, b) - D(alpha') itself.
  double sides[3];
  objective_->dual_sides(sides);
  communicator_->allreduce_sum(sides, 3);
  const std::size_t width = w.size();
  std::vector<double> moved(width + 1);
  moved[width] = objective_->feasible_dual(sides, moved.data());
  communicator_->allreduce_sum(moved.data(), moved.size());
  const std::size_t features = width - objective_->intercept_count();
  const double squared = sum_over(features, [&](std::size_t j) {
    const double weight = w[j] - g[j] + moved[j];
    return weight * weight;
  });
  return moved[width] - 0.5 * squared;
}

FitResult PrimalNewtonSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  started_ = std::chrono::steady_clock::now();
  std::vector<double> w = prepare(source, communicator, state);
  const std::size_t width = w.size();
  std::vector<double> margins(objective_->margins_size());
  std::vector<double> g;

  // The gradient rule's reference ||g(0)|| (LIBLINEAR's, whatever the start).
  double first_gradient_norm = 0.0;
  if (!certified() && !centred_) {
    const std::vector<double> zero(width, 0.0);
    std::fill(margins.begin(), margins.end(), 0.0);
    gradient(zero, margins, g);
    if (l1_ > 0.0) pseudo_gradient(zero, std::vector<double>(g), g);
    first_gradient_norm = norm(g);
  }
  double f = value(w, margins);
  if (centred_) f += centre_intercepts(w, margins, nullptr);
  const double dual_sum = gradient(w, margins, g);

  FitResult result;
  result.epochs = parameters_.first_epoch;  // a resumed fit goes on counting
  if (!record(result, w, f, g, dual_sum, first_gradient_norm)) {
    if (uses_lbfgs() && l1_ > 0.0)
      orthant_lbfgs(result, w, margins, g, f, first_gradient_norm);
    else if (uses_lbfgs())
      lbfgs(result, w, margins, g, f, first_gradient_norm);
    else if (direct_)
      direct_newton(result, w, margins, g, f, first_gradient_norm);
    else if (least_norm_)
      least_norm_newton(result, w, margins, g, f, first_gradient_norm);
    else if (parameters_.primal_method == PrimalMethod::LineSearch ||
             (parameters_.primal_method == PrimalMethod::Auto && hessian_is_constant() && certified()))
      // An exact model needs no radius: its one CG solve runs to the target (cg_forcing).
      newton_line_search(result, w, margins, g, f, first_gradient_norm);
    else
      trust_region(result, w, margins, g, f, first_gradient_norm);
  }
  objective_->finish(w, state);
  result.data_passes = operations_->passes();
  objective_.reset();
  operations_.reset();
  communicator_ = nullptr;
  return result;
}

void PrimalNewtonSolver::progress(const FitResult& result, const std::vector<double>& w) {
  // The weights are the whole iterate: a resumed fit starts from them.
  if (parameters_.on_progress)
    parameters_.on_progress(result.epochs, [&w] {
      SolverState state;
      state.weights = w;
      return state;
    });
}

}  // namespace detail

std::unique_ptr<Solver> make_tron_solver(const SolverParameters& parameters, MatrixOperationsFactory operations) {
  return std::make_unique<detail::PrimalNewtonSolver>(parameters, std::move(operations));
}

std::unique_ptr<Solver> make_tron_cpu_solver(const SolverParameters& parameters) {
  return make_tron_solver(parameters, &make_cpu_matrix_operations);
}

}  // namespace snapml

