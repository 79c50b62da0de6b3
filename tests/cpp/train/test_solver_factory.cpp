// Solver selection when the GPU backend cannot be had: asking for a GPU throws
// Unsupported, never trains on the CPU. In a CPU-only build the message says the
// build has no CUDA backend. In a CUDA build the plugin (snapml/impl/gpu_backend.h) is
// found in the build tree and loads on this GPU-less machine too (the CUDA
// libraries are installed), so the test points SNAPML_GPU_BACKEND at a file that
// does not exist before the first GPU request, and checks the loader's messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "snapml/error.h"
#include "snapml/impl/gpu_backend.h"
#include "snapml/solver_factory.h"
#include "snapml/train.h"

namespace snapml {
namespace {

using ::testing::StrEq;
using ::testing::HasSubstr;

#if defined(SNAPML_WITH_CUDA)
const char* const kNoBackend = "/no/such/libsnapml_gpu.so";
// Before main(): the factory loads the plugin once, at the first GPU request.
const bool backend_hidden = ::setenv("SNAPML_GPU_BACKEND", kNoBackend, 1) == 0;
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

#if defined(SNAPML_WITH_CUDA)
TEST(GpuBackend, AMissingPluginNamesWhereItLooked) {
  ASSERT_TRUE(backend_hidden);
  EXPECT_EQ(gpu_backend_candidates(), std::vector<std::string>{kNoBackend});
  try {
    load_gpu_backend({"/no/such/a.so", "/no/such/b.so"});
    FAIL() << "load_gpu_backend found a plugin that does not exist";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr("was not found (looked for /no/such/a.so, /no/such/b.so)"));
    EXPECT_THAT(e.what(), HasSubstr("SNAPML_GPU_BACKEND"));
  }
}

TEST(GpuBackend, AFileThatIsNoLibrarySaysItCannotBeLoaded) {
  const std::string path = ::testing::TempDir() + "not_a_plugin.so";
  std::ofstream(path) << "not an ELF file\n";
  try {
    load_gpu_backend({path});
    FAIL() << "a text file loaded as the GPU backend";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr(path + " cannot be loaded"));
    EXPECT_THAT(e.what(), HasSubstr("CUDA libraries"));
  }
}

TEST(GpuBackend, TheBuildTreesPluginLoadsWithoutAGpu) {
  // The real plugin, from the build tree: it loads where the CUDA libraries are
  // installed, whether or not a device is visible; its session then reports the
  // device (the GPU tests check that message).
  const GpuBackend backend = load_gpu_backend({SNAPML_GPU_BACKEND_BUILD_PATH_FOR_TESTS});
  EXPECT_NE(backend.session, nullptr);
  EXPECT_EQ(backend.abi_size, sizeof(GpuBackend));
  ASSERT_NE(backend.build_id, nullptr);
  EXPECT_STREQ(backend.build_id, build_id());  // built with this test, from the same sources
}
#endif

TEST(GpuBackend, APluginFromOtherSourcesIsRefusedNamingBothBuildIds) {
  EXPECT_EQ(std::string(build_id()).size(), 16u);
  try {
    load_gpu_backend({SNAPML_STALE_PLUGIN_PATH});
    FAIL() << "a plugin with another build id loaded";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr(std::string(SNAPML_STALE_PLUGIN_PATH) + " was built from other sources"));
    EXPECT_THAT(e.what(), HasSubstr("(build id 0123456789abcdef)"));
    EXPECT_THAT(e.what(), HasSubstr("this program (build id " + std::string(build_id()) + ")"));
    EXPECT_THAT(e.what(), HasSubstr("--target snapml_gpu"));
  }
}

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
