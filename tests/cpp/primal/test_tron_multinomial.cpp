// The primal Newton solver on the multinomial (softmax) loss: the optimum against
// a dense Newton reference (intercepts penalised, with the duality-gap
// certificate, and free), sample and class weights, K ranks against one process,
// the two-class case, and train()'s model (K rows, softmax probabilities).
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <vector>

#include "../../../snapml/src/primal/newton_objective.h"
#include "../fixtures/fit_on_ranks.h"
#include "../fixtures/fit_once.h"
#include "../fixtures/dense_multinomial.h"
#include "../fixtures/random_problem.h"
#include "snapml/chunk_source.h"
#include "snapml/solver_factory.h"
#include "snapml/train.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

// Damped Newton on the dense gradient and Hessian (x_i x_i^T kron (diag p - p p^T)),
// solved by a complete orthogonal decomposition: with free intercepts the Hessian
// is singular along the shift of all intercepts, which the gradient never has.
Eigen::VectorXd dense_reference(const DenseMultinomial& d) {
  const Eigen::Index width = d.x.cols();
  const Eigen::Index n = width * kClasses;
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  for (int iteration = 0; iteration < 100; ++iteration) {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
    Eigen::MatrixXd h = Eigen::MatrixXd::Zero(n, n);
    for (int k = 0; k < kClasses; ++k) {
      g.segment(k * width, width) = d.r.cwiseProduct(w.segment(k * width, width));
      h.block(k * width, k * width, width, width).diagonal() = d.r;
    }
    for (Eigen::Index i = 0; i < d.x.rows(); ++i) {
      Eigen::VectorXd m(kClasses);
      for (int k = 0; k < kClasses; ++k) m(k) = d.x.row(i).dot(w.segment(k * width, width));
      Eigen::VectorXd p = (m.array() - m.maxCoeff()).exp();
      p /= p.sum();
      const Eigen::MatrixXd outer = d.x.row(i).transpose() * d.x.row(i);
      for (int k = 0; k < kClasses; ++k) {
        const double own = k == d.y[static_cast<std::size_t>(i)] ? 1.0 : 0.0;
        g.segment(k * width, width) += d.c(i) * (p(k) - own) * d.x.row(i).transpose();
        for (int l = 0; l < kClasses; ++l)
          h.block(k * width, l * width, width, width) += d.c(i) * p(k) * ((k == l ? 1.0 : 0.0) - p(l)) * outer;
      }
    }
    if (g.norm() < 1e-13) break;
    const Eigen::VectorXd step = h.completeOrthogonalDecomposition().solve(g);
    const double current = dense_primal(d, w);
    double t = 1.0;
    while (t > 1e-12 && dense_primal(d, w - t * step) > current - 1e-4 * t * g.dot(step)) t *= 0.5;
    w -= t * step;
  }
  return w;
}

Eigen::VectorXd as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

TEST(TronMultinomial, PenalisedInterceptsMatchTheDenseReferenceWithACertificate) {
  const Dataset data = three_classes();
  const SolverParameters p = multinomial(true);
  const DenseMultinomial d = dense_multinomial(data, p);
  const Eigen::VectorXd reference = dense_reference(d);
  const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged);
  for (const EpochRecord& record : ours.result.history) {
    EXPECT_GE(record.gap, -1e-9 * record.primal);  // a valid dual point every iteration
    EXPECT_NEAR(record.primal - record.dual, record.gap, 1e-9 * record.primal);
  }
  EXPECT_LE(ours.result.history.back().gap, 1e-12 * ours.result.history.back().primal);
  EXPECT_LT(ours.result.history.size(), 30u);  // Newton: a few iterations
  const Eigen::VectorXd w = as_vector(ours.state.weights);
  ASSERT_EQ(w.size(), reference.size());
  EXPECT_LT((w - reference).norm(), 1e-6 * (1.0 + reference.norm()));
  EXPECT_NEAR(ours.result.history.back().primal, dense_primal(d, reference), 1e-10 * dense_primal(d, reference));
  // The paired dual point: K per row, alpha_ik = C_i (y_ik - p_ik), summing to 0.
  ASSERT_EQ(ours.state.alpha.size(), static_cast<std::size_t>(data.n_rows() * kClasses));
  for (std::size_t i = 0; i < ours.state.alpha.size(); i += kClasses)
    EXPECT_NEAR(ours.state.alpha[i] + ours.state.alpha[i + 1] + ours.state.alpha[i + 2], 0.0, 1e-9);
}

// Free intercepts: L-BFGS centres them before each gradient and every record
// carries the gap of a dual point that meets the constraint sum_i alpha_i = 0
// (multinomial_objective.cpp), so the fit stops on gap <= tol P as the penalised
// one does. Every record's dual value is a lower bound on the optimum (weak
// duality), the last primal is within its gap of it, and the weights are within
// sqrt(2 gap) (min over the intercepts of f is 1-strongly convex in the rest).
// three_classes() with free intercepts and its dense optimum.
struct FreeInterceptProblem {
  Dataset data = three_classes();
  SolverParameters p = multinomial(false);
  DenseMultinomial d = dense_multinomial(data, p);
  Eigen::VectorXd reference = dense_reference(d);
  double optimum = dense_primal(d, reference);
};

TEST(TronMultinomial, FreeInterceptsMatchTheDenseReferenceWithACertificate) {
  FreeInterceptProblem problem;
  const auto& [data, p_, d, reference, optimum] = problem;
  SolverParameters p = p_;
  const Eigen::Index width = d.x.cols();
  for (const double tol : {1e-4, 1e-10}) {
    SCOPED_TRACE("tol " + std::to_string(tol));
    p.tol = tol;
    const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
    ASSERT_TRUE(ours.result.converged);
    for (const EpochRecord& record : ours.result.history) {
      ASSERT_TRUE(std::isfinite(record.gap));
      EXPECT_LE(record.dual, optimum + 1e-12 * optimum);
      EXPECT_NEAR(record.primal - record.dual, record.gap, 1e-9 * record.primal);
    }
    const EpochRecord& last = ours.result.history.back();
    EXPECT_LE(last.gap, tol * last.primal);
    const Eigen::VectorXd w = as_vector(ours.state.weights);
    const double primal = dense_primal(d, w);
    EXPECT_NEAR(primal, last.primal, 1e-12 * optimum);
    EXPECT_LE(primal - optimum, last.gap + 1e-12 * optimum);
    double distance = 0.0;  // the weights other than the intercepts
    for (int k = 0; k < kClasses; ++k)
      distance += (w - reference).segment(k * width, width - 1).squaredNorm();
    EXPECT_LE(std::sqrt(distance), std::sqrt(2.0 * last.gap) + 1e-9);
  }
}

// The free-intercept dual point away from the centred intercepts, where the mix
// towards c is far from 0 (lambda up to ~0.5): still a lower bound on the
// optimum, at random weights and intercepts, and at the optimum's weights with
// the intercepts moved off theirs; the gap closes to rounding at the optimum.
TEST(TronMultinomial, TheFreeInterceptDualBoundsTheOptimumAnywhere) {
  const FreeInterceptProblem problem;
  const auto& [data, p, d, reference, optimum] = problem;
  const auto width = static_cast<std::size_t>(d.x.cols());
  InMemorySource source(data);
  LocalCommunicator local;
  const auto operations = make_cpu_matrix_operations(source, data.n_features(), p.intercept_scaling, 2);
  const auto objective = detail::make_multinomial_objective(*operations, p, 2);
  SolverState state;
  objective->start(state, local);
  ASSERT_TRUE(objective->certifies_free_intercepts());
  // P(w) and D of the free-intercept point at w (class-major as the dense reference).
  auto bound = [&](const Eigen::VectorXd& class_major, double& primal) {
    std::vector<double> w(objective->width()), margins(objective->margins_size()), g(w.size());
    for (int k = 0; k < kClasses; ++k)
      for (std::size_t j = 0; j < width; ++j)
        w[j * kClasses + static_cast<std::size_t>(k)] = class_major(static_cast<Eigen::Index>(k * width + j));
    primal = objective->loss_sum(w, margins);
    const double dual_sum = objective->gradient(margins, g.data());
    for (std::size_t e = 0; e + kClasses < w.size(); ++e) {  // the penalty, intercepts free
      primal += 0.5 * w[e] * w[e];
      g[e] += w[e];
    }
    std::vector<double> regulariser(w.size(), 1.0), v;
    std::fill(regulariser.end() - kClasses, regulariser.end(), 0.0);
    const double factor = objective->free_intercept_dual(w, g, regulariser, v);
    double squared = 0.0;
    for (const double entry : v) squared += entry * entry;
    return factor * dual_sum - 0.5 * squared;
  };
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    Eigen::VectorXd w = reference;
    for (Eigen::Index e = 0; e < w.size(); ++e)
      if (trial % 2 == 0 || static_cast<std::size_t>(e % static_cast<Eigen::Index>(width)) == width - 1)
        w(e) += 0.3 * normal(rng);
    double primal = 0.0;
    const double dual = bound(w, primal);
    EXPECT_NEAR(primal, dense_primal(d, w), 1e-12 * primal);
    EXPECT_LE(dual, optimum + 1e-12 * optimum);
    EXPECT_TRUE(std::isfinite(dual));  // a bound, not -inf: lambda stayed below 1
  }
  double primal = 0.0;
  EXPECT_NEAR(bound(reference, primal), optimum, 1e-9 * optimum);
}

// A class that no row weighs has no optimal intercept and no dual point meeting
// its constraint: the fit keeps the gradient rule (NaN gap) and still converges.
TEST(TronMultinomial, AClassOfWeightZeroKeepsTheGradientRule) {
  const Dataset data = three_classes();
  SolverParameters p = multinomial(false);
  p.class_weights = {1.0, 0.0, 2.0};
  p.tol = 1e-6;
  const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged);
  EXPECT_TRUE(std::isnan(ours.result.history.back().gap));
}

// The trust region does not centre the intercepts: it keeps LIBLINEAR's gradient
// rule and no certificate.
TEST(TronMultinomial, FreeInterceptsByTheTrustRegionKeepTheGradientRule) {
  const Dataset data = three_classes();
  SolverParameters p = multinomial(false);
  p.primal_method = PrimalMethod::TrustRegion;
  p.tol = 1e-10;  // ||g|| <= tol ||g(0)||
  const DenseMultinomial d = dense_multinomial(data, p);
  const double optimum = dense_primal(d, dense_reference(d));
  const Fit ours = fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(ours.result.converged);
  EXPECT_TRUE(std::isnan(ours.result.history.back().gap));
  EXPECT_NEAR(dense_primal(d, as_vector(ours.state.weights)), optimum, 1e-12 * optimum);
}

TEST(TronMultinomial, RanksTakeTheSingleProcessIterates) {
  const Dataset data = three_classes();
  SolverParameters p = multinomial(false);
  p.tol = 1e-8;  // above the rounding floor, where the ranks' last test could go either way
  // L-BFGS (the default for this loss) and the trust-region method.
  for (PrimalMethod method : {PrimalMethod::Auto, PrimalMethod::TrustRegion}) {
    p.primal_method = method;
    const Fit single = fit_once(*make_tron_cpu_solver(p), data);
    for (int ranks : {2, 3}) {
      for (const Fit& rank : fit_on_ranks(data, ranks, [&] { return make_tron_cpu_solver(p); })) {
        ASSERT_EQ(rank.result.history.size(), single.result.history.size()) << ranks << " ranks, method "
                                                                             << static_cast<int>(method);
        for (std::size_t k = 0; k < single.result.history.size(); ++k)
          EXPECT_NEAR(rank.result.history[k].primal, single.result.history[k].primal,
                      1e-10 * single.result.history[k].primal);
        EXPECT_LT((as_vector(rank.state.weights) - as_vector(single.state.weights)).norm(),
                  1e-8 * (1.0 + as_vector(single.state.weights).norm()));
      }
    }
  }
}

// Every sum of the multinomial L-BFGS fit runs in an order fixed by the data, not
// the threads (the products of resident rows through the column-major copy,
// transposed_rows.h; the row and weight sums in ordered blocks): 1 and 3 threads
// give the same iterates, bit for bit. Sparse rows over many features, where the
// copy is made.
TEST(TronMultinomial, TheThreadCountDoesNotChangeTheFit) {
  RandomProblemOptions options;
  options.features = 400;
  options.density = 0.02;
  const Dataset data = three_classes(options);
  SolverParameters p = multinomial(false);
  p.tol = 1e-9;
  p.threads = 1;
  const Fit one = fit_once(*make_tron_cpu_solver(p), data);
  p.threads = 3;
  const Fit three = fit_once(*make_tron_cpu_solver(p), data);
  ASSERT_TRUE(one.result.converged);
  EXPECT_EQ(one.result.epochs, three.result.epochs);
  EXPECT_EQ(one.state.weights, three.state.weights);
}

TEST(TronMultinomial, TrainGivesOneRowPerClassAndSoftmaxProbabilities) {
  const Dataset data = three_classes();
  TrainParameters t;
  t.loss = LossKind::Multinomial;
  t.penalise_intercept = false;
  t.C = 2.0;
  t.tol = multinomial(false).tol;  // the solver's fit below, the same parameters
  t.threads = 2;
  t.class_weight = {{1.0, 0.5}, {2.0, 2.0}};
  const TrainResult trained = train(data, t);
  const Model& model = trained.model;
  EXPECT_EQ(model.loss, LossKind::Multinomial);
  ASSERT_EQ(model.n_outputs(), kClasses);
  ASSERT_EQ(trained.fits.size(), 1u);  // one joint problem
  // The same weights as the solver with the same parameters.
  const Fit direct = fit_once(*make_tron_cpu_solver(multinomial(false)), data);
  const std::size_t width = static_cast<std::size_t>(data.n_features()) + 1;
  for (int k = 0; k < kClasses; ++k) {
    for (std::size_t j = 0; j + 1 < width; ++j)
      EXPECT_NEAR(model.coef_row(k)[j], direct.state.weights[static_cast<std::size_t>(k) * width + j], 1e-6);
  }
  const std::vector<double> scores = model.decision_function(data);
  const std::vector<double> probabilities = model.predict_proba(data);
  for (std::size_t i = 0; i < scores.size(); i += kClasses) {
    double total = 0.0;
    for (int k = 0; k < kClasses; ++k) total += std::exp(scores[i + static_cast<std::size_t>(k)]);
    for (int k = 0; k < kClasses; ++k)
      EXPECT_NEAR(probabilities[i + static_cast<std::size_t>(k)], std::exp(scores[i + static_cast<std::size_t>(k)]) / total, 1e-12);
  }
}

TEST(TronMultinomial, TwoClassesTrainTheLogisticLoss) {
  RandomProblemOptions o;
  const Dataset data = random_problem(o);
  TrainParameters t;
  t.loss = LossKind::Multinomial;
  t.solver = SolverChoice::Primal;
  t.tol = 1e-10;
  const TrainResult as_multinomial = train(data, t);
  t.loss = LossKind::Logistic;
  const TrainResult as_logistic = train(data, t);
  EXPECT_EQ(as_multinomial.model.loss, LossKind::Logistic);
  EXPECT_EQ(as_multinomial.model.coef, as_logistic.model.coef);
}

TEST(TronMultinomial, TheDualSolverRefusesIt) {
  SolverParameters p = multinomial(true);
  p.solver = SolverChoice::Dual;
  EXPECT_THROW(fit_once(*make_solver(p, false, {}), three_classes()), InvalidArgument);
}

}  // namespace
