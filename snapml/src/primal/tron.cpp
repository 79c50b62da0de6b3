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
// on the SDCA rule gap <= tol * P(w). With a free intercept or no penalty the
// dual has a constraint this alpha does not meet: the fit stops on LIBLINEAR's
// ||g(w)|| <= tol * ||g(0)|| and the records carry NaN for dual and gap.
//
// The loss part is a NewtonObjective (tron_objective.h): the scalar losses here,
// the multinomial loss's K weight vectors in tron_multinomial.cpp; the trust
// region, CG and the certificate above are the same for both.
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
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "counted_operations.h"
#include "../common/interleaved_sums.h"
#include "newton_direct.h"
#include "../common/omp_threads.h"
#include "trust_region.h"
#include "quasi_newton.h"
#include "tron_objective.h"
#include "snapml/error.h"
#include "snapml/losses/primal_terms.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/impl/objectives.h"
#include "snapml/solver.h"

namespace snapml {
namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  return detail::interleaved_dot(a.data(), b.data(), 0, static_cast<std::int64_t>(a.size()));
}

double norm(const std::vector<double>& a) { return std::sqrt(dot(a, a)); }

// a += scale * b
void axpy(double scale, const std::vector<double>& b, std::vector<double>& a) {
  for (std::size_t j = 0; j < a.size(); ++j) a[j] += scale * b[j];
}

// The trust region's constants and rules (radius, boundary step, forcing term,
// acceptance, the record and its stopping rule) and its two loops are
// primal/trust_region.h's, shared with the GPU solver; this file is their CPU
// backend (TrustRegionSteps below).
// L-BFGS's memory: the (s, y) pairs kept (scipy's L-BFGS-B, under scikit-learn's
// lbfgs, keeps 10).
constexpr int kLbfgsPairs = 10;

// The scalar primal losses (logistic, squared hinge, squared): one weight vector
// of n_features + 1 entries, the intercept's last.
class ScalarObjective final : public detail::NewtonObjective {
 public:
  ScalarObjective(MatrixOperations& operations, const SolverParameters& parameters, int threads)
      : operations_(operations), parameters_(parameters), threads_(threads), n_rows_(operations.n_rows()) {
    const auto rows = static_cast<std::size_t>(n_rows_);
    targets_.assign(rows, 0.0);
    costs_.assign(rows, 0.0);
    operations_.rows(targets_.data(), costs_.data());
    const RowTargets row_targets = RowTargets::from(parameters_);
    for (std::size_t i = 0; i < rows; ++i) {
      targets_[i] = row_targets.target(targets_[i]);
      costs_[i] = row_targets.cost(targets_[i], static_cast<float>(costs_[i]));
    }
    derivatives_.assign(rows, 0.0);
    curvatures_.assign(rows, 0.0);
  }

  std::size_t width() const override { return operations_.n_weights(); }
  std::size_t intercept_count() const override { return 1; }
  std::size_t margins_size() const override { return static_cast<std::size_t>(n_rows_); }

  std::vector<double> start(SolverState& state, Communicator& communicator) override {
    // Warm start: w(alpha) from given dual variables, or the given weights.
    const auto n_features = static_cast<std::int32_t>(width() - 1);
    const StartFrom start = warm_start_from(state, n_rows_, n_features);
    if (start == StartFrom::Alpha) {
      for_loss([&](const auto& loss) {
        for (std::size_t i = 0; i < derivatives_.size(); ++i)
          derivatives_[i] = costs_[i] > 0.0 ? state.alpha[i] * loss.coefficient(targets_[i]) : 0.0;
      });
      state.weights.assign(width(), 0.0);
      operations_.transpose_times(derivatives_.data(), state.weights.data());
      communicator.allreduce_sum(state.weights.data(), width());
    } else if (start == StartFrom::Cold) {
      state.weights.assign(width(), 0.0);
    }
    return state.weights;
  }

  double loss_sum(const std::vector<double>& w, std::vector<double>& margins) override {
    operations_.margins(w.data(), margins.data());
    double sum = 0.0;
    for_loss([&](const auto& loss) {
      sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        return costs_[k] > 0.0 ? costs_[k] * loss.loss(targets_[k], margins[k]) : 0.0;
      });
    });
    return sum;
  }

  void margins(const std::vector<double>& v, std::vector<double>& out) override {
    operations_.margins(v.data(), out.data());
  }

  detail::LineValues along_line(const std::vector<double>& m, const std::vector<double>& u, double t) override {
    detail::LineValues sum;
    for_loss([&](const auto& loss) {
      sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        detail::LineValues values;
        if (!(costs_[k] > 0.0)) return values;
        const losses::PrimalTerms terms = losses::primal_terms(loss, targets_[k], m[k] + t * u[k]);
        values.value = costs_[k] * terms.value;
        values.slope = costs_[k] * terms.derivative * u[k];
        values.curvature = costs_[k] * terms.curvature * u[k] * u[k];
        return values;
      });
    });
    return sum;
  }

  double gradient(const std::vector<double>& margins, double* g) override {
    double dual_sum = 0.0;
    for_loss([&](const auto& loss) {
      dual_sum = detail::ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
        const auto k = static_cast<std::size_t>(i);
        const double cost = costs_[k];
        if (!(cost > 0.0)) {
          derivatives_[k] = curvatures_[k] = 0.0;
          return 0.0;
        }
        const double y = targets_[k];
        const losses::PrimalTerms terms = losses::primal_terms(loss, y, margins[k]);
        derivatives_[k] = cost * terms.derivative;
        curvatures_[k] = cost * terms.curvature;
        // The paired dual point: alpha_i c(y_i) = -C_i loss'(m_i), c(y) = +-1 or 1.
        return losses::paired_dual_value(loss, y, margins[k], cost, terms);
      });
    });
    operations_.transpose_times(derivatives_.data(), g);
    return dual_sum;
  }

  void hessian_product(const std::vector<double>& v, double* out) override {
    operations_.hessian_product(curvatures_.data(), v.data(), out);
  }

  void hessian_diagonal(double* out) override { operations_.hessian_diagonal(curvatures_.data(), out); }

  void hessian_matrix(double* out) override { operations_.hessian_matrix(curvatures_.data(), out); }

  void finish(const std::vector<double>& w, SolverState& state) override {
    state.weights = w;
    // The dual point paired with the final w, one per row (SolverState's contract).
    state.alpha.assign(static_cast<std::size_t>(n_rows_), 0.0);
    for_loss([&](const auto& loss) {
      for (std::size_t i = 0; i < state.alpha.size(); ++i)
        state.alpha[i] = -derivatives_[i] * loss.coefficient(targets_[i]);
    });
  }

 private:
  template <typename Function>
  void for_loss(const Function& function) const {
    // Instantiated for the primal losses only; the solver's constructor refused the others.
    with_loss(parameters_.loss, parameters_.epsilon, 0.0, [&](const auto& loss) {
      if constexpr (losses::is_primal_loss<std::decay_t<decltype(loss)>>::value)
        function(loss);
      else
        throw InvalidArgument(std::string("the ") + loss_name(parameters_.loss) + " loss is not a primal loss");
    });
  }

  MatrixOperations& operations_;
  const SolverParameters& parameters_;
  int threads_;
  std::int64_t n_rows_;
  std::vector<double> targets_;      // y_i: +-1, or the regression target
  std::vector<double> costs_;        // C_i; 0 for a row absent from the problem
  std::vector<double> derivatives_;  // C_i loss'(m_i) at the last gradient()
  std::vector<double> curvatures_;   // C_i loss''(m_i) at the last gradient()
};

}  // namespace

void detail::NewtonObjective::hessian_matrix(double*) {
  throw InvalidArgument("the primal solver forms the whole Hessian for a scalar loss only");
}

namespace {

class PrimalNewtonSolver final : public Solver {
 public:
  PrimalNewtonSolver(const SolverParameters& parameters, MatrixOperationsFactory operations)
      : parameters_(parameters), make_operations_(std::move(operations)) {
    validate(parameters_);
    require(parameters_.penalty != Penalty::L1,
            "the primal Newton solver takes penalty l2 or none; penalty l1 is make_cd_l1_cpu_solver's");
    require(parameters_.primal_method != PrimalMethod::Cholesky || !loss_is_per_class(parameters_.loss),
            "the primal solver's Cholesky step takes a scalar loss; the multinomial loss steps by L-BFGS or the "
            "trust region");
    require(primal_solver_supports(parameters_.loss),
            std::string("the primal Newton solver needs a loss with a Lipschitz derivative; the ") +
                loss_name(parameters_.loss) + " loss is not one: use " + loss_names_text(primal_solver_supports));
  }

  FitResult fit(ChunkSource& source, Communicator& communicator, SolverState& state) override;

 private:
  // Whether the duality gap certifies the fit (everything penalised).
  bool certified() const { return parameters_.penalty == Penalty::L2 && parameters_.penalise_intercept; }

  std::vector<double> prepare(ChunkSource& source, Communicator& communicator, SolverState& state);
  // f(w) from its margins (computed into `margins`).
  double value(const std::vector<double>& w, std::vector<double>& margins);
  // g(w) from the margins of w; keeps the curvatures for hessian_product and
  // returns sum_i dual_value(alpha_i) of the paired dual point.
  double gradient(const std::vector<double>& w, const std::vector<double>& margins, std::vector<double>& g);
  // M = (1 - a) I + a diag(H) at the point of the last gradient().
  void update_preconditioner();
  // H v at the point of the last gradient().
  void hessian_product(const std::vector<double>& v, std::vector<double>& out);
  // Appends the record of iterate w (value f, gradient g, dual sum) and returns
  // whether the stopping rule holds.
  bool record(FitResult& result, const std::vector<double>& w, double f, const std::vector<double>& g,
              double dual_sum, double first_gradient_norm);
  // Calls on_progress with the iterate w.
  void progress(const FitResult& result, const std::vector<double>& w);
  bool uses_lbfgs() const {
    return parameters_.primal_method == PrimalMethod::Lbfgs ||
           (parameters_.primal_method == PrimalMethod::Auto && loss_is_per_class(parameters_.loss));
  }
  // The iterations from w (value f, gradient g, margins) after its record: the
  // trust-region Newton method (trust_region.h over TrustRegionSteps), L-BFGS
  // (quasi_newton.h), or Newton steps by Cholesky (newton_direct.h). Each leaves
  // the last iterate in w and its gradient() as the objective's last.
  class TrustRegionSteps;
  void trust_region(FitResult& result, std::vector<double>& w, std::vector<double>& margins, std::vector<double>& g,
                    double f, double first_gradient_norm);
  void lbfgs(FitResult& result, std::vector<double>& w, std::vector<double>& margins, std::vector<double>& g,
             double f, double first_gradient_norm);
  void direct_newton(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                     std::vector<double>& g, double f, double first_gradient_norm);
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
  std::vector<double> regulariser_;     // r_j
  std::vector<double> preconditioner_;  // M_j at the last gradient()
  std::vector<double> line_margins_;    // X p of line_step's direction, kept between iterations
};

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
    objective_ = std::make_unique<ScalarObjective>(*operations_, parameters_, threads_);
  const std::size_t width = objective_->width();
  regulariser_.assign(width, parameters_.penalty == Penalty::None ? 0.0 : 1.0);
  if (!parameters_.penalise_intercept)
    std::fill(regulariser_.end() - static_cast<std::ptrdiff_t>(objective_->intercept_count()), regulariser_.end(),
              0.0);
  // The same choice on every rank: from the pairs and entries summed over them.
  double work[2] = {operations_->hessian_matrix_pairs(), operations_->row_entries()};
  communicator.allreduce_sum(work, 2);
  direct_ = parameters_.primal_method == PrimalMethod::Cholesky ||
            (parameters_.primal_method == PrimalMethod::Auto && !loss_is_per_class(parameters_.loss) &&
             parameters_.penalty == Penalty::L2 && detail::direct_newton_pays(work[0], work[1], width));
  return objective_->start(state, communicator);
}

double PrimalNewtonSolver::value(const std::vector<double>& w, std::vector<double>& margins) {
  double loss_sum = objective_->loss_sum(w, margins);
  communicator_->allreduce_sum(&loss_sum, 1);
  double penalty = 0.0;
  for (std::size_t j = 0; j < w.size(); ++j) penalty += regulariser_[j] * w[j] * w[j];
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
  for (std::size_t j = 0; j < width; ++j) g[j] += regulariser_[j] * w[j];
  return dual_sum;
}

void PrimalNewtonSolver::update_preconditioner() {
  const std::size_t width = regulariser_.size();
  preconditioner_.resize(width);
  objective_->hessian_diagonal(preconditioner_.data());
  communicator_->allreduce_sum(preconditioner_.data(), width);
  for (std::size_t j = 0; j < width; ++j)
    preconditioner_[j] = detail::trust_region::preconditioner_entry(regulariser_[j], preconditioner_[j]);
}

void PrimalNewtonSolver::hessian_product(const std::vector<double>& v, std::vector<double>& out) {
  out.resize(v.size());
  objective_->hessian_product(v, out.data());
  communicator_->allreduce_sum(out.data(), out.size());
  for (std::size_t j = 0; j < v.size(); ++j) out[j] += regulariser_[j] * v[j];
}

bool PrimalNewtonSolver::record(FitResult& result, const std::vector<double>& w, double f, const std::vector<double>& g,
                           double dual_sum, double first_gradient_norm) {
  detail::trust_region::IterateSums sums;
  sums.primal = f;
  sums.gradient_norm = norm(g);
  sums.dual_sum = dual_sum;
  if (certified())  // ||w(alpha)||^2 = ||w - g||^2
    for (std::size_t j = 0; j < w.size(); ++j) sums.dual_weights_squared += (w[j] - g[j]) * (w[j] - g[j]);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  return detail::trust_region::record_iterate(result, parameters_, certified(), seconds, first_gradient_norm, sums);
}

FitResult PrimalNewtonSolver::fit(ChunkSource& source, Communicator& communicator, SolverState& state) {
  started_ = std::chrono::steady_clock::now();
  std::vector<double> w = prepare(source, communicator, state);
  const std::size_t width = w.size();
  std::vector<double> margins(objective_->margins_size());
  std::vector<double> g;

  // The gradient rule's reference ||g(0)|| (LIBLINEAR's, whatever the start).
  double first_gradient_norm = 0.0;
  if (!certified()) {
    const std::vector<double> zero(width, 0.0);
    std::fill(margins.begin(), margins.end(), 0.0);
    gradient(zero, margins, g);
    first_gradient_norm = norm(g);
  }
  double f = value(w, margins);
  const double dual_sum = gradient(w, margins, g);

  FitResult result;
  result.epochs = parameters_.first_epoch;  // a resumed fit goes on counting
  if (!record(result, w, f, g, dual_sum, first_gradient_norm)) {
    if (uses_lbfgs())
      lbfgs(result, w, margins, g, f, first_gradient_norm);
    else if (direct_)
      direct_newton(result, w, margins, g, f, first_gradient_norm);
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

// trust_region.h's backend over this solver's host vectors: w, its margins and
// gradient g (the caller's), the CG vectors s, r, d, hd and the trial point.
class PrimalNewtonSolver::TrustRegionSteps {
 public:
  TrustRegionSteps(PrimalNewtonSolver& solver, std::vector<double>& w, std::vector<double>& margins,
                   std::vector<double>& g, double first_gradient_norm)
      : solver_(solver),
        w_(w),
        margins_(margins),
        g_(g),
        first_gradient_norm_(first_gradient_norm),
        width_(w.size()),
        trial_(width_),
        trial_margins_(margins.size()) {}

  void update_preconditioner() { solver_.update_preconditioner(); }
  double initial_radius() const {
    double delta = 0.0;
    for (std::size_t j = 0; j < width_; ++j) delta += g_[j] * g_[j] / solver_.preconditioner_[j];
    return std::sqrt(delta);
  }
  double gradient_norm() const { return norm(g_); }
  double cg_target(double f) const {
    return detail::trust_region::cg_target(solver_.certified(), solver_.parameters_.tol, f);
  }

  detail::trust_region::CgStart cg_start() {
    const std::vector<double>& m = solver_.preconditioner_;
    s_.assign(width_, 0.0);
    r_.resize(width_);
    d_.resize(width_);
    // The M-norm products of s and d that the boundary test reads, kept up to date
    // in the sweeps that change s and d (three sweeps over the weights an iteration
    // besides H d, where recomputing them took seven): <a, b>_M = sum_j a_j M_j b_j.
    const auto start = detail::interleaved_sums<2>(0, entries(), [&](std::int64_t j, double* sum) {
      r_[j] = -g_[j];
      d_[j] = r_[j] / m[j];
      sum[0] += d_[j] * r_[j];
      sum[1] += d_[j] * m[j] * d_[j];
    });
    return {start[0], start[1]};
  }
  double cg_curvature() {
    solver_.hessian_product(d_, hd_);
    return dot(d_, hd_);
  }
  detail::trust_region::CgAdvance cg_advance(double step, double zr) {
    const std::vector<double>& m = solver_.preconditioner_;
    detail::trust_region::CgAdvance next;
    const auto residual = detail::interleaved_sums<2>(0, entries(), [&](std::int64_t j, double* sum) {
      s_[j] += step * d_[j];
      r_[j] -= step * hd_[j];
      sum[0] += r_[j] * r_[j] / m[j];
      sum[1] += r_[j] * r_[j];
    });
    next.zr = residual[0];
    next.rr = residual[1];
    const double beta = next.zr / zr;
    const auto products = detail::interleaved_sums<2>(0, entries(), [&](std::int64_t j, double* sum) {
      d_[j] = r_[j] / m[j] + beta * d_[j];
      sum[0] += s_[j] * m[j] * d_[j];
      sum[1] += d_[j] * m[j] * d_[j];
    });
    next.sd = products[0];
    next.dd = products[1];
    return next;
  }
  void cg_to_boundary(double tau) {
    axpy(tau, d_, s_);
    axpy(-tau, hd_, r_);
  }

  detail::trust_region::TrialStep try_step() {
    detail::trust_region::TrialStep trial;
    for (std::size_t j = 0; j < width_; ++j) trial_[j] = w_[j] + s_[j];
    trial.gs = dot(g_, s_);
    trial.sr = dot(s_, r_);
    trial.f_trial = solver_.value(trial_, trial_margins_);
    double s_norm = 0.0;  // ||s||_M
    for (std::size_t j = 0; j < width_; ++j) s_norm += s_[j] * solver_.preconditioner_[j] * s_[j];
    trial.s_norm = std::sqrt(s_norm);
    return trial;
  }
  void accept_step() {
    w_.swap(trial_);
    margins_.swap(trial_margins_);
    dual_sum_ = solver_.gradient(w_, margins_, g_);
  }
  bool record(FitResult& result, double f) { return solver_.record(result, w_, f, g_, dual_sum_, first_gradient_norm_); }
  void progress(const FitResult& result) { solver_.progress(result, w_); }

 private:
  std::int64_t entries() const { return static_cast<std::int64_t>(width_); }

  PrimalNewtonSolver& solver_;
  std::vector<double>& w_;
  std::vector<double>& margins_;
  std::vector<double>& g_;
  double first_gradient_norm_;
  std::size_t width_;
  double dual_sum_ = 0.0;
  std::vector<double> s_, r_, d_, hd_, trial_, trial_margins_;
};

void PrimalNewtonSolver::trust_region(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                 std::vector<double>& g, double f, double first_gradient_norm) {
  TrustRegionSteps steps(*this, w, margins, g, first_gradient_norm);
  detail::trust_region::trust_region_iterations(steps, result, parameters_.max_epochs, f, w.size());
}

void PrimalNewtonSolver::lbfgs(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                          std::vector<double>& g, double f, double first_gradient_norm) {
  const std::size_t width = w.size();
  detail::LbfgsMemory memory(width, kLbfgsPairs, threads_);
  std::vector<double> p, y(width), step(width);
  while (result.epochs < parameters_.max_epochs) {
    memory.direction(g, p);
    double slope = memory.dot(g, p);
    if (!(slope < 0.0)) {  // rounding spoilt the approximation: start it again from -g
      memory.forget();
      memory.direction(g, p);
      slope = memory.dot(g, p);
      if (!(slope < 0.0)) break;
    }
    // The first direction is -g, of no natural length: its line starts at 0.
    const double t = line_step(w, margins, f, p, slope, memory.empty() ? 0.0 : 1.0, &step);
    if (!(t > 0.0)) break;  // no decrease is representable
    const auto entries = static_cast<std::int64_t>(width);
    y.swap(g);
    const double dual_sum = gradient(w, margins, g);
SNAPML_OMP(parallel for num_threads(detail::threads_for(entries, threads_)) schedule(static))
    for (std::int64_t j = 0; j < entries; ++j) y[j] = g[j] - y[j];
    memory.remember(step, y);
    ++result.epochs;
    if (record(result, w, f, g, dual_sum, first_gradient_norm)) break;
    progress(result, w);
  }
}

double PrimalNewtonSolver::line_step(std::vector<double>& w, std::vector<double>& margins, double& f,
                                const std::vector<double>& p, double slope, double start,
                                std::vector<double>* step) {
  const std::size_t width = w.size();
  std::vector<double>& u = line_margins_;
  u.resize(margins.size());
  objective_->margins(p, u);  // the one pass of the line search
  // The penalty 0.5 sum_j r_j (w_j + t p_j)^2 along the line: a quadratic in t,
  // its value and derivatives at t = 0.
  const detail::LineValues penalty =
      detail::ordered_sum(static_cast<std::int64_t>(width), threads_, [&](std::int64_t index) {
        const auto j = static_cast<std::size_t>(index);
        return detail::LineValues{0.5 * regulariser_[j] * w[j] * w[j], regulariser_[j] * w[j] * p[j],
                                  regulariser_[j] * p[j] * p[j]};
      });
  const detail::LineFunction phi = [&](double t) {
    detail::LineValues line = objective_->along_line(margins, u, t);
    communicator_->allreduce_sum(&line.value, 3);
    line.value += penalty.value + t * (penalty.slope + 0.5 * t * penalty.curvature);
    line.slope += penalty.slope + t * penalty.curvature;
    line.curvature += penalty.curvature;
    return line;
  };
  const detail::LineStep found = detail::minimise_along_line(phi, f, slope, start);
  if (!(found.t > 0.0)) return 0.0;
  const auto entries = static_cast<std::int64_t>(width);
SNAPML_OMP(parallel for num_threads(detail::threads_for(entries, threads_)) schedule(static))
  for (std::int64_t j = 0; j < entries; ++j) {
    const double change = found.t * p[j];
    if (step) (*step)[j] = change;
    w[j] += change;
  }
  const auto rows = static_cast<std::int64_t>(margins.size());
SNAPML_OMP(parallel for num_threads(detail::threads_for(rows, threads_)) schedule(static))
  for (std::int64_t i = 0; i < rows; ++i) margins[i] += found.t * u[i];
  f = found.value;
  return found.t;
}

void PrimalNewtonSolver::direct_newton(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                  std::vector<double>& g, double f, double first_gradient_norm) {
  const std::size_t width = w.size();
  std::vector<double> hessian(width * (width + 1) / 2), p;
  while (result.epochs < parameters_.max_epochs) {
    objective_->hessian_matrix(hessian.data());
    communicator_->allreduce_sum(hessian.data(), hessian.size());
    const bool solved = detail::solve_newton_system(hessian, regulariser_, g, p);
    const double slope = solved ? dot(g, p) : 0.0;
    if (!(slope < 0.0)) {
      // H is not numerically positive definite (collinear columns without a
      // penalty): the trust region, which needs no factorisation, goes on from w.
      trust_region(result, w, margins, g, f, first_gradient_norm);
      return;
    }
    // Newton's step is t = 1; the search moves off it only where the loss is far from quadratic.
    if (!(line_step(w, margins, f, p, slope, 1.0, nullptr) > 0.0)) break;  // no decrease is representable
    const double dual_sum = gradient(w, margins, g);
    ++result.epochs;
    if (record(result, w, f, g, dual_sum, first_gradient_norm)) break;
    progress(result, w);
  }
}

}  // namespace

std::unique_ptr<Solver> make_tron_solver(const SolverParameters& parameters, MatrixOperationsFactory operations) {
  return std::make_unique<PrimalNewtonSolver>(parameters, std::move(operations));
}

std::unique_ptr<Solver> make_tron_cpu_solver(const SolverParameters& parameters) {
  return make_tron_solver(parameters, &make_cpu_matrix_operations);
}

}  // namespace snapml
