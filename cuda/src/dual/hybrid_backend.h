// The GPU dual solver's epoch and certificate, written once (epoch_schedule.h, "hot
// and cold"): a RoundBackend (snapml/impl/cocoa_round.h) over an `Ops` object that makes
// the passes over this process's rows, either on its devices (cuda/src/dual/
// device_ops.*) or on the host, block by block in a bounded-delay order (the
// executor of tests/support/gpu_epoch_model.cpp). Both run this class, so CI runs
// the schedule the device runs.
//
// An epoch:
//   1. the margins m_i = x_i . v of every row and, in the same pass, the hot sums
//      (each row's envelope derivative, row_work.h, times x_i^hot; w_H(alpha); the
//      Hessian's diagonal), skipped when the certificate's pass left them current;
//   2. the hot step (hot_newton.h): one inexact Newton step on w_H, cold margins held;
//   3. the cold pass (TPA-SCD): every row's coordinate step against the cold
//      columns at its cold ESO curvature, rows in flight R, updates to the cold
//      columns only.
// The hinge steps on its smoothing (smoothed_hinge.h), whose gamma falls fivefold
// at a certificate where the smoothed problem's own gap is below what the
// smoothing adds to the hinge's.
// The hot step comes first because with several CoCoA+ workers it moves the
// global w (every worker's v alike) before the round's local work, so that the
// merge (local_change) sees only cold changes.
//
// The certificate. v holds w_K(alpha) on the cold columns (kept by the cold
// pass's updates) and the primal w_H on the hot ones, which is not w_H(alpha); by
// weak duality P(v) - D(alpha) bounds P(v) - P* for any feasible alpha, with
//   D(alpha) = sum_i dual_value(alpha_i) - 0.5 ||w_K(alpha)||^2 - 0.5 ||w_H(alpha)||^2.
// The driver combines the sums with ||v||^2 (objectives.h, combine: it assumes
// v = w(alpha)); objective_sums adds 0.5 ||w_H||^2 - 0.5 ||w_H(alpha)||^2 to the
// dual sum (on the first rank only: the driver reduces the sums over ranks) so
// that the combination is exactly P(v) - D(alpha). At the optimum w_H = w_H(alpha)
// (the optimality conditions pair them), so the gap closes. alpha lags the hot
// step by a pass, so the certificate also tries alpha^v, the dual point paired with
// v's margins, and the segment between the two, and keeps the best dual certified
// so far (certify below).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "dual/hot_newton.h"
#include "dual/row_work.h"
#include "snapml/impl/cocoa_round.h"
#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/losses/smoothed_hinge.h"
#include "snapml/solver.h"

namespace snapml::cuda::dual {

// Calls f(certified, stepping): the loss the fit certifies and the one its steps
// take, the hinge's smoothing (smoothed_hinge.h) for the hinge, the loss itself
// otherwise.
template <typename F>
void with_schedule_losses(LossKind kind, double epsilon, double newton_tolerance, double gamma, F&& f) {
  with_loss(kind, epsilon, newton_tolerance, [&](const auto& loss) {
    using Loss = std::decay_t<decltype(loss)>;
    if constexpr (std::is_same_v<Loss, losses::HingeLoss>)
      f(loss, losses::SmoothedHingeLoss{gamma});
    else
      f(loss, loss);
  });
}

// The hot sums of a margin pass, one entry per hot slot.
struct HotSums {
  std::vector<double> gradient;  // sum_i C_i loss'(m_i) x_i^hot
  std::vector<double> of_alpha;  // w_H(alpha) = sum_i alpha_i c_i x_i^hot
  std::vector<double> diagonal;  // sum_i C_i loss''(m_i) (x_ij^hot)^2
  void assign(std::size_t k) {
    gradient.assign(k, 0.0);
    of_alpha.assign(k, 0.0);
    diagonal.assign(k, 0.0);
  }
};

// Passes and steps of a fit, for the benchmarks and docs/gpu.md.
struct ScheduleCounts {
  std::int64_t cold_passes = 0;
  std::int64_t margin_passes = 0;
  std::int64_t paired_passes = 0;
  std::int64_t products = 0;  // Hessian-vector products (passes over the hot entries)
  std::int64_t line_evaluations = 0;
  int gamma_reductions = 0;
  double gamma = 0.0;  // the hinge's smoothing at the end
};

// Golden-section steps of the certificate's search between alpha and alpha^v.
inline constexpr int kSegmentSearches = 12;

struct ScheduleSettings {
  HotStepSettings hot;
  double initial_gamma = 1.0;     // the hinge's smoothing at the start
  double gamma_floor = 1e-6;
  double gamma_factor = 0.2;        // continuation: gamma *= this ...
  double continuation_ratio = 1.0;
  bool keep_best_dual = true;  // ... when the smoothed gap is under this times the smoothing's part
};

template <typename Ops>
class HybridBackend final : public RoundBackend {
 public:
  HybridBackend(Ops& ops, const SolverParameters& parameters, ScheduleSettings settings = {})
      : ops_(ops), parameters_(parameters), settings_(settings), gamma_(settings.initial_gamma) {
    hot_weights_ = ops_.hot_weights();
    ops_.keep_alpha(0.0);  // the start: where the guard's remedy returns before any certificate
  }


  const ScheduleCounts& counts() const {
    counts_.gamma = gamma_;
    return counts_;
  }

  std::int64_t n_rows() const override { return ops_.n_rows(); }
  std::size_t weight_count() const override { return ops_.weight_count(); }
  void begin_round() override { ops_.begin_round(); }

  std::int64_t epoch(int epoch_index, EpochShare share, double sigma, double newton_tolerance) override {
    require(share.parts == 1, "the GPU dual solver runs whole epochs (rounds_per_epoch is 1)");
    with_schedule_losses(parameters_.loss, parameters_.epsilon, newton_tolerance, gamma_,
                         [&](const auto&, const auto& stepping) {
                           if (ops_.n_hot() > 0) newton(hot_loss(stepping));
                           ops_.cold_pass(stepping, epoch_index, sigma);
                           ++counts_.cold_passes;
                           margins_current_ = false;
                         });
    return ops_.n_rows();
  }

  void local_change(double sigma, double* change) override { ops_.local_change(sigma, change); }
  void apply_change(double gamma, const double* change) override {
    ops_.apply_change(gamma, change);
    margins_current_ = false;
  }
  void scale_alpha(double gamma) override {
    ops_.scale_alpha(gamma);
    margins_current_ = false;
  }

  // The certificate: P(v) against the larger of D(alpha) and D(alpha^v), alpha^v
  // the dual point paired with v's margins (row_work.h, paired_alpha; the Newton
  // solver's certificate, P(v) - D(alpha^v) = 0.5 ||grad P(v)||^2 for a smooth
  // loss), and no lower than the best dual certified before (weak duality: every
  // feasible alpha's D bounds P* from below). The alpha that gave it is kept
  // (Ops::keep_alpha) and returned by the fit (best_alpha). One pass over the rows
  // for alpha^v's w (Ops::paired_pass), besides the margins when they are stale.
  ObjectiveSums objective_sums(int) override {
    ObjectiveSums sums;
    Certificate certificate;
    with_schedule_losses(parameters_.loss, parameters_.epsilon, 0.0, gamma_,
                         [&](const auto& certified, const auto& stepping) {
                           refresh_margins(hot_loss(stepping));
                           certificate = certify(certified, stepping);
                           sums.loss = certificate.local_loss;
                           sums.dual = certificate.local_dual;
                         });
    // The driver computes reduce(dual) - 0.5 ||v||^2; the first rank adds what
    // makes that the dual certified.
    if (ops_.first_rank()) sums.dual += certificate.dual - (certificate.reduced_dual - 0.5 * certificate.v_norm);
    if (certificate.continue_smoothing) lower_gamma();
    return sums;
  }
  double squared_weight_norm() override { return ops_.squared_weight_norm(); }
  std::vector<double> copy_alpha() override { return ops_.copy_alpha(); }
  // The divergence guard's remedy (the driver's divergence_guard.h): half the rows
  // in flight (the cold curvatures stay those of the larger R, an
  // over-approximation, so still safe), and back to the alpha of the best
  // certificate (the start before any) with v = w(alpha): a diverged point (not
  // finite, or far past the optimum) is no place to go on from.
  bool reduce_concurrency() override {
    if (!ops_.halve_rows_in_flight()) return false;
    ops_.restore_best_alpha();
    hot_weights_ = ops_.hot_weights();
    margins_current_ = false;
    return true;
  }
  // A smooth loss's best certified iterate (cocoa_round.h): v at the certificate
  // of the smallest primal, kept on the host (8 bytes a feature, nothing on the
  // device), and the fit's v again where it ends on it. The fit's alpha stays the
  // best certificate's (best_alpha), as for the last iterate.
  bool keeps_best() const override { return true; }
  void keep_best() override { best_weights_ = ops_.copy_weights(); }
  void end_on_best() override {
    ops_.set_weights(best_weights_);
    hot_weights_ = ops_.hot_weights();
    margins_current_ = false;
  }
  std::string divergence_remedy() const override {
    return "train by the GPU Newton solver (solver='primal'; snap-train --gpu -s 0, 2 or 11) or on the CPU";
  }

 private:
  // Binds the stepping loss for hot_newton_step, and reduces its sums over ranks.
  template <typename Loss>
  struct BoundOps {
    HybridBackend& backend;
    const Loss& loss;
    void hvp(const std::vector<double>& d, std::vector<double>& out) {
      backend.ops_.hvp(loss, d, out);
      backend.ops_.allreduce_sum(out.data(), out.size());
    }
    void accumulate_direction(double a) { backend.ops_.accumulate_direction(a); }
    LineTerms line(double t) {
      LineTerms terms = backend.ops_.line(loss, t);
      double values[3] = {terms.value, terms.slope, terms.curvature};
      backend.ops_.allreduce_sum(values, 3);
      return {values[0], values[1], values[2]};
    }
    void apply(double t, const std::vector<double>& u) {
      for (std::size_t j = 0; j < u.size(); ++j) backend.hot_weights_[j] += t * u[j];
      backend.ops_.apply(t, backend.hot_weights_);
    }
    void discard_direction() { backend.ops_.discard_direction(); }
  };

  struct Certificate {
    double local_loss = 0.0;    // this process's sum of C_i loss(m_i)
    double local_dual = 0.0;    // this process's sum of dual_value(alpha_i)
    double reduced_dual = 0.0;  // that sum over all ranks
    double v_norm = 0.0;        // ||v||^2
    double dual = 0.0;          // the dual certified
    bool continue_smoothing = false;
  };

  template <typename Certified, typename Stepping>
  Certificate certify(const Certified& certified, const Stepping& stepping) {
    Certificate c;
    const RowSums rows = ops_.row_sums(certified, stepping);
    paired_.assign(ops_.weight_count(), 0.0);
    const RowSums paired = ops_.paired_pass(certified, stepping, paired_);
    ++counts_.paired_passes;
    double values[6] = {rows.loss, rows.dual, rows.surrogate_loss, rows.surrogate_dual, paired.dual,
                        paired.surrogate_dual};
    ops_.allreduce_sum(values, 6);
    ops_.allreduce_sum(paired_.data(), paired_.size());
    c.local_loss = rows.loss;
    c.local_dual = rows.dual;
    c.reduced_dual = values[1];
    c.v_norm = ops_.squared_weight_norm();
    // ||w(alpha)||^2, ||w(alpha^v)||^2 and w(alpha) . w(alpha^v): w(alpha) is v with
    // the hot weights replaced by w_H(alpha).
    const std::vector<std::int32_t>& columns = ops_.hot_columns();
    const double alpha_norm = c.v_norm - dot(hot_weights_, hot_weights_) + dot(sums_.of_alpha, sums_.of_alpha);
    const double paired_norm = dot(paired_, paired_);
    double cross = ops_.weights_dot(paired_);
    for (std::size_t h = 0; h < columns.size(); ++h)
      cross += (sums_.of_alpha[h] - hot_weights_[h]) * paired_[static_cast<std::size_t>(columns[h])];
    // D on the segment from alpha to alpha^v (feasible: a convex combination),
    // concave in theta: golden-section search on the row sums (mixed_dual).
    auto dual_at = [&](double theta, double* smoothed) {
      double sums[2];
      ops_.mixed_dual(certified, stepping, theta, sums);
      ops_.allreduce_sum(sums, 2);
      const double norm = (1.0 - theta) * (1.0 - theta) * alpha_norm + 2.0 * theta * (1.0 - theta) * cross +
                          theta * theta * paired_norm;
      if (smoothed != nullptr) *smoothed = sums[1] - 0.5 * norm;
      return sums[0] - 0.5 * norm;
    };
    double lo = 0.0, hi = 1.0;
    for (int iteration = 0; iteration < kSegmentSearches; ++iteration) {
      const double a = lo + 0.381966 * (hi - lo), b = lo + 0.618034 * (hi - lo);
      if (dual_at(a, nullptr) < dual_at(b, nullptr)) lo = a; else hi = b;
    }
    double theta = 0.5 * (lo + hi);
    double smoothed_dual = 0.0;
    double dual = dual_at(theta, &smoothed_dual);
    for (const double end : {0.0, 1.0}) {
      double end_smoothed = 0.0;
      const double value = dual_at(end, &end_smoothed);
      if (value > dual) {
        dual = value;
        theta = end;
        smoothed_dual = end_smoothed;
      }
    }
    if (std::isfinite(dual) && (!has_best_ || dual > best_dual_)) {
      best_dual_ = dual;
      has_best_ = true;
      ops_.keep_alpha(theta);
    }
    c.dual = best_dual_;
    // The hinge's continuation (smoothed_hinge.h): its gap is the smoothed
    // problem's plus what the smoothing adds; gamma falls when the smoothed gap is
    // under continuation_ratio of that, so that the smoothing, not the solving,
    // holds the hinge's gap up.
    if constexpr (!std::is_same_v<Certified, Stepping>) {
      const double primal = values[0] + 0.5 * c.v_norm;
      const double smoothed_gap = (values[2] + 0.5 * c.v_norm) - smoothed_dual;
      const double bias = (primal - c.dual) - smoothed_gap;
      c.continue_smoothing = gamma_ > settings_.gamma_floor && smoothed_gap < settings_.continuation_ratio * bias;
    }
    return c;
  }

  void lower_gamma() {
    gamma_ = std::max(settings_.gamma_floor, gamma_ * settings_.gamma_factor);
    ++counts_.gamma_reductions;
  }

  // The loss of the hot step's envelope terms: the logistic step solved to 1e-10
  // whatever the epoch's schedule allows (the line search compares their values).
  template <typename Stepping>
  static Stepping hot_loss(Stepping stepping) {
    if constexpr (std::is_same_v<Stepping, losses::LogisticLoss>) stepping.newton_tolerance = 1e-10;
    return stepping;
  }

  // The margins at the current v and alpha, and the hot sums for `stepping`.
  template <typename Stepping>
  void refresh_margins(const Stepping& stepping) {
    if (margins_current_ && sums_gamma_ == gamma_) return;
    sums_.assign(ops_.n_hot());
    ops_.margin_pass(stepping, sums_);
    ++counts_.margin_passes;
    ops_.allreduce_sum(sums_.gradient.data(), sums_.gradient.size());
    ops_.allreduce_sum(sums_.of_alpha.data(), sums_.of_alpha.size());
    ops_.allreduce_sum(sums_.diagonal.data(), sums_.diagonal.size());
    margins_current_ = true;
    sums_gamma_ = gamma_;
  }

  template <typename Stepping>
  void newton(const Stepping& stepping) {
    refresh_margins(stepping);
    BoundOps<Stepping> bound{*this, stepping};
    const HotStepStats stats = hot_newton_step(bound, hot_weights_, sums_.gradient, sums_.diagonal, settings_.hot);
    counts_.products += stats.products;
    counts_.line_evaluations += stats.line_evaluations;
    // The margins moved with the step (apply); the hot sums did not.
    if (stats.step != 0.0) sums_gamma_ = -1.0;
  }

  Ops& ops_;
  SolverParameters parameters_;
  ScheduleSettings settings_;
  double gamma_;
  std::vector<double> hot_weights_;  // w_H, the same on every rank
  HotSums sums_;                     // at the margins of the last margin pass
  std::vector<double> paired_;       // w(alpha^v) of the last certificate
  std::vector<double> best_weights_; // v of the best certified iterate (keep_best)
  double best_dual_ = 0.0;           // the largest D certified
  bool has_best_ = false;
  bool margins_current_ = false;
  double sums_gamma_ = -1.0;  // the gamma sums_ was computed for (-1: stale)
  mutable ScheduleCounts counts_;
};

}  // namespace snapml::cuda::dual
