// A large feature index must be refused before the per-feature state is
// allocated (snapml/feature_memory.h), not grow the process until the kernel
// kills it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "snapml/error.h"
#include "snapml/feature_memory.h"
#include "snapml/train.h"

namespace {

using namespace snapml;

// Two rows, one with feature index `largest`: n_features = largest + 1.
Dataset two_rows(std::int32_t largest) {
  CsrChunk chunk;
  const std::int32_t far[] = {largest};
  const std::int32_t near[] = {0};
  const float one[] = {1.0f};
  chunk.add_row(1.0, far, one, 1);
  chunk.add_row(-1.0, near, one, 1);
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), largest + 1);
}

TEST(FeatureMemory, BytesPerFeatureCountProblemsAndRunningSolvers) {
  EXPECT_EQ(fit_bytes_per_feature(Penalty::L2, 1, 1), 16u + 24u);
  EXPECT_EQ(fit_bytes_per_feature(Penalty::L1, 1, 1), 16u + 56u);
  EXPECT_EQ(fit_bytes_per_feature(Penalty::L2, 10, 4), 160u + 96u);
  EXPECT_EQ(fit_bytes_per_feature(Penalty::L2, 1, 1, 2), 16u + 24u + 16u);  // two threads on replicas
  EXPECT_EQ(fit_bytes_per_feature(Penalty::L2, 10, 4, 0, true), 160u + 128u);  // the dual's second iterate
}

TEST(FeatureMemory, ByteSizesReadAsUnits) {
  EXPECT_EQ(byte_size_text(800), "800 bytes");
  EXPECT_EQ(byte_size_text(3u << 20), "3.0 MiB");
  EXPECT_EQ(byte_size_text(std::uint64_t{80} << 30), "80.0 GiB");
}

TEST(FeatureMemory, ALargestIndexOverTheBudgetIsRefusedBeforeAllocating) {
  const Dataset data = two_rows(2147483645);  // 2^31 - 1 features: 96 GiB for one L2 problem
  TrainParameters p;
  p.threads = 1;
  p.max_memory = std::uint64_t{1} << 30;
  try {
    train(data, p);
    FAIL() << "trained 2^31 - 1 features under a 1 GiB budget";
  } catch (const FeatureMemoryError& e) {
    EXPECT_EQ(e.n_features(), 2147483646);
    EXPECT_EQ(e.needed(), std::uint64_t{2147483647} * 48);
    EXPECT_EQ(e.budget(), std::uint64_t{1} << 30);
    const std::string message = e.what();
    EXPECT_NE(message.find("2147483646 features"), std::string::npos) << message;
    EXPECT_NE(message.find("96.0 GiB"), std::string::npos) << message;
    EXPECT_NE(message.find("remap the feature indices"), std::string::npos) << message;
  }
}

TEST(FeatureMemory, WithoutABudgetTheAvailableMemoryBounds) {
  // 2^31 - 1 features in 1000 one-vs-rest problems need 80 TiB for the model
  // alone, more than any machine this runs on has available.
  CsrChunk chunk;
  const std::int32_t far[] = {2147483645};
  const float one[] = {1.0f};
  for (int label = 0; label < 1000; ++label) chunk.add_row(label, far, one, 1);
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  const Dataset data(std::move(chunks), 2147483646);
  TrainParameters p;
  p.threads = 1;
  ASSERT_GT(available_memory_bytes(), 0u);
  EXPECT_THROW(train(data, p), FeatureMemoryError);
}

TEST(FeatureMemory, AFitWithinTheBudgetTrains) {
  const Dataset data = two_rows(1000);
  TrainParameters p;
  p.threads = 1;
  p.max_memory = std::uint64_t{1} << 20;  // 1001 features need 40 KB
  EXPECT_EQ(train(data, p).model.n_features, 1001);
  p.max_memory = 1000;  // but not under a 1000-byte budget
  EXPECT_THROW(train(data, p), FeatureMemoryError);
}

}  // namespace
