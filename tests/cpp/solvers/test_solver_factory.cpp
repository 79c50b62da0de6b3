// Solver selection in a program without the GPU backend (this test links only the
// core): asking for a GPU throws Unsupported, never trains on the CPU. In a CPU-only
// build the message is the one users see; in a CUDA build it names the missing link.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snapml/error.h"
#include "snapml/solver_factory.h"
#include "snapml/train.h"

namespace snapml {
namespace {

using ::testing::StrEq;
using ::testing::HasSubstr;

#if defined(SNAPML_WITH_CUDA)
const char* const kNoBackend = "link the snapml_all target";
#else
const char* const kNoBackend =
    "this build of snapml has no CUDA backend; rebuild with -DSNAPML_CUDA=ON (nvcc on the PATH)";
#endif

Dataset tiny_dataset() {
  CsrChunk chunk;
  const std::int32_t columns[] = {0, 1};
  const float values[] = {1.0f, -0.5f};
  for (int row = 0; row < 8; ++row) chunk.add_row(row % 2 ? 1.0 : -1.0, columns, values, 1 + row % 2);
  return Dataset({chunk}, 2);
}

TEST(SolverFactory, NoGpuBackendIsRegistered) { EXPECT_FALSE(has_gpu_backend()); }

TEST(SolverFactory, AskingForAGpuThrowsUnsupported) {
  SolverParameters parameters;
  try {
    make_solver(parameters, true, {0});
    FAIL() << "make_solver with use_gpu did not throw";
  } catch (const Unsupported& e) {
#if defined(SNAPML_WITH_CUDA)
    EXPECT_THAT(e.what(), HasSubstr(kNoBackend));
#else
    EXPECT_THAT(e.what(), StrEq(kNoBackend));
#endif
  }
}

TEST(SolverFactory, PenaltyL1IsCpuOnly) {
  SolverParameters parameters;
  parameters.penalty = Penalty::L1;
  try {
    make_solver(parameters, true, {});
    FAIL() << "make_solver with use_gpu and penalty L1 did not throw";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr("without use_gpu"));
  }
  EXPECT_NE(make_solver(parameters, false, {}), nullptr);
}

TEST(SolverFactory, TrainWithUseGpuThrowsInsteadOfRunningOnTheCpu) {
  TrainParameters parameters;
  parameters.use_gpu = true;
  EXPECT_THROW(train(tiny_dataset(), parameters), Unsupported);
  LocalCommunicator local;
  const Dataset data = tiny_dataset();
  InMemorySource rows(data);
  EXPECT_THROW(train(rows, local, parameters), Unsupported);
}

TEST(SolverFactory, WithoutUseGpuTheCpuSolverTrains) {
  TrainParameters parameters;
  const TrainResult result = train(tiny_dataset(), parameters);
  ASSERT_EQ(result.fits.size(), 1u);
  EXPECT_TRUE(result.fits[0].converged);
  SolverParameters solver_parameters;
  EXPECT_NE(make_solver(solver_parameters, false, {}), nullptr);
}

}  // namespace
}  // namespace snapml
