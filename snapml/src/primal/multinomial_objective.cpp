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
//
// Free intercepts (scikit-learn's problem) add the dual constraint s_k = sum_i
// alpha_ik = 0 for every class (the intercepts' gradient is -B s, B the constant
// column's value), which the paired point meets only at the intercepts' optimum.
// Two pieces make the fit certified all the same (free_intercept_dual below,
// docs/algorithms.md "Multinomial"):
// - centre_intercepts: the L-BFGS driver moves the intercepts to their exact
//   minimiser (the one whose intercepts sum to 0), the other weights fixed,
//   before each gradient: a K-dimensional Newton solve on the rows' margins,
//   which shift by a constant per class (no pass over the data), leaving s at
//   rounding level;
// - the paired point mixed towards one distribution c over the classes: q_i =
//   (1 - lambda) p_i + lambda c with lambda = max_k (-s_k / P_k) (P_k = sum_i C_i
//   p_ik) and c_k = (P_k + s_k / lambda) / sum_i C_i >= 0, whose alpha' = C_i
//   (e_y - q_i) meets the constraint exactly. Its dual value is bounded below by
//   concavity of the entropy, sum_i C_i H(q_i) >= (1 - lambda) sum_i C_i H(p_i),
//   and W(alpha') = (1 - lambda) (W - G) - lambda (a c^T - Z) with Z = X^T (C Y)
//   and a = Z 1 (one pass at the start): every term known without a pass, so
//   D(alpha') bounds P's optimum from below and the gap P - D(alpha') certifies
//   the fit, tending to 0.5 ||G||^2 as s -> 0 (the penalised case's gap).
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "snapml/error.h"
#include "snapml/losses/multinomial.h"
#include "newton_objective.h"

namespace snapml::detail {
namespace {

constexpr std::size_t kMaxStackClasses = 64;  // a row's K values on the stack up to this
constexpr int kCentringSteps = 10;            // Newton steps of one centring at most
// Centred once max_k |G_k| <= this x sum_i C_i: lambda is then about K x this,
// far below any tolerance the certificate is asked for.
constexpr double kCentred = 1e-13;
constexpr double kCentringRidge = 1e-14;  // x tr H on the diagonal

// x with A x = b for the symmetric n x n matrix A (its lower triangle read,
// row-major) by Cholesky's factorisation. False where A is not numerically
// positive definite.
bool cholesky_solve(const std::vector<double>& a, std::size_t n, const double* b, std::vector<double>& x) {
  const auto size = static_cast<Eigen::Index>(n);
  Eigen::MatrixXd matrix(size, size);
  for (Eigen::Index k = 0; k < size; ++k)
    for (Eigen::Index l = 0; l <= k; ++l) matrix(k, l) = a[static_cast<std::size_t>(k * size + l)];
  const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> cholesky(matrix);
  if (cholesky.info() != Eigen::Success) return false;
  const Eigen::VectorXd solution = cholesky.solve(Eigen::Map<const Eigen::VectorXd>(b, size));
  if (!solution.allFinite()) return false;
  x.assign(solution.data(), solution.data() + n);
  return true;
}

class MultinomialObjective final : public NewtonObjective {
 public:
  MultinomialObjective(MatrixOperations& operations, const SolverParameters& parameters, int threads)
      : operations_(operations),
        threads_(threads),
        n_rows_(operations.n_rows()),
        classes_(static_cast<int>(parameters.classes.size())),
        bias_(parameters.intercept_scaling),
        free_intercepts_(parameters.penalty != Penalty::None && !parameters.penalise_intercept &&
                         parameters.intercept_scaling != 0.0) {
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

  std::vector<double> start(SolverState& state, Communicator& communicator) override {
    require(state.alpha.empty(), "the multinomial loss warm-starts from weights only, not from dual variables");
    if (free_intercepts_) label_sums(communicator);
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

  bool certifies_free_intercepts() const override { return free_intercepts_; }

  double centre_intercepts(const double* intercepts, std::vector<double>& margins, std::vector<double>& shift,
                           Communicator& communicator) override;

  double free_intercept_dual(const std::vector<double>& w, const std::vector<double>& g,
                             const std::vector<double>& regulariser, std::vector<double>& dual_weights) override;

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
  // The loss sum, its gradient in the intercepts' margin shifts delta (G_k =
  // sum_i C_i (p_ik - y_ik)) and that gradient's Jacobian (sum_i C_i (diag p_i -
  // p_i p_i^T), lower triangle) at margins m + delta, summed over the ranks into
  // sums = {loss, G, H} (1 + K + K^2 entries).
  void intercept_sums(const std::vector<double>& margins, const std::vector<double>& delta,
                      Communicator& communicator, std::vector<double>& sums);
  // Y_k = sum_i C_i y_ik, sum_i C_i and Z = X^T (C Y) over the ranks (one pass).
  void label_sums(Communicator& communicator);

  MatrixOperations& operations_;
  int threads_;
  std::int64_t n_rows_;
  int classes_;
  double bias_;           // B, the intercepts' column
  bool free_intercepts_;  // certifies_free_intercepts()
  std::vector<double> class_costs_;  // Y_k
  double cost_total_ = 0.0;          // sum_i C_i
  std::vector<double> label_sums_;   // Z, feature-major as the weights
  std::vector<double> label_totals_;  // a = Z 1: sum_i C_i x_ij per feature
  std::vector<int> labels_;            // class index of each row
  std::vector<double> costs_;          // C_i; 0 for a row absent from the problem
  std::vector<double> probabilities_;  // p_ik at the last gradient(), row-major
  std::vector<double> row_values_;     // per-row scratch: D, U and T, curvatures
};

// Sums over blocks of rows added in block order (ordered_sum's rule for a vector
// of sums): the same bits for any thread count.
template <typename Term>
void ordered_vector_sum(std::int64_t n, int threads, std::size_t size, const Term& term, double* out) {
  const std::int64_t blocks = row_blocks(n);
  std::vector<double> parts(static_cast<std::size_t>(blocks) * size, 0.0);
SNAPML_OMP(parallel for num_threads(threads) schedule(static))
  for (std::int64_t block = 0; block < blocks; ++block) {
    double* part = parts.data() + static_cast<std::size_t>(block) * size;
    const std::int64_t end = std::min(n, (block + 1) * kRowBlock);
    for (std::int64_t i = block * kRowBlock; i < end; ++i) term(i, part);
  }
  std::fill(out, out + size, 0.0);
  for (std::int64_t block = 0; block < blocks; ++block)
    for (std::size_t e = 0; e < size; ++e) out[e] += parts[static_cast<std::size_t>(block) * size + e];
}

void MultinomialObjective::label_sums(Communicator& communicator) {
  const std::size_t rows = static_cast<std::size_t>(n_rows_);
  class_costs_.assign(K() + 1, 0.0);
  std::fill(row_values_.begin(), row_values_.end(), 0.0);
  for (std::size_t i = 0; i < rows; ++i) {
    if (!(costs_[i] > 0.0)) continue;
    row_values_[i * K() + static_cast<std::size_t>(labels_[i])] = costs_[i];
    class_costs_[static_cast<std::size_t>(labels_[i])] += costs_[i];
  }
  for (std::size_t k = 0; k < K(); ++k) class_costs_[K()] += class_costs_[k];
  communicator.allreduce_sum(class_costs_.data(), class_costs_.size());
  cost_total_ = class_costs_[K()];
  class_costs_.resize(K());
  // A class no row weighs (class or sample weights 0) has no optimal intercept
  // (it falls without bound) and no dual point meets its constraint (every
  // alpha_ik <= 0 there): such a fit keeps the gradient rule.
  if (!std::all_of(class_costs_.begin(), class_costs_.end(), [](double y) { return y > 0.0; })) {
    free_intercepts_ = false;
    return;
  }
  label_sums_.assign(width(), 0.0);
  operations_.transpose_times_block(row_values_.data(), classes_, label_sums_.data());
  communicator.allreduce_sum(label_sums_.data(), label_sums_.size());
  const std::size_t features = label_sums_.size() / K();
  label_totals_.assign(features, 0.0);
  for (std::size_t j = 0; j < features; ++j)
    for (std::size_t k = 0; k < K(); ++k) label_totals_[j] += label_sums_[j * K() + k];
}

void MultinomialObjective::intercept_sums(const std::vector<double>& margins, const std::vector<double>& delta,
                                          Communicator& communicator, std::vector<double>& sums) {
  const std::size_t size = 1 + K() + K() * K();
  sums.resize(size);
  ordered_vector_sum(n_rows_, threads_, size, [&](std::int64_t i, double* sum) {
    const auto row = static_cast<std::size_t>(i);
    const double cost = costs_[row];
    if (!(cost > 0.0)) return;
    double z[kMaxStackClasses], p[kMaxStackClasses];
    std::vector<double> heap;
    double* zi = z;
    double* pi = p;
    if (K() > kMaxStackClasses) {
      heap.resize(2 * K());
      zi = heap.data();
      pi = heap.data() + K();
    }
    for (std::size_t k = 0; k < K(); ++k) zi[k] = margins[row * K() + k] + delta[k];
    const double log_normaliser = losses::MultinomialLoss::softmax(zi, classes_, pi);
    const auto y = static_cast<std::size_t>(labels_[row]);
    sum[0] += cost * (log_normaliser - zi[y]);
    double* gradient = sum + 1;
    double* jacobian = sum + 1 + K();
    for (std::size_t k = 0; k < K(); ++k) {
      gradient[k] += cost * (pi[k] - (k == y ? 1.0 : 0.0));
      const double scaled = cost * pi[k];
      for (std::size_t l = 0; l < k; ++l) jacobian[k * K() + l] -= scaled * pi[l];
      jacobian[k * K() + k] += scaled * (1.0 - pi[k]);
    }
  }, sums.data());
  communicator.allreduce_sum(sums.data(), sums.size());
}

double MultinomialObjective::centre_intercepts(const double* intercepts, std::vector<double>& margins,
                                               std::vector<double>& shift, Communicator& communicator) {
  // Damped Newton on the loss over the margins' shifts delta (convex; flat along
  // delta = const 1, the direction its gradient never has: sum_k G_k = 0). The
  // system (H + (tr H / K^2) 1 1^T) x = -G has the solution with 1.x = 0, and
  // Cholesky takes it (H + that term is positive definite where every p_ik > 0;
  // a ridge of rounding size keeps it so where some vanish). Stops once max |G_k|
  // is rounding beside sum_i C_i, or a step no longer lowers the loss.
  const std::size_t n = K();
  std::vector<double> delta(n, 0.0), trial(n), step(n), sums, trial_sums, a(n * n);
  intercept_sums(margins, delta, communicator, sums);
  const double start = sums[0];
  for (int iteration = 0; iteration < kCentringSteps; ++iteration) {
    double largest = 0.0, trace = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      largest = std::max(largest, std::fabs(sums[1 + k]));
      trace += sums[1 + n + k * n + k];
    }
    if (!(largest > kCentred * cost_total_) || !(trace > 0.0)) break;
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t l = 0; l <= k; ++l)
        a[k * n + l] = sums[1 + n + k * n + l] + trace / static_cast<double>(n * n) +
                       (k == l ? kCentringRidge * trace : 0.0);
    if (!cholesky_solve(a, n, sums.data() + 1, step)) break;
    double t = 1.0;
    bool moved = false;
    for (int halving = 0; halving < 30 && !moved; ++halving, t *= 0.5) {
      for (std::size_t k = 0; k < n; ++k) trial[k] = delta[k] - t * step[k];
      intercept_sums(margins, trial, communicator, trial_sums);
      moved = trial_sums[0] <= sums[0] + kValueRounding * std::fabs(sums[0]);
    }
    if (!moved) break;
    delta.swap(trial);
    sums.swap(trial_sums);
  }
  // The softmax is the same for margins moved alike in every class, and so is
  // the loss along intercepts moved alike: the intercepts are kept summing to 0
  // (scikit-learn's multinomial intercepts do). Left free, L-BFGS's curvature
  // pairs, flat along that direction, amplified its rounding: on a 4-class set
  // (400 x 12, l1_ratio 1, C = 10) every intercept had drifted to -2.9e8 after
  // 560 iterations, the margins near 3e8, their rounding 1e-5 in the loss, and
  // the fit stalled there with a relative gap of 0.02. Exact in the loss: every
  // margin of a row moves by the same constant.
  double mean = 0.0;
  for (std::size_t k = 0; k < n; ++k) mean += intercepts[k] * bias_ + delta[k];
  mean /= static_cast<double>(n);
  for (std::size_t k = 0; k < n; ++k) delta[k] -= mean;
  const auto rows = static_cast<std::int64_t>(n_rows_);
SNAPML_OMP(parallel for num_threads(threads_) schedule(static))
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::size_t k = 0; k < n; ++k) margins[static_cast<std::size_t>(i) * n + k] += delta[k];
  shift.resize(n);
  for (std::size_t k = 0; k < n; ++k) shift[k] = delta[k] / bias_;
  return sums[0] - start;
}

double MultinomialObjective::free_intercept_dual(const std::vector<double>& w, const std::vector<double>& g,
                                                 const std::vector<double>& regulariser,
                                                 std::vector<double>& dual_weights) {
  const std::size_t n = K();
  const std::size_t intercepts = w.size() - n;  // the constant column's K weights
  std::vector<double> c(n, 0.0), s(n);
  double lambda = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    s[k] = -g[intercepts + k] / bias_;  // sum_i alpha_ik: the intercepts carry no penalty
    const double p = class_costs_[k] - s[k];  // P_k
    if (s[k] < 0.0) lambda = std::max(lambda, -s[k] / p);
  }
  if (!(lambda <= 1.0)) return -std::numeric_limits<double>::infinity();  // no such mix: no bound here
  if (lambda > 0.0)
    for (std::size_t k = 0; k < n; ++k) c[k] = std::max(0.0, (class_costs_[k] - s[k] + s[k] / lambda) / cost_total_);
  dual_weights.resize(w.size());
  std::fill(dual_weights.begin() + static_cast<std::ptrdiff_t>(intercepts), dual_weights.end(), 0.0);
  const auto features = static_cast<std::int64_t>(intercepts / n);
SNAPML_OMP(parallel for num_threads(detail::threads_for(features, threads_)) schedule(static))
  for (std::int64_t feature = 0; feature < features; ++feature) {
    const std::size_t base = static_cast<std::size_t>(feature) * n;
    const double a = label_totals_[static_cast<std::size_t>(feature)];  // sum_i C_i x_ij
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t j = base + k;
      dual_weights[j] = (1.0 - lambda) * (regulariser[j] * w[j] - g[j]) - lambda * (a * c[k] - label_sums_[j]);
    }
  }
  return 1.0 - lambda;
}

}  // namespace

std::unique_ptr<NewtonObjective> make_multinomial_objective(MatrixOperations& operations,
                                                           const SolverParameters& parameters, int threads) {
  return std::make_unique<MultinomialObjective>(operations, parameters, threads);
}

}  // namespace snapml::detail
