// The GPU session (snapml/solver_factory.h, cuda/src/device/gpu_devices.h): the problems
// of one train() call share the devices and the rows the first one uploads. Each
// problem of a shared session must reach the optimum a solver of its own reaches,
// whatever the problems before it did with the devices; a source with other rows
// must be uploaded anew, never trained on the old rows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu_test.h"
#include "random_csr.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/gpu_session.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/impl/objectives.h"
#include "snapml/train.h"

namespace snapml::cuda {
namespace {

// Random rows in two chunks, labels 0, 1, 2 (three one-vs-rest problems).
Dataset three_class_data(std::uint64_t seed, std::int32_t n_features) {
  std::mt19937_64 rng(seed);
  std::vector<CsrChunk> chunks;
  for (int c = 0; c < 2; ++c) {
    testing::RandomCsrShape shape;
    shape.n_rows = 900;
    shape.n_features = n_features;
    shape.mean_row_nnz = 12;
    CsrChunk chunk = testing::random_csr(shape, rng);
    for (std::size_t row = 0; row < chunk.labels.size(); ++row) chunk.labels[row] = static_cast<double>(row % 3);
    chunks.push_back(std::move(chunk));
  }
  return Dataset(std::move(chunks), n_features);
}

SolverParameters problem(double positive_label) {
  SolverParameters p;
  p.loss = LossKind::Logistic;
  p.C = 0.5;
  p.intercept_scaling = 1.0;
  p.positive_label = positive_label;
  p.tol = 1e-4;
  p.max_epochs = 5000;
  p.seed = 7;
  return p;
}

double certified_primal(const Dataset& data, const SolverParameters& p, const SolverState& state) {
  InMemorySource source(data);
  return primal_objective(source, p, state.weights.data(), data.n_features());
}

TEST(GpuSession, ProblemsOfOneSessionReachTheirOwnOptima) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = three_class_data(11, 300);
  const Dataset other = three_class_data(12, 200);  // other rows, other feature count
  InMemorySource source(data);
  InMemorySource other_source(other);
  LocalCommunicator local;
  const auto session = make_gpu_session({0});
  // Classes 0, 1, 2 on the same rows (uploaded once), then another source.
  for (const double label : {0.0, 1.0, 2.0, -1.0}) {
    const bool same_rows = label >= 0.0;
    const Dataset& rows = same_rows ? data : other;
    const SolverParameters p = problem(same_rows ? label : 1.0);
    SolverState shared;
    const FitResult fit = session->make(p)->fit(same_rows ? static_cast<ChunkSource&>(source) : other_source, local, shared);
    ASSERT_TRUE(fit.converged) << "label " << label;
    SolverState own;
    InMemorySource fresh(rows);
    ASSERT_TRUE(make_sdca_gpu_solver(p, {0})->fit(fresh, local, own).converged);
    const double a = certified_primal(rows, p, shared);
    const double b = certified_primal(rows, p, own);
    EXPECT_NEAR(a, b, p.tol * std::max(a, b)) << "label " << label;
    ASSERT_EQ(shared.alpha.size(), static_cast<std::size_t>(rows.n_rows()));
  }
}

TEST(GpuSession, OneVsRestOnTheGpuMatchesTheCpu) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = three_class_data(13, 250);
  TrainParameters p;
  p.loss = LossKind::Logistic;
  p.C = 0.5;
  p.tol = 1e-5;
  p.max_iter = 5000;
  const TrainResult cpu = train(data, p);
  p.use_gpu = true;
  p.device_ids = {0, 0};  // two workers on one device share the session too
  const TrainResult gpu = train(data, p);
  ASSERT_EQ(gpu.model.coef.size(), cpu.model.coef.size());
  for (std::size_t k = 0; k < gpu.fits.size(); ++k) EXPECT_TRUE(gpu.fits[k].converged) << "class " << k;
  double largest = 1.0;
  for (const double c : cpu.model.coef) largest = std::max(largest, std::fabs(c));
  for (std::size_t j = 0; j < cpu.model.coef.size(); ++j)
    EXPECT_NEAR(gpu.model.coef[j], cpu.model.coef[j], 0.05 * largest) << "coefficient " << j;
}

}  // namespace
}  // namespace snapml::cuda
