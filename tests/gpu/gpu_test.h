// Shared by the GPU tests: skip where no device is visible.
#pragma once

#include <gtest/gtest.h>

#include "snapml/cuda/device_resources.h"

// Skips the current test, with the message CI logs show, when no GPU is visible.
#define SNAPML_REQUIRE_GPU()                                        \
  if (::snapml::cuda::visible_gpu_count() == 0) {                   \
    GTEST_SKIP() << "no CUDA device visible";                       \
  }
