// SNAPML_CUDA_CHECK: a failed call throws CudaError (a snapml::Error) naming the
// call, the library's error string, the device and the source location. Runs
// without a GPU: the status values are passed in directly, and a runtime call that
// fails on every machine covers the real path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snapml/cuda/check.h"

namespace snapml::cuda {
namespace {

using ::testing::HasSubstr;

template <typename Call>
CudaError caught(Call call) {
  try {
    call();
  } catch (const CudaError& e) {
    return e;
  }
  ADD_FAILURE() << "no CudaError thrown";
  return CudaError("", "", -1);
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(SNAPML_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(SNAPML_CUDA_CHECK(CUBLAS_STATUS_SUCCESS));
  EXPECT_NO_THROW(SNAPML_CUDA_CHECK(CUSPARSE_STATUS_SUCCESS));
}

TEST(CudaCheck, RuntimeErrorNamesCallErrorDeviceFileAndLine) {
  int line = 0;
  const CudaError e = caught([&] {
    line = __LINE__ + 1;
    SNAPML_CUDA_CHECK(cudaErrorInvalidValue);
  });
  const std::string message = e.what();
  EXPECT_THAT(message, HasSubstr("CUDA call cudaErrorInvalidValue failed: "));
  EXPECT_THAT(message, HasSubstr(cudaGetErrorString(cudaErrorInvalidValue)));
  EXPECT_THAT(message, HasSubstr("(cudaErrorInvalidValue)"));
  EXPECT_THAT(message, HasSubstr(" on device "));
  EXPECT_THAT(message, HasSubstr("test_check.cpp:" + std::to_string(line)));
  EXPECT_EQ(e.call(), "cudaErrorInvalidValue");
}

TEST(CudaCheck, CublasAndCusparseStatusesAreNamed) {
  const std::string cublas = caught([] { SNAPML_CUDA_CHECK(CUBLAS_STATUS_NOT_INITIALIZED); }).what();
  EXPECT_THAT(cublas, HasSubstr("cuBLAS call CUBLAS_STATUS_NOT_INITIALIZED failed: "));
  EXPECT_THAT(cublas, HasSubstr(cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED)));
  const std::string cusparse =
      caught([] { SNAPML_CUDA_CHECK(CUSPARSE_STATUS_INVALID_VALUE); }).what();
  EXPECT_THAT(cusparse, HasSubstr("cuSPARSE call CUSPARSE_STATUS_INVALID_VALUE failed: "));
  EXPECT_THAT(cusparse, HasSubstr(cusparseGetErrorString(CUSPARSE_STATUS_INVALID_VALUE)));
}

TEST(CudaCheck, FailedRuntimeCallIsASnapmlError) {
  // No device has id -1: this fails with or without a GPU (invalid device, or no
  // driver/device at all), always through the real runtime.
  EXPECT_THROW(SNAPML_CUDA_CHECK(cudaSetDevice(-1)), Error);
  const CudaError e = caught([] { SNAPML_CUDA_CHECK(cudaSetDevice(-1)); });
  EXPECT_THAT(std::string(e.what()), HasSubstr("CUDA call cudaSetDevice(-1) failed: "));
  cudaGetLastError();  // leave no error behind for the next test
}

}  // namespace
}  // namespace snapml::cuda
