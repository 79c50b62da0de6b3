// Host-side parts of the GPU SDCA solver, asserted on every machine (CI has no GPU):
// the on-the-fly epoch permutation, and how train() selects the GPU solver. This
// binary hides every device from itself (CUDA_VISIBLE_DEVICES="" before the CUDA
// runtime starts), so a machine with a GPU checks the no-GPU path exactly as CI does.
// train() reaches the GPU solver through the plugin (snapml/impl/gpu_backend.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <vector>

#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/permutation.h"
#include "snapml/error.h"
#include "snapml/solver_factory.h"
#include "snapml/train.h"

namespace snapml::cuda {
namespace {

// Runs during static initialisation, before main and before any CUDA call.
const bool devices_hidden = [] { return setenv("CUDA_VISIBLE_DEVICES", "", 1) == 0; }();

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::uint64_t> order_of(std::uint64_t n, std::uint64_t key) {
  const FeistelPermutation permutation(n, key);
  std::vector<std::uint64_t> order(n);
  for (std::uint64_t i = 0; i < n; ++i) order[i] = permutation(i);
  return order;
}

TEST(FeistelPermutation, IsABijectionOfEverySize) {
  for (std::uint64_t n : {1u, 2u, 3u, 4u, 5u, 15u, 16u, 17u, 63u, 64u, 65u, 1000u, 4097u, 65537u}) {
    for (std::uint64_t key : {0ull, 1ull, 0xDEADBEEFull}) {
      const std::vector<std::uint64_t> order = order_of(n, key);
      std::vector<bool> seen(n, false);
      for (std::uint64_t index : order) {
        ASSERT_LT(index, n) << "n " << n;
        ASSERT_FALSE(seen[index]) << "n " << n << " repeats " << index;
        seen[index] = true;
      }
      EXPECT_EQ(FeistelPermutation(n, key).size(), n);
    }
  }
}

TEST(FeistelPermutation, IsDeterministicAndChangesWithTheKey) {
  EXPECT_EQ(order_of(1000, 7), order_of(1000, 7));
  EXPECT_NE(order_of(1000, 7), order_of(1000, 8));
  // Every input of the key changes the order.
  const std::uint64_t base = permutation_key(1, 2, 3, 4);
  EXPECT_EQ(base, permutation_key(1, 2, 3, 4));
  EXPECT_NE(base, permutation_key(0, 2, 3, 4));
  EXPECT_NE(base, permutation_key(1, 0, 3, 4));
  EXPECT_NE(base, permutation_key(1, 2, 0, 4));
  EXPECT_NE(base, permutation_key(1, 2, 3, 0));
}

// Not the identity, and spread: over many epochs, the first position visits most
// rows, and a random order keeps about half of the adjacent pairs ascending.
TEST(FeistelPermutation, LooksRandom) {
  const std::uint64_t n = 1000;
  std::set<std::uint64_t> firsts;
  for (std::uint64_t epoch = 0; epoch < 400; ++epoch) firsts.insert(order_of(n, permutation_key(5, 0, epoch, 0))[0]);
  EXPECT_GT(firsts.size(), 250u);
  const std::vector<std::uint64_t> order = order_of(n, 42);
  int ascending = 0;
  for (std::uint64_t i = 1; i < n; ++i) ascending += order[i] > order[i - 1];
  EXPECT_GT(ascending, 400);
  EXPECT_LT(ascending, 600);
}

Dataset tiny_dataset() {
  CsrChunk chunk;
  const std::int32_t columns[] = {0, 1};
  const float values[] = {1.0f, -0.5f};
  for (int row = 0; row < 8; ++row) chunk.add_row(row % 2 ? 1.0 : -1.0, columns, values, 1 + row % 2);
  return Dataset({chunk}, 2);
}

TEST(GpuSelection, ThisProgramHasTheGpuBackend) { EXPECT_TRUE(has_gpu_backend()); }

// A CUDA build on a machine with no visible GPU: require_gpu's message, never a
// silent run on the CPU.
TEST(GpuSelection, TrainWithUseGpuAndNoVisibleGpuThrowsRequireGpusMessage) {
  ASSERT_TRUE(devices_hidden);
  TrainParameters parameters;
  parameters.use_gpu = true;
  parameters.device_ids = {0};
  try {
    train(tiny_dataset(), parameters);
    FAIL() << "train() with use_gpu did not throw";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), StartsWith("no CUDA device is visible (cudaGetDeviceCount: "));
    EXPECT_THAT(e.what(), HasSubstr("train without use_gpu/--gpu or run on a machine with a GPU"));
  }
  parameters.device_ids = {};  // the default device 0
  EXPECT_THROW(train(tiny_dataset(), parameters), Unsupported);
}

TEST(GpuSelection, MakeSolverChecksTheDeviceIds) {
  SolverParameters parameters;
  EXPECT_THROW(make_solver(parameters, true, {-1}), InvalidArgument);
  EXPECT_THROW(make_solver(parameters, true, {0, 1}), Unsupported);
  // Without use_gpu the device ids are ignored, as Snap ML does: the CPU solver.
  EXPECT_NE(make_solver(parameters, false, {0}), nullptr);
}

// The structure check DeviceCsr runs before an upload, on the host: offsets that
// decrease are refused naming the row (DeviceCsr.RejectsBrokenOffsets checks the
// upload refuses them on a device).
TEST(DeviceCsrStructure, OffsetsThatDecreaseAreRefusedOnTheHost) {
  CsrChunk chunk;
  const std::int32_t columns[] = {0, 1};
  const float values[] = {1.0f, 2.0f};
  chunk.add_row(1.0, columns, values, 2);
  chunk.add_row(1.0, columns, values, 1);
  EXPECT_NO_THROW(validate_csr_structure(chunk.view(2)));
  chunk.row_offsets[1] = 4;  // {0, 4, 3}
  try {
    validate_csr_structure(chunk.view(2));
    FAIL() << "decreasing offsets passed";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("decrease at row 1"));
  }
}

TEST(GpuSelection, TrainWithoutUseGpuRunsOnTheCpu) {
  TrainParameters parameters;
  parameters.device_ids = {3};
  const TrainResult result = train(tiny_dataset(), parameters);
  EXPECT_EQ(result.fits.size(), 1u);
}

}  // namespace
}  // namespace snapml::cuda
