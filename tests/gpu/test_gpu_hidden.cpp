// The no-GPU path, asserted exactly on every machine: this binary hides all devices
// from itself (CUDA_VISIBLE_DEVICES="" before the CUDA runtime starts), so a machine
// with a GPU sees what CI sees.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "snapml/cuda/device_resources.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

// Runs during static initialisation, before main and before any CUDA call.
const bool devices_hidden = [] { return setenv("CUDA_VISIBLE_DEVICES", "", 1) == 0; }();

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(NoGpu, VisibleGpuCountIsZeroAndDoesNotThrow) {
  ASSERT_TRUE(devices_hidden);
  int count = -1;
  EXPECT_NO_THROW(count = visible_gpu_count());
  EXPECT_EQ(count, 0);
}

TEST(NoGpu, RequireGpuThrowsUnsupportedWithAClearMessage) {
  try {
    require_gpu(0);
    FAIL() << "require_gpu(0) did not throw";
  } catch (const Unsupported& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, StartsWith("no CUDA device is visible (cudaGetDeviceCount: "));
    EXPECT_THAT(message, HasSubstr("); train without use_gpu/--gpu or run on a machine with a GPU"));
  }
}

TEST(NoGpu, DeviceResourcesRefuseToStart) {
  EXPECT_THROW(DeviceResources resources(0), Unsupported);
}

}  // namespace
}  // namespace snapml::cuda
