// The trust region's shared loops (snapml/src/primal/trust_region.h) over a small
// dense backend: CG stops at the first step whose residual meets the target, never
// before its first step, and its target is half the gradient norm the record
// stops at (the certified gap is 0.5 ||g||^2: checked on the CPU solver's fits
// of every scalar loss and the multinomial loss).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../../../snapml/src/primal/trust_region.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/dataset.h"
#include "snapml/solver_factory.h"

namespace snapml {
namespace {

namespace tr = detail::trust_region;

// CG's side of the backend for H s = -g with a dense H, M = I, recording the
// residual norm after each step.
class DenseCg {
 public:
  DenseCg(std::vector<std::vector<double>> h, std::vector<double> g) : h_(std::move(h)), g_(std::move(g)) {}

  tr::CgStart cg_start() {
    const std::size_t n = g_.size();
    s_.assign(n, 0.0);
    r_.resize(n);
    for (std::size_t j = 0; j < n; ++j) r_[j] = -g_[j];
    d_ = r_;
    residuals_.clear();
    return {dot(r_, r_), dot(d_, d_)};
  }
  double cg_curvature() {
    hd_.assign(g_.size(), 0.0);
    for (std::size_t i = 0; i < g_.size(); ++i)
      for (std::size_t j = 0; j < g_.size(); ++j) hd_[i] += h_[i][j] * d_[j];
    return dot(d_, hd_);
  }
  tr::CgAdvance cg_advance(double step, double zr) {
    for (std::size_t j = 0; j < g_.size(); ++j) {
      s_[j] += step * d_[j];
      r_[j] -= step * hd_[j];
    }
    tr::CgAdvance next;
    next.zr = next.rr = dot(r_, r_);
    const double beta = next.zr / zr;
    for (std::size_t j = 0; j < g_.size(); ++j) d_[j] = r_[j] + beta * d_[j];
    next.sd = dot(s_, d_);
    next.dd = dot(d_, d_);
    residuals_.push_back(std::sqrt(next.rr));
    return next;
  }
  void cg_to_boundary(double tau) {
    for (std::size_t j = 0; j < g_.size(); ++j) {
      s_[j] += tau * d_[j];
      r_[j] -= tau * hd_[j];
    }
  }
  const std::vector<double>& residuals() const { return residuals_; }
  const std::vector<double>& s() const { return s_; }

 private:
  static double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0.0;
    for (std::size_t j = 0; j < a.size(); ++j) sum += a[j] * b[j];
    return sum;
  }
  std::vector<std::vector<double>> h_;
  std::vector<double> g_, s_, r_, d_, hd_;
  std::vector<double> residuals_;
};

// A badly conditioned SPD matrix: CG takes many steps.
DenseCg ill_conditioned(std::size_t n) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> a(n, std::vector<double>(n));
  for (auto& row : a)
    for (double& x : row) x = normal(rng);
  std::vector<std::vector<double>> h(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < n; ++k) h[i][j] += a[k][i] * a[k][j] * std::pow(1.5, static_cast<double>(k));
    h[i][i] += 1.0;
  }
  std::vector<double> g(n);
  for (double& x : g) x = normal(rng);
  return DenseCg(std::move(h), std::move(g));
}

TEST(TrustRegion, ConjugateGradientsStopAtTheFirstStepWhoseResidualMeetsTheTarget) {
  const double huge = std::numeric_limits<double>::infinity();
  DenseCg reference = ill_conditioned(30);
  const int all = tr::conjugate_gradients(reference, huge, 1e-14, 0.0, 30);  // the forcing rule alone
  ASSERT_GT(all, 10);
  const std::vector<double> residuals = reference.residuals();
  const double target = residuals[5] * 1.0000001;  // met first after the sixth step
  for (std::size_t k = 0; k < 5; ++k) ASSERT_GT(residuals[k], target);
  DenseCg cut = ill_conditioned(30);
  EXPECT_EQ(tr::conjugate_gradients(cut, huge, 1e-14, target, 30), 6);
  EXPECT_EQ(cut.residuals(), std::vector<double>(residuals.begin(), residuals.begin() + 6));
}

// A target the gradient already meets still takes a step: a zero step would end
// the fit (no progress) without the record's rule.
TEST(TrustRegion, ATargetNeverEndsConjugateGradientsBeforeTheirFirstStep) {
  DenseCg cg = ill_conditioned(8);
  EXPECT_EQ(tr::conjugate_gradients(cg, std::numeric_limits<double>::infinity(), 1e-14, 1e300, 8), 1);
  double moved = 0.0;
  for (const double x : cg.s()) moved += x * x;
  EXPECT_GT(moved, 0.0);
}

// Half the gradient norm whose gap 0.5 ||g||^2 meets tol P; no cut for the
// gradient rule or tol 0.
TEST(TrustRegion, TheCgTargetIsHalfTheGradientNormTheCertificateStopsAt) {
  EXPECT_DOUBLE_EQ(tr::cg_target(true, 1e-8, 50.0), 0.5 * std::sqrt(1e-6));
  EXPECT_EQ(tr::cg_target(false, 1e-3, 50.0), 0.0);
  EXPECT_EQ(tr::cg_target(true, 0.0, 50.0), 0.0);
}

// Rows with a few informative columns; labels 0, 1, 2 (binary losses: 1 against the rest).
Dataset rows(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<std::int32_t> column(0, 39);
  CsrChunk chunk;
  for (int i = 0; i < 600; ++i) {
    std::vector<std::int32_t> indices;
    std::vector<float> values;
    double score = 0.0;
    for (int k = 0; k < 6; ++k) {
      const std::int32_t j = column(rng);
      if (std::find(indices.begin(), indices.end(), j) != indices.end()) continue;
      indices.push_back(j);
      values.push_back(static_cast<float>(normal(rng)));
      score += (j % 3 - 1) * values.back();
    }
    std::sort(indices.begin(), indices.end());
    const double label = score + 0.5 * normal(rng) > 0.3 ? 2.0 : (score > -0.3 ? 1.0 : 0.0);
    chunk.add_row(label, indices.data(), values.data(), static_cast<std::int64_t>(indices.size()));
  }
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), 40);
}

// cg_target's premise: with everything penalised, every record's gap
// is 0.5 ||g||^2 (Fenchel-Young's equality at each row's derivative), for every
// scalar loss and the multinomial loss, with sample weights none.
TEST(TrustRegion, TheCertifiedGapIsHalfTheSquaredGradient) {
  const Dataset data = rows(5);
  for (const LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Squared, LossKind::Multinomial}) {
    SCOPED_TRACE(loss_name(loss));
    SolverParameters p;
    p.loss = loss;
    p.solver = SolverChoice::Primal;
    p.primal_method = PrimalMethod::TrustRegion;
    p.C = 0.7;
    p.epsilon = loss == LossKind::Squared ? 0.1 : 0.0;
    p.intercept_scaling = 1.0;
    p.tol = 1e-9;
    p.max_epochs = 100;
    p.threads = 1;
    if (loss == LossKind::Multinomial) {
      p.classes = {0.0, 1.0, 2.0};
      p.class_weights = {1.0, 0.5, 2.0};
    }
    InMemorySource source(data);
    LocalCommunicator local;
    SolverState state;
    const FitResult result = make_tron_cpu_solver(p)->fit(source, local, state);
    ASSERT_TRUE(result.converged);
    ASSERT_GE(result.history.size(), 3u);
    for (const EpochRecord& record : result.history) {
      const double half_squared = 0.5 * record.gradient_norm * record.gradient_norm;
      EXPECT_NEAR(record.gap, half_squared, 1e-9 * record.primal + 1e-6 * half_squared) << "record " << record.epoch;
    }
  }
}

}  // namespace
}  // namespace snapml
