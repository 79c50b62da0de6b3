// A session the caller keeps (TrainParameters::session, solver_factory.h) uploads
// the rows once: the classes of a one-vs-rest fit, and a path of C values over the
// same source, each reading only its labels; another source uploads again. Built
// into test_gpu_session (a device) and test_tron_gpu_emulated (the emulated
// runtime, so CI counts the uploads without a GPU). Every fit is compared with the
// CPU Newton solver's within what the certificate allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "gpu_test.h"
#include "random_csr.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/gpu_session.h"
#include "snapml/error.h"
#include "snapml/solver_factory.h"
#include "snapml/train.h"

namespace snapml::cuda {
namespace {

// Random rows in two chunks, labels 0 .. classes - 1.
Dataset class_data(std::uint64_t seed, int classes) {
  std::mt19937_64 rng(seed);
  std::vector<CsrChunk> chunks;
  for (int c = 0; c < 2; ++c) {
    testing::RandomCsrShape shape;
    shape.n_rows = 400;
    shape.n_features = 60;
    shape.mean_row_nnz = 8;
    CsrChunk chunk = testing::random_csr(shape, rng);
    for (std::size_t row = 0; row < chunk.labels.size(); ++row)
      chunk.labels[row] = static_cast<double>((row * 7 + static_cast<std::size_t>(c)) % static_cast<std::size_t>(classes));
    chunks.push_back(std::move(chunk));
  }
  return Dataset(std::move(chunks), 60);
}

TrainParameters on_the_gpu(const std::shared_ptr<SolverSession>& session) {
  TrainParameters p;
  p.loss = LossKind::Logistic;
  p.tol = 1e-8;
  p.max_iter = 500;
  p.penalise_intercept = true;  // a certified fit: the gap bounds the distance to the optimum
  p.use_gpu = true;
  p.device_ids = {0};
  p.session = session;
  return p;
}

// The CPU Newton solver's fit of the same problem.
TrainResult cpu_fit(const Dataset& data, TrainParameters p) {
  p.use_gpu = false;
  p.device_ids.clear();
  p.session.reset();
  p.solver = SolverChoice::Primal;
  return train(data, p);
}

// Each model row as TronGpu's comparisons allow (test_tron_gpu.cpp,
// expect_same_fit): the objectives within 1e-8, the weights within the two
// gradient norms (P is 1-strongly convex with the intercept penalised, so a point
// lies within ||g|| of the optimum), or 1e-4 relative where those are rounding.
void expect_same_fits(const TrainResult& gpu, const TrainResult& cpu, std::int32_t n_features) {
  ASSERT_EQ(gpu.fits.size(), cpu.fits.size());
  ASSERT_EQ(gpu.model.coef.size(), cpu.model.coef.size());
  for (std::size_t k = 0; k < gpu.fits.size(); ++k) {
    ASSERT_TRUE(gpu.fits[k].converged && cpu.fits[k].converged) << "problem " << k;
    const EpochRecord& g = gpu.fits[k].history.back();
    const EpochRecord& c = cpu.fits[k].history.back();
    EXPECT_NEAR(g.primal, c.primal, 1e-8 * std::fabs(c.primal)) << "problem " << k;
    double squared = 0.0, cpu_squared = 0.0;
    for (std::int32_t j = 0; j < n_features; ++j) {
      const std::size_t at = k * static_cast<std::size_t>(n_features) + static_cast<std::size_t>(j);
      squared += (gpu.model.coef[at] - cpu.model.coef[at]) * (gpu.model.coef[at] - cpu.model.coef[at]);
      cpu_squared += cpu.model.coef[at] * cpu.model.coef[at];
    }
    const double b = gpu.model.intercept[k] - cpu.model.intercept[k];
    cpu_squared += cpu.model.intercept[k] * cpu.model.intercept[k];
    EXPECT_LE(std::sqrt(squared + b * b),
              std::max(g.gradient_norm + c.gradient_norm, 1e-4 * (1.0 + std::sqrt(cpu_squared))))
        << "problem " << k;
  }
}

std::shared_ptr<SolverSession> gpu_session(int row_sets = 1) {
  SessionOptions options;
  options.row_sets = row_sets;
  options.gpu_factory = &make_gpu_session;  // the one this test links (a device's, or the emulated runtime's)
  return make_solver_session(true, {0}, options);
}

TEST(SessionUploads, AFiveClassOneVsRestFitUploadsTheRowsOnce) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = class_data(3, 5);
  const auto session = gpu_session();
  const TrainParameters p = on_the_gpu(session);
  const TrainResult fit = train(data, p);
  EXPECT_EQ(fit.model.coef.size() / static_cast<std::size_t>(data.n_features()), 5u);
  EXPECT_EQ(session->row_uploads(), 1);
  expect_same_fits(fit, cpu_fit(data, p), data.n_features());
}

TEST(SessionUploads, ATenValuePathOfCOverOneSourceUploadsTheRowsOnce) {
  SNAPML_REQUIRE_GPU();
  const Dataset data = class_data(4, 2);
  InMemorySource source(data);
  LocalCommunicator local;
  const auto session = gpu_session();
  TrainParameters p = on_the_gpu(session);
  Model previous;
  for (int step = 0; step < 10; ++step) {
    p.C = std::ldexp(1.0, step - 5);  // 2^-5 .. 2^4, warm-started as -C's search goes
    p.warm_start = step == 0 ? nullptr : &previous;
    const TrainResult fit = train(source, local, p);
    expect_same_fits(fit, cpu_fit(data, p), data.n_features());
    previous = fit.model;
  }
  EXPECT_EQ(session->row_uploads(), 1);
}

TEST(SessionUploads, AnotherSourceUploadsItsOwnRows) {
  SNAPML_REQUIRE_GPU();
  const auto session = gpu_session();
  const TrainParameters p = on_the_gpu(session);
  LocalCommunicator local;
  // Each dataset and source made where the last ones were freed: the identity,
  // not the address, tells the session the rows are new.
  for (std::uint64_t seed = 5; seed < 8; ++seed) {
    const Dataset data = class_data(seed, 2);
    InMemorySource source(data);
    expect_same_fits(train(source, local, p), cpu_fit(data, p), data.n_features());
  }
  EXPECT_EQ(session->row_uploads(), 3);
}

TEST(SessionUploads, KeptRowSetsServeFoldsInTurn) {
  SNAPML_REQUIRE_GPU();
  const Dataset first = class_data(9, 2), second = class_data(10, 2);
  InMemorySource a(first), b(second);
  LocalCommunicator local;
  const auto session = gpu_session(2);  // two folds' rows on the device
  TrainParameters p = on_the_gpu(session);
  for (const double C : {0.5, 1.0, 2.0}) {
    p.C = C;
    train(a, local, p);
    train(b, local, p);
  }
  EXPECT_EQ(session->row_uploads(), 2);
  const auto one_set = gpu_session(1);  // one set: each fold uploads again
  TrainParameters q = on_the_gpu(one_set);
  for (int round = 0; round < 2; ++round) {
    train(a, local, q);
    train(b, local, q);
  }
  EXPECT_EQ(one_set->row_uploads(), 4);
}

TEST(SessionUploads, ASessionForOtherDevicesIsRefused) {
  TrainParameters p;
  p.session = make_solver_session(false, {});
  p.use_gpu = true;
  try {
    train(class_data(1, 2), p);
    FAIL() << "a CPU session trained a GPU call";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("made for other devices"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snapml::cuda
