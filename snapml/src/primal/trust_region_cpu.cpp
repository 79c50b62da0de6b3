// The trust-region Newton method's CPU backend: trust_region.h's rules and loops
// (radius, Steihaug's CG, acceptance, the record), shared with the GPU solver
// (cuda/src/primal/newton_gpu_solver.cpp), over the driver's host vectors
// (primal_newton_solver.h). Lin, Weng & Keerthi, JMLR 9 (2008), Algorithms 1 and 2.
// The same CG, with no radius, gives the line-search Newton method's direction
// (PrimalMethod::LineSearch; newton_line_search below).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../common/interleaved_sums.h"
#include "primal_newton_solver.h"
#include "trust_region.h"

namespace snapml::detail {

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
    const double off_block =
        solver_.sum_over(width_, [&](std::size_t j) { return inverse_square(g_[j], j); });
    return std::sqrt(off_block + (block().active() ? block().inverse_product(g_, nullptr) : 0.0));
  }
  double gradient_norm() const { return solver_.norm(g_); }
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
    const auto start = detail::vector_sums<2>(entries(), solver_.threads_, [&](std::int64_t j, double* sum) {
      r_[j] = -g_[j];
      d_[j] = precondition(r_[j], j);
      sum[0] += d_[j] * r_[j];
      sum[1] += d_[j] * m[j] * d_[j];
    });
    if (!block().active()) return {start[0], start[1]};
    // On the block d = B^-1 r: r.d and <d, d>_M are both r_B . B^-1 r_B there.
    const double inside = block().inverse_product(r_, &d_);
    return {start[0] + inside, start[1] + inside};
  }
  double cg_curvature() { return solver_.hessian_product(d_, hd_); }
  detail::trust_region::CgAdvance cg_advance(double step, double zr) {
    const std::vector<double>& m = solver_.preconditioner_;
    detail::trust_region::CgAdvance next;
    const auto residual = detail::vector_sums<2>(entries(), solver_.threads_, [&](std::int64_t j, double* sum) {
      s_[j] += step * d_[j];
      r_[j] -= step * hd_[j];
      sum[0] += inverse_square(r_[j], j);
      sum[1] += r_[j] * r_[j];
    });
    // On the block: z_B = B^-1 r_B (kept in z_ for d below).
    if (block().active()) {
      z_.resize(width_);
      next.zr = residual[0] + block().inverse_product(r_, &z_);
    } else {
      next.zr = residual[0];
    }
    next.rr = residual[1];
    const double beta = next.zr / zr;
    const auto products = detail::vector_sums<2>(entries(), solver_.threads_, [&](std::int64_t j, double* sum) {
      d_[j] = precondition(r_[j], j) + beta * d_[j];
      sum[0] += s_[j] * m[j] * d_[j];
      sum[1] += d_[j] * m[j] * d_[j];
    });
    next.sd = products[0];
    next.dd = products[1];
    if (block().active()) {
      // The sweep left beta d_B on the block (its divisor is infinite there).
      for (const std::int32_t j : block().weights()) d_[j] += z_[j];
      next.sd += block().product(s_, d_);
      next.dd += block().product(d_, d_);
    }
    return next;
  }
  // The CG solution s (the step's direction) after conjugate_gradients.
  const std::vector<double>& step() const { return s_; }
  void cg_to_boundary(double tau) {
    axpy(tau, d_, s_);
    axpy(-tau, hd_, r_);
  }

  detail::trust_region::TrialStep try_step() {
    detail::trust_region::TrialStep trial;
    const std::vector<double>& m = solver_.preconditioner_;
    const auto sums = detail::vector_sums<3>(entries(), solver_.threads_, [&](std::int64_t j, double* sum) {
      trial_[j] = w_[j] + s_[j];
      sum[0] += g_[j] * s_[j];
      sum[1] += s_[j] * r_[j];
      sum[2] += s_[j] * m[j] * s_[j];  // ||s||_M^2
    });
    trial.gs = sums[0];
    trial.sr = sums[1];
    trial.s_norm = std::sqrt(sums[2] + (block().active() ? block().product(s_, s_) : 0.0));
    trial.f_trial = solver_.value(trial_, trial_margins_);
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
  const detail::HotBlock& block() const { return solver_.hot_; }
  // (M^-1 v)_j off the block: v_j / M_j; on the block's weights the divisor is
  // infinite, so 0 there, where the block's own solve adds B^-1 v_B. Without a
  // block the division as it was before the block existed, the same bits.
  double precondition(double v, std::size_t j) const { return v / solver_.divisor_[j]; }
  // v_j^2 / M_j off the block, 0 on it.
  double inverse_square(double v, std::size_t j) const { return v * v / solver_.divisor_[j]; }

  PrimalNewtonSolver& solver_;
  std::vector<double>& w_;
  std::vector<double>& margins_;
  std::vector<double>& g_;
  double first_gradient_norm_;
  std::size_t width_;
  double dual_sum_ = 0.0;
  std::vector<double> s_, r_, d_, hd_, z_, trial_, trial_margins_;
};

void PrimalNewtonSolver::trust_region(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                 std::vector<double>& g, double f, double first_gradient_norm) {
  TrustRegionSteps steps(*this, w, margins, g, first_gradient_norm);
  detail::trust_region::trust_region_iterations(steps, result, parameters_.max_epochs, f, w.size());
}

void PrimalNewtonSolver::newton_line_search(FitResult& result, std::vector<double>& w, std::vector<double>& margins,
                                            std::vector<double>& g, double f, double first_gradient_norm) {
  // Galli & Lin (IEEE TNNLS 2021), LIBLINEAR >= 2.40: the truncated CG of the
  // trust region (same forcing term, same stop at the record's target) with no
  // radius, then the step's length along the line, where the trust region pays a
  // CG solve for each rejected step and grows its radius at most 4x an iteration.
  // From a point whose model is poor (SDCA's early weights on raw counts, where a
  // full step can raise f 200-fold) those rejections and the regrowth cost
  // passes (news20 binary from SDCA's 16th epoch: 55-67 against 51-57 here;
  // docs/benchmarks/cpu.md, section 9.2); the line search reads no data besides
  // X p. H = X^T D X + R is positive definite under penalty l2 (the solver
  // requires it), so CG meets no direction of non-positive curvature, and its
  // direction descends (g.s < 0) from any number of iterations.
  TrustRegionSteps steps(*this, w, margins, g, first_gradient_norm);
  const double start_gradient_norm = norm(g);
  const double unbounded = std::numeric_limits<double>::infinity();
  std::vector<double> direction;
  while (result.epochs < parameters_.max_epochs) {
    update_preconditioner();
    // With a constant Hessian the model is f: the target follows its value along
    // the solve (the rule's at w + s), where f's at w would be too loose after a
    // solve that lowers f much (ridge from w = 0).
    const double target = steps.cg_target(f);
    const bool exact_model = hessian_is_constant();
    detail::trust_region::conjugate_gradients(
        steps, unbounded, cg_forcing(norm(g), start_gradient_norm, target),
        [&](double model) { return exact_model ? steps.cg_target(model) : target; }, f, w.size());
    direction = steps.step();
    if (!newton_line_step(result, w, margins, g, f, direction, dot(g, direction), first_gradient_norm)) return;
  }
}

}  // namespace snapml::detail
