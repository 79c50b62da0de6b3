// Device discovery and the errors a caller sees when asking for a device that is not
// there. These run everywhere: without a GPU they check the "no device" messages,
// with one the "device N requested but only M visible" message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpu_test.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

using ::testing::HasSubstr;

std::string unsupported_message(int device_id) {
  try {
    require_gpu(device_id);
  } catch (const Unsupported& e) {
    return e.what();
  }
  return "";
}

TEST(GpuProbe, VisibleGpuCountNeverThrowsAndIsStable) {
  int first = -1;
  EXPECT_NO_THROW(first = visible_gpu_count());
  EXPECT_GE(first, 0);
  EXPECT_EQ(visible_gpu_count(), first);
}

TEST(GpuProbe, RequireGpuExplainsAMissingDevice) {
  const int count = visible_gpu_count();
  const std::string message = unsupported_message(count);  // one past the last device
  if (count == 0) {
    EXPECT_THAT(message, HasSubstr("no CUDA device is visible (cudaGetDeviceCount: "));
    EXPECT_THAT(message, HasSubstr("train without use_gpu/--gpu or run on a machine with a GPU"));
  } else {
    EXPECT_THAT(message, HasSubstr("device " + std::to_string(count) + " requested but only " +
                                   std::to_string(count) + " visible"));
    EXPECT_NO_THROW(require_gpu(count - 1));
  }
  EXPECT_FALSE(unsupported_message(count + 3).empty());
}

TEST(GpuProbe, NegativeDeviceIdIsAnInvalidArgument) {
  EXPECT_THROW(require_gpu(-1), InvalidArgument);
  EXPECT_THROW(DeviceResources resources(-1), InvalidArgument);
}

TEST(GpuProbe, ResourcesForAMissingDeviceThrowUnsupported) {
  const int count = visible_gpu_count();
  EXPECT_THROW(DeviceResources resources(count), Unsupported);
  EXPECT_THROW(DeviceResources resources(count + 3), Unsupported);
}

TEST(GpuProbe, ResourcesHoldStreamsHandlesAndStaging) {
  SNAPML_REQUIRE_GPU();
  DeviceResources resources(0);
  EXPECT_EQ(resources.device_id(), 0);
  EXPECT_THAT(resources.description(), HasSubstr("(device 0, sm_"));
  EXPECT_NE(resources.compute_stream(), nullptr);
  EXPECT_NE(resources.copy_stream(), nullptr);
  EXPECT_NE(resources.compute_stream(), resources.copy_stream());
  EXPECT_NE(resources.cublas(), nullptr);
  EXPECT_NE(resources.cusparse(), nullptr);
  void* small = resources.pinned_staging(1024);
  ASSERT_NE(small, nullptr);
  EXPECT_GE(resources.pinned_staging_bytes(), 1024u);
  EXPECT_EQ(resources.pinned_staging(512), small);  // never shrinks
  void* large = resources.pinned_staging(std::size_t{8} << 20);
  ASSERT_NE(large, nullptr);
  EXPECT_GE(resources.pinned_staging_bytes(), std::size_t{8} << 20);
  EXPECT_NO_THROW(resources.synchronize());
}

}  // namespace
}  // namespace snapml::cuda
