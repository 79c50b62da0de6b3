// The primal Newton solver on the GPU (snapml/cuda/tron_gpu.h) against the CPU:
// every product of the GPU matrix operations equals the CPU backend's to 1e-10
// relative (a9a, and generated chunks with empty and long rows, with and without
// the intercept, one part and two parts on one device), and a full fit reaches the
// CPU fit's objective to 1e-8 relative, built directly and through the solver
// factory (use_gpu with solver primal, and penalty none). Rows beyond
// max_gpu_memory are refused. Skips without a device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gpu_test.h"
#include "random_csr.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/cuda/tron_gpu.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/impl/matrix_operations.h"
#include "snapml/solver.h"
#include "snapml/solver_factory.h"
#include "test_data.h"

namespace snapml::cuda {
namespace {

std::vector<double> random_doubles(std::size_t n, std::mt19937_64& rng, double zero_share = 0.0) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::bernoulli_distribution zero(zero_share);
  std::vector<double> out(n);
  for (double& v : out) v = zero(rng) ? 0.0 : value(rng);
  return out;
}

// ||got - expected|| <= 1e-10 ||expected||, and no entry off by more than 1e-10
// of the largest (NaN fails both).
void expect_close(const std::vector<double>& got, const std::vector<double>& expected, const char* product) {
  ASSERT_EQ(got.size(), expected.size()) << product;
  double error = 0.0;
  double norm = 0.0;
  double largest = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    error += (got[i] - expected[i]) * (got[i] - expected[i]);
    norm += expected[i] * expected[i];
    largest = std::max(largest, std::fabs(expected[i]));
  }
  EXPECT_LE(std::sqrt(error), 1e-10 * std::sqrt(norm)) << product;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_LE(std::fabs(got[i] - expected[i]), 1e-10 * largest) << product << " entry " << i;
}

void expect_same_products(const Dataset& data, double bias_value, const std::vector<int>& devices) {
  SCOPED_TRACE("bias " + std::to_string(bias_value) + ", " + std::to_string(devices.size()) + " part(s)");
  InMemorySource source(data);
  const auto cpu = make_cpu_matrix_operations(source, data.n_features(), bias_value, 2);
  const auto gpu = make_gpu_matrix_operations(source, data.n_features(), bias_value, devices);
  ASSERT_EQ(gpu->n_rows(), cpu->n_rows());
  ASSERT_EQ(gpu->n_weights(), cpu->n_weights());
  const auto rows = static_cast<std::size_t>(cpu->n_rows());
  const std::size_t width = cpu->n_weights();

  std::vector<double> labels[2] = {std::vector<double>(rows), std::vector<double>(rows)};
  std::vector<double> weights[2] = {std::vector<double>(rows), std::vector<double>(rows)};
  cpu->rows(labels[0].data(), weights[0].data());
  gpu->rows(labels[1].data(), weights[1].data());
  EXPECT_EQ(labels[0], labels[1]);
  EXPECT_EQ(weights[0], weights[1]);

  std::mt19937_64 rng(17);
  const std::vector<double> w = random_doubles(width, rng);
  const std::vector<double> v = random_doubles(width, rng);
  const std::vector<double> d = random_doubles(rows, rng);
  std::vector<double> curvature = random_doubles(rows, rng, 0.3);  // inactive rows: 0
  for (double& c : curvature) c = std::fabs(c);
  std::vector<double> expected(rows), got(rows, std::nan(""));
  cpu->margins(w.data(), expected.data());
  gpu->margins(w.data(), got.data());
  expect_close(got, expected, "margins");
  expected.assign(width, 0.0);
  got.assign(width, std::nan(""));
  cpu->transpose_times(d.data(), expected.data());
  gpu->transpose_times(d.data(), got.data());
  expect_close(got, expected, "transpose_times");
  got.assign(width, std::nan(""));
  cpu->hessian_product(curvature.data(), v.data(), expected.data());
  gpu->hessian_product(curvature.data(), v.data(), got.data());
  expect_close(got, expected, "hessian_product");
  got.assign(width, std::nan(""));
  cpu->hessian_diagonal(curvature.data(), expected.data());
  gpu->hessian_diagonal(curvature.data(), got.data());
  expect_close(got, expected, "hessian_diagonal");
}

Dataset generated(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int32_t n_features = 3000;
  std::vector<CsrChunk> chunks;
  for (int c = 0; c < 3; ++c) {
    testing::RandomCsrShape shape;
    shape.n_rows = 700 + 300 * c;
    shape.n_features = n_features;
    shape.mean_row_nnz = 30;
    shape.long_row_share = 0.01;  // rows longer than a thread block
    shape.weights = c != 1;
    chunks.push_back(testing::random_csr(shape, rng));
  }
  return Dataset(std::move(chunks), n_features);
}

TEST(GpuMatrixOperations, ProductsEqualTheCpuOnGeneratedRows) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(5);
  expect_same_products(data, 1.0, {0});
  expect_same_products(data, 0.0, {0});
  expect_same_products(data, 2.5, {0, 0});  // two parts: rows cut inside a chunk, sums over parts
}

TEST(GpuMatrixOperations, ProductsEqualTheCpuOnA9a) {
  SNAPML_REQUIRE_GPU();
  SNAPML_REQUIRE_DATASET(path, "a9a");
  const Dataset data = datasets::read_svmlight(path);
  expect_same_products(data, 1.0, {0});
  expect_same_products(data, 1.0, {0, 0});
}

TEST(GpuMatrixOperations, RefusesRowsBeyondTheBudgetNamingTheSizes) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(6);
  InMemorySource source(data);
  try {
    make_gpu_matrix_operations(source, data.n_features(), 1.0, {0}, 4096);
    FAIL() << "no refusal";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("what max_gpu_memory leaves on the device is 4096 bytes"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("does not stream"));
  }
}

struct Fit {
  FitResult result;
  SolverState state;
};

Fit fit(Solver& solver, const Dataset& data) {
  InMemorySource source(data);
  LocalCommunicator local;
  Fit out;
  out.result = solver.fit(source, local, out.state);
  return out;
}

SolverParameters primal(LossKind loss) {
  SolverParameters p;
  p.loss = loss;
  p.solver = SolverChoice::Primal;
  p.C = 1.0;
  p.intercept_scaling = 1.0;
  p.tol = 1e-10;
  p.max_epochs = 500;
  p.threads = 2;
  return p;
}

// Both converged, to objectives within 1e-8 relative, and the same weights up to
// what that allows.
void expect_same_fit(const Fit& gpu, const Fit& cpu) {
  ASSERT_TRUE(cpu.result.converged);
  ASSERT_TRUE(gpu.result.converged) << "after " << gpu.result.epochs << " iterations";
  const double f_gpu = gpu.result.history.back().primal;
  const double f_cpu = cpu.result.history.back().primal;
  EXPECT_NEAR(f_gpu, f_cpu, 1e-8 * std::fabs(f_cpu));
  ASSERT_EQ(gpu.state.weights.size(), cpu.state.weights.size());
  double difference = 0.0;
  double norm = 0.0;
  for (std::size_t j = 0; j < cpu.state.weights.size(); ++j) {
    difference += std::pow(gpu.state.weights[j] - cpu.state.weights[j], 2);
    norm += cpu.state.weights[j] * cpu.state.weights[j];
  }
  EXPECT_LE(std::sqrt(difference), 1e-4 * (1.0 + std::sqrt(norm)));
  EXPECT_EQ(gpu.state.alpha.size(), cpu.state.alpha.size());
}

TEST(TronGpu, A9aFitEqualsTheCpuFit) {
  SNAPML_REQUIRE_GPU();
  SNAPML_REQUIRE_DATASET(path, "a9a");
  const Dataset data = datasets::read_svmlight(path);
  for (const double C : {1.0, 100.0}) {
    SolverParameters p = primal(LossKind::Logistic);
    p.C = C;
    SCOPED_TRACE("C = " + std::to_string(C));
    expect_same_fit(fit(*make_tron_gpu_solver(p, {0}), data), fit(*make_tron_cpu_solver(p), data));
  }
}

TEST(TronGpu, EveryPrimalLossOnGeneratedRowsEqualsTheCpuFit) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(7);
  for (const LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge, LossKind::Squared}) {
    SolverParameters p = primal(loss);
    p.epsilon = loss == LossKind::Squared ? 0.1 : 0.0;
    SCOPED_TRACE(loss_name(loss));
    expect_same_fit(fit(*make_tron_gpu_solver(p, {0}), data), fit(*make_tron_cpu_solver(p), data));
    p.penalise_intercept = false;  // the gradient rule, no certificate
    expect_same_fit(fit(*make_tron_gpu_solver(p, {0, 0}), data), fit(*make_tron_cpu_solver(p), data));
  }
}

// Through the factory: use_gpu with solver primal, and penalty none (which only
// the primal solver trains), run the Newton solver on the GPU.
TEST(TronGpu, TheSessionRunsThePrimalSolverOnTheGpu) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = generated(8);
  SolverParameters p = primal(LossKind::Logistic);
  const auto session = make_solver_session(true, {0});
  const Fit first = fit(*session->make(p), data);
  expect_same_fit(first, fit(*make_tron_cpu_solver(p), data));
  // A second problem over the same rows (they stay on the device).
  p.C = 3.0;
  expect_same_fit(fit(*session->make(p), data), fit(*make_tron_cpu_solver(p), data));
  SolverParameters none = primal(LossKind::Squared);
  none.solver = SolverChoice::Auto;
  none.penalty = Penalty::None;
  const Fit gpu = fit(*make_solver(none, true, {0}), data);
  EXPECT_GT(gpu.result.history.back().gradient_norm, 0.0);  // a Newton record
  none.solver = SolverChoice::Primal;
  expect_same_fit(gpu, fit(*make_tron_cpu_solver(none), data));
}

}  // namespace
}  // namespace snapml::cuda
