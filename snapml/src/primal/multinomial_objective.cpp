// The multinomial (softmax) loss for the primal Newton solver (primal_newton_solver.cpp):
//   f(W) = sum_i C_i [log sum_k exp(m_ik) - m_i,y_i] + 0.5 sum_j,k r_j W_jk^2,
//   m_ik = w_k . x_i (the constant feature's weight the intercept), the objective
// of scikit-learn's LogisticRegression for more than two classes scaled by C
// times the sample-weight sum (scikit-learn minimises it divided by that).
//
// With p_i = softmax(m_i) and Y the one-hot labels:
//   gradient   G = X^T D + r W,          D_ik = C_i (p_ik - y_ik)
//   Hessian    (H V)_k = X^T T_k + r V_k, T_ik = C_i p_ik (u_ik - sum_l p_il u_il),
//              U = X V
//   diagonal   H_(jk,jk) = sum_i C_i p_ik (1 - p_ik) x_ij^2 + r_j
// so a Hessian-vector product is two passes over the data (X V and X^T T, each
// for all K columns at once: the seam's block products), a gradient one pass
// after the margins. Weights are kept feature-major (W[j * K + k]) so a row's
// non-zero touches K adjacent weights.
//
// The paired dual point (losses/multinomial.h): alpha_ik = -D_ik = C_i (y_ik -
// p_ik), whose W(alpha) = sum_i x_i alpha_i^T = W - G when everything is
// penalised; the dual value of row i is C_i H(p_i).
#include <algorithm>
#include <cmath>
#include <string>

#include "snapml/error.h"
#include "snapml/losses/multinomial.h"
#include "newton_objective.h"

namespace snapml::detail {
namespace {

class MultinomialObjective final : public NewtonObjective {
 public:
  MultinomialObjective(MatrixOperations& operations, const SolverParameters& parameters, int threads)
      : operations_(operations),
        threads_(threads),
        n_rows_(operations.n_rows()),
        classes_(static_cast<int>(parameters.classes.size())) {
    require(classes_ >= 2, "the multinomial loss needs the classes (SolverParameters::classes)");
    require(parameters.class_weights.size() == parameters.classes.size(),
            "the multinomial loss needs one class weight per class");
    const auto rows = static_cast<std::size_t>(n_rows_);
    std::vector<double> labels(rows), weights(rows);
    operations_.rows(labels.data(), weights.data());
    labels_.resize(rows);
    costs_.resize(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      const auto found = std::lower_bound(parameters.classes.begin(), parameters.classes.end(), labels[i]);
      require(found != parameters.classes.end() && *found == labels[i],
              "row " + std::to_string(i) + " has a label that is not among the multinomial loss's classes");
      labels_[i] = static_cast<int>(found - parameters.classes.begin());
      costs_[i] = parameters.C * parameters.class_weights[static_cast<std::size_t>(labels_[i])] *
                  static_cast<double>(static_cast<float>(weights[i]));
    }
    probabilities_.assign(rows * K(), 0.0);
    row_values_.assign(rows * K(), 0.0);
  }

  std::size_t width() const override { return operations_.n_weights() * K(); }
  std::size_t intercept_count() const override { return K(); }
  std::size_t margins_size() const override { return static_cast<std::size_t>(n_rows_) * K(); }

  std::vector<double> start(SolverState& state, Communicator&) override {
    require(state.alpha.empty(), "the multinomial loss warm-starts from weights only, not from dual variables");
    std::vector<double> w(width(), 0.0);
    if (state.weights.empty()) return w;
    const std::size_t n_weights = operations_.n_weights();
    require(state.weights.size() == width(), "warm start: the multinomial loss takes " + std::to_string(K()) +
                                                 " rows of n_features + 1 weights, " + std::to_string(width()) +
                                                 " in all; got " + std::to_string(state.weights.size()));
    for (std::size_t k = 0; k < K(); ++k)
      for (std::size_t j = 0; j < n_weights; ++j) w[j * K() + k] = state.weights[k * n_weights + j];
    return w;
  }

  double loss_sum(const std::vector<double>& w, std::vector<double>& margins) override {
    operations_.margins_block(w.data(), classes_, margins.data());
    return ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
      const auto row = static_cast<std::size_t>(i);
      if (!(costs_[row] > 0.0)) return 0.0;
      const double* m = margins.data() + row * K();
      const double top = *std::max_element(m, m + classes_);
      double sum = 0.0;
      for (int k = 0; k < classes_; ++k) sum += std::exp(m[k] - top);
      return costs_[row] * (top + std::log(sum) - m[labels_[row]]);
    });
  }

  void margins(const std::vector<double>& v, std::vector<double>& out) override {
    operations_.margins_block(v.data(), classes_, out.data());
  }

  LineValues along_line(const std::vector<double>& m, const std::vector<double>& u, double t) override {
    // With z = m_i + t u_i and p = softmax(z): the row's loss is C_i (lse(z) -
    // z_y), its slope C_i (p.u - u_y), its curvature C_i (p.u^2 - (p.u)^2).
    return ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
      const auto row = static_cast<std::size_t>(i);
      LineValues values;
      if (!(costs_[row] > 0.0)) return values;
      const double* mi = m.data() + row * K();
      const double* ui = u.data() + row * K();
      double top = mi[0] + t * ui[0];
      for (int k = 1; k < classes_; ++k) top = std::max(top, mi[k] + t * ui[k]);
      double sum = 0.0, pu = 0.0, puu = 0.0;
      for (int k = 0; k < classes_; ++k) {
        const double e = std::exp(mi[k] + t * ui[k] - top);
        sum += e;
        pu += e * ui[k];
        puu += e * ui[k] * ui[k];
      }
      pu /= sum;
      puu /= sum;
      const auto y = static_cast<std::size_t>(labels_[row]);
      values.value = costs_[row] * (top + std::log(sum) - (mi[y] + t * ui[y]));
      values.slope = costs_[row] * (pu - ui[y]);
      values.curvature = costs_[row] * std::max(0.0, puu - pu * pu);
      return values;
    });
  }

  double gradient(const std::vector<double>& margins, double* g) override {
    const double dual_sum = ordered_sum(n_rows_, threads_, [&](std::int64_t i) {
      const auto row = static_cast<std::size_t>(i);
      double* p = probabilities_.data() + row * K();
      double* d = row_values_.data() + row * K();
      const double cost = costs_[row];
      if (!(cost > 0.0)) {
        std::fill(p, p + classes_, 0.0);  // no curvature either
        std::fill(d, d + classes_, 0.0);
        return 0.0;
      }
      losses::MultinomialLoss::softmax(margins.data() + row * K(), classes_, p);
      for (int k = 0; k < classes_; ++k) d[k] = cost * (p[k] - (k == labels_[row] ? 1.0 : 0.0));
      return cost * losses::MultinomialLoss::entropy(p, classes_);
    });
    operations_.transpose_times_block(row_values_.data(), classes_, g);
    return dual_sum;
  }

  void hessian_product(const std::vector<double>& v, double* out) override {
    operations_.margins_block(v.data(), classes_, row_values_.data());  // U = X V
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
    for (std::int64_t i = 0; i < n_rows_; ++i) {
      const auto row = static_cast<std::size_t>(i);
      const double* p = probabilities_.data() + row * K();
      double* u = row_values_.data() + row * K();
      double mean = 0.0;
      for (int k = 0; k < classes_; ++k) mean += p[k] * u[k];
      for (int k = 0; k < classes_; ++k) u[k] = costs_[row] * p[k] * (u[k] - mean);
    }
    operations_.transpose_times_block(row_values_.data(), classes_, out);
  }

  void hessian_diagonal(double* out) override {
    for (std::size_t i = 0; i < probabilities_.size(); ++i) {
      const double p = probabilities_[i];
      row_values_[i] = costs_[i / K()] * p * (1.0 - p);
    }
    operations_.hessian_diagonal_block(row_values_.data(), classes_, out);
  }

  void finish(const std::vector<double>& w, SolverState& state) override {
    const std::size_t n_weights = operations_.n_weights();
    state.weights.assign(width(), 0.0);
    for (std::size_t k = 0; k < K(); ++k)
      for (std::size_t j = 0; j < n_weights; ++j) state.weights[k * n_weights + j] = w[j * K() + k];
    state.alpha.assign(probabilities_.size(), 0.0);
    for (std::size_t i = 0; i < probabilities_.size(); ++i) {
      const std::size_t row = i / K();
      const bool own = static_cast<int>(i % K()) == labels_[row];
      state.alpha[i] = costs_[row] > 0.0 ? costs_[row] * ((own ? 1.0 : 0.0) - probabilities_[i]) : 0.0;
    }
  }

 private:
  std::size_t K() const { return static_cast<std::size_t>(classes_); }

  MatrixOperations& operations_;
  int threads_;
  std::int64_t n_rows_;
  int classes_;
  std::vector<int> labels_;            // class index of each row
  std::vector<double> costs_;          // C_i; 0 for a row absent from the problem
  std::vector<double> probabilities_;  // p_ik at the last gradient(), row-major
  std::vector<double> row_values_;     // per-row scratch: D, U and T, curvatures
};

}  // namespace

std::unique_ptr<NewtonObjective> make_multinomial_objective(MatrixOperations& operations,
                                                           const SolverParameters& parameters, int threads) {
  return std::make_unique<MultinomialObjective>(operations, parameters, threads);
}

}  // namespace snapml::detail
