// The primal Newton solver's driver (primal_newton_solver.cpp explains the method
// and its certificate), declared here for the files its iterations live in: the
// trust region's CPU backend (trust_region_cpu.cpp) and the steps along a line,
// L-BFGS and Newton by Cholesky (line_search_steps.cpp). The products run on any
// MatrixOperations backend (CPU threads, GPUs), so the name says primal Newton,
// not a device.
#pragma once

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../common/interleaved_sums.h"
#include "../common/omp_threads.h"
#include "counted_operations.h"
#include "hot_block.h"
#include "newton_objective.h"
#include "snapml/error.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"

namespace snapml::detail {

// L-BFGS's memory: the (s, y) pairs kept (scipy's L-BFGS-B, under scikit-learn's
// lbfgs, keeps 10).
inline constexpr int kLbfgsPairs = 10;

class PrimalNewtonSolver final : public Solver {
 public:
  PrimalNewtonSolver(const SolverParameters& parameters, MatrixOperationsFactory operations)
      : parameters_(parameters), make_operations_(std::move(operations)) {
    validate(parameters_);
    require(parameters_.penalty != Penalty::L1 || (loss_is_per_class(parameters_.loss) && uses_lbfgs()),
            "the primal Newton solver takes penalty l2 or none, and penalty l1 with the multinomial loss by "
            "L-BFGS; penalty l1 with a scalar loss trains by newGLMNET or coordinate descent (plan_solver picks "
            "them)");
    require(parameters_.primal_method != PrimalMethod::Cholesky || !loss_is_per_class(parameters_.loss),
            "the primal solver's Cholesky step takes a scalar loss; the multinomial loss steps by L-BFGS or the "
            "trust region");
    require(parameters_.primal_method != PrimalMethod::LineSearch || parameters_.penalty == Penalty::L2,
            "the primal solver's line-search Newton steps need penalty l2 (a positive definite Hessian); "
            "penalty none steps by the trust region");
    require(primal_solver_supports(parameters_.loss),
            std::string("the primal Newton solver needs a loss with a Lipschitz derivative; the ") +
                loss_name(parameters_.loss) + " loss is not one: use " + loss_names_text(primal_solver_supports));
  }

  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  // a . b by vector_sums: below kParallelEntries in one sweep; above, in ordered
  // blocks on the threads (the same bits for any thread count; the multinomial
  // loss's 1.24 million weights on news20, a third of a millisecond an
  // iteration for each such product on one thread). The CG sweeps
  // (trust_region_cpu.cpp) and the records' sums go the same way.
  double dot(const std::vector<double>& a, const std::vector<double>& b) const {
    return detail::vector_sums<1>(static_cast<std::int64_t>(a.size()), threads_,
                                  [&](std::int64_t j, double* sum) { sum[0] += a[j] * b[j]; })[0];
  }

  double norm(const std::vector<double>& a) const { return std::sqrt(dot(a, a)); }

  // sum_j term(j) over j < n, as dot sums.
  template <typename Term>
  double sum_over(std::size_t n, const Term& term) const {
    return detail::vector_sums<1>(static_cast<std::int64_t>(n), threads_, [&](std::int64_t j, double* sum) {
      sum[0] += term(static_cast<std::size_t>(j));
    })[0];
  }

  // a += scale * b
  static void axpy(double scale, const std::vector<double>& b, std::vector<double>& a) {
    for (std::size_t j = 0; j < a.size(); ++j) a[j] += scale * b[j];
  }

  // Whether the duality gap certifies the fit: everything penalised, or a free
  // intercept whose objective repairs the paired dual point (the scalar losses).
  bool certified() const {
    return parameters_.penalty != Penalty::None && (parameters_.penalise_intercept || repairs_dual_);
  }
  // The free intercept's lower bound D(alpha') for record(): the paired dual point
  // made feasible (one pass), from its dual sum and the weights w and gradient g.
  double repaired_dual(const std::vector<double>& w, const std::vector<double>& g);

  std::vector<double> prepare(ChunkSource& source, Communicator& communicator, SolverState& state);
  // f(w) from its margins (computed into `margins`).
  double value(const std::vector<double>& w, std::vector<double>& margins);
  // g(w) from the margins of w; keeps the curvatures for hessian_product and
  // returns sum_i dual_value(alpha_i) of the paired dual point.
  double gradient(const std::vector<double>& w, const std::vector<double>& margins, std::vector<double>& g);
  // M at the point of the last gradient(): (1 - a) I + a diag(H), or where the fit
  // has a hot block (hot_block.h) the block of H on its weights and diag(H) beside.
  void update_preconditioner();
  // out = H v at the point of the last gradient(); returns v.H v.
  double hessian_product(const std::vector<double>& v, std::vector<double>& out);
  // Appends the record of iterate w (value f, gradient g, dual sum) and returns
  // whether the stopping rule holds.
  bool record(FitResult& result, const std::vector<double>& w, double f, const std::vector<double>& g,
              double dual_sum, double first_gradient_norm);
  // Moves the free intercepts of w to their optimum given the other weights
  // (NewtonObjective::centre_intercepts): updates w, its margins, and `step`
  // where given; returns the change of f.
  double centre_intercepts(std::vector<double>& w, std::vector<double>& margins, std::vector<double>* step);
  // Calls on_progress with the iterate w.
  void progress(const FitResult& result, const std::vector<double>& w);
  // Whether H does not depend on w (ridge: the squared loss without its zone,
  // whose curvature is 2 on every row): the Newton model is f itself.
  bool hessian_is_constant() const { return parameters_.loss == LossKind::Squared && parameters_.epsilon == 0.0; }
  // CG's forcing term for a Newton system at gradient norm `gradient_norm` whose
  // solve stops at `target` too (cg_target): trust_region.h's, or 0 where H is
  // constant and a target exists. There the residual is the gradient at w + s
  // (the model is exact), and a solve stopped short by the forcing term leaves
  // the next iteration to start a new Krylov space from that point: scikit-learn's
  // Ridge() on text-160k took 5 Newton iterations and 5.0 s by the trust region,
  // 1 and 3.4 s so (docs/benchmarks/primal.md, "Ridge: a solve to the target").
  double cg_forcing(double gradient_norm, double start_gradient_norm, double target) const;
  bool uses_lbfgs() const {
    return parameters_.primal_method == PrimalMethod::Lbfgs ||
           (parameters_.primal_method == PrimalMethod::Auto && loss_is_per_class(parameters_.loss));
  }
  // The iterations from w (value f, gradient g, margins) after its record: the
  // trust-region Newton method (trust_region.h over TrustRegionSteps), L-BFGS
  // (quasi_newton.h), Newton steps by Cholesky (newton_direct.h), or Newton-CG
  // steps along a line. Each leaves
  // the last iterate in w and its gradient() as the objective's last.
  class TrustRegionSteps;
  void trust_region(FitResult& result, std::vector<double>& w, std::vector<double>& margins, std::vector<double>& g,
                    double f, double first_gradient_norm);
  void lbfgs(FitResult& result, std::vector<double>& w, std::vector<double>& margins, std::vector<double>& g,
             double f, double first_gradient_norm);
  // Penalty l1 or the elastic net (the multinomial loss): orthant-wise L-BFGS
  // (orthant_steps.cpp), f the smooth part's value.
  void orthant_lbfgs(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                     std::vector<double>& g, double f, double first_gradient_norm);
  // a sum_j |w_j| over the weights the L1 penalty holds (0 without it).
  double l1_term(const std::vector<double>& w) const;
  // F's minimum-norm sub-gradient at w from the smooth part's gradient g: g_j +
  // a sign(w_j) off zero, the sub-differential's point nearest 0 at zero (Andrew &
  // Gao's pseudo-gradient); g where the L1 penalty does not hold j.
  void pseudo_gradient(const std::vector<double>& w, const std::vector<double>& g, std::vector<double>& out) const;
  // record()'s dual bound: the dual point whose weights X^T alpha are `v` and whose
  // dual values sum to at least factor x dual_sum, made feasible for the penalty's
  // conjugate (scaled into ||v||_inf <= a for pure L1), as IterateSums' two
  // dual entries (D = dual_sum_out - 0.5 dual_weights_squared).
  void penalty_dual(const std::vector<double>& v, double factor, double dual_sum, double& dual_sum_out,
                    double& dual_weights_squared) const;
  void direct_newton(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                     std::vector<double>& g, double f, double first_gradient_norm);
  // The intercepts (the last weights) the penalty does not hold, which a singular
  // H's least-norm step leaves outside the norm.
  std::size_t free_intercepts() const {
    std::size_t free = 0;
    while (free < objective_->intercept_count() && regulariser_[regulariser_.size() - 1 - free] == 0.0) ++free;
    return free;
  }
  // Least squares without a penalty on fewer rows than weights, too wide for the
  // direct step: Newton's step of least norm by plain CG (line_search_steps.cpp).
  void least_norm_newton(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                         std::vector<double>& g, double f, double first_gradient_norm);
  // Newton's direction by TrustRegionSteps' CG with no radius, moved along by
  // newton_line_step (PrimalMethod::LineSearch).
  void newton_line_search(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                          std::vector<double>& g, double f, double first_gradient_norm);
  // One Newton iteration along direction p (slope = g.p) after its solve: the
  // line search from t = 1, the gradient, the record, the progress call. Returns
  // whether the iterations go on; where the slope is not negative (H numerically
  // singular) the trust region finishes the fit from w first.
  bool newton_line_step(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                        std::vector<double>& g, double& f, const std::vector<double>& p, double slope,
                        double first_gradient_norm);
  // Moves w, its margins and value f to a near minimiser of f along w + t p
  // (slope = g.p < 0), searching from t = start by the line search that reads no
  // data (quasi_newton.h; one pass for X p). Writes the step t p into `step`
  // where given. Returns t; 0 where no decrease is representable (w unchanged).
  double line_step(std::vector<double>& w, std::vector<double>& margins, double& f, const std::vector<double>& p,
                   double slope, double start, std::vector<double>* step);

  SolverParameters parameters_;
  MatrixOperationsFactory make_operations_;  // the products' backend (CPU threads, GPUs)
  Communicator* communicator_ = nullptr;
  std::unique_ptr<detail::CountedOperations> operations_;
  std::unique_ptr<detail::NewtonObjective> objective_;
  std::chrono::steady_clock::time_point started_;
  int threads_ = 1;
  bool direct_ = false;                 // whether the Newton steps are solved by Cholesky
  bool least_norm_ = false;             // whether they are least_norm_newton's
  bool repairs_dual_ = false;           // a free intercept certified by repaired_dual()
  // Whether L-BFGS centres free intercepts before each gradient and the records
  // certify the fit by the objective's free-intercept dual point.
  bool centred_ = false;
  std::vector<double> regulariser_;     // r_j
  // Penalty l1 (the multinomial loss): a sum_j |w_j| over the first l1_end_
  // weights (the features, and the intercepts where penalised) besides r_j = 1 - a.
  double l1_ = 0.0;
  std::size_t l1_end_ = 0;
  std::vector<double> dual_weights_;  // record()'s scratch: the pseudo-gradient, then X^T alpha
  // M at the last gradient(): M_j off the block and 0 on it (hot_), for the
  // M-norm products; divisor_ the same with +infinity on it, for M^-1 (0 there).
  std::vector<double> preconditioner_;
  std::vector<double> divisor_;
  detail::HotBlock hot_;
  bool hot_chosen_ = false;  // whether this fit has chosen hot_ (at its first preconditioner)
  double entries_ = 0.0;     // the rows' entries over every rank (MatrixOperations::row_entries)
  double rows_ = 0.0;        // the rows over every rank
  std::vector<double> line_margins_;    // X p of line_step's direction, kept between iterations
};

}  // namespace snapml::detail
