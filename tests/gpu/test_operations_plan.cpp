// The memory plan of the GPU matrix operations (operations_plan.h): host
// arithmetic, run everywhere. The byte counts are the allocations in
// matrix_operations_gpu.cu, which the device tests then make for real.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snapml/cuda/operations_plan.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

using ::testing::HasSubstr;

TEST(OperationsPlan, PartsAreContiguousAndWithinOneRowOfEqual) {
  for (const std::int64_t rows : {0, 1, 7, 32561, 1000003}) {
    for (const std::size_t parts : {1u, 2u, 3u, 8u}) {
      const std::vector<std::int64_t> b = part_boundaries(rows, parts);
      ASSERT_EQ(b.size(), parts + 1);
      EXPECT_EQ(b.front(), 0);
      EXPECT_EQ(b.back(), rows);
      for (std::size_t k = 0; k < parts; ++k) {
        const std::int64_t size = b[k + 1] - b[k];
        EXPECT_GE(size, rows / static_cast<std::int64_t>(parts));
        EXPECT_LE(size, rows / static_cast<std::int64_t>(parts) + 1);
      }
    }
  }
  EXPECT_THROW(part_boundaries(10, 0), InvalidArgument);
}

TEST(OperationsPlan, TheInterceptAddsOneEntryPerRow) {
  EXPECT_EQ(part_entries(100, 1000, 1.0), 1100);
  EXPECT_EQ(part_entries(100, 1000, 0.5), 1100);
  EXPECT_EQ(part_entries(100, 1000, 0.0), 1000);  // no intercept: no column stored
}

// a9a with the intercept: 32561 rows, 451592 non-zeros, 123 features.
TEST(OperationsPlan, BytesAreTheAllocations) {
  const std::int64_t rows = 32561;
  const std::int64_t entries = part_entries(rows, 451592, 1.0);
  const std::size_t weights = 124;
  const OperationsBytes bytes = operations_bytes(rows, entries, weights);
  EXPECT_EQ(bytes.matrix, 4u * (rows + 1) + 12u * entries);
  EXPECT_EQ(bytes.transposed, 4u * (weights + 1) + 12u * entries);
  EXPECT_EQ(bytes.vectors, 16u * (rows + weights));
  EXPECT_EQ(bytes.total(), bytes.matrix + bytes.transposed + bytes.vectors);
  EXPECT_EQ(bytes.total(), 12273380u);  // 11.7 MiB: a9a fits any device
}

TEST(OperationsPlan, RefusesWhatDoesNotFitNamingTheSizes) {
  const OperationsBytes bytes = operations_bytes(1000, 21000, 501);
  EXPECT_NO_THROW(require_part_fits(0, 1000, 21000, 501, bytes.total(), "max_gpu_memory"));
  try {
    require_part_fits(3, 1000, 21000, 501, bytes.total() - 1, "max_gpu_memory");
    FAIL() << "no refusal";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr("device 3 (1000 rows, 21000 stored entries)"));
    EXPECT_THAT(e.what(), HasSubstr("need " + std::to_string(bytes.total()) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("matrix " + std::to_string(bytes.matrix) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("max_gpu_memory is " + std::to_string(bytes.total() - 1) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("does not stream"));
  }
}

TEST(OperationsPlan, RefusesMoreRowsOrEntriesThan32BitIndicesReach) {
  EXPECT_NO_THROW(require_part_fits(0, 10, kMaxPartEntries, 5, ~std::uint64_t{0}, "free memory"));
  try {
    require_part_fits(0, 10, kMaxPartEntries + 1, 5, ~std::uint64_t{0}, "free memory");
    FAIL() << "no refusal";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr("32-bit cuSPARSE indices"));
    EXPECT_THAT(e.what(), HasSubstr("pass more device ids"));
  }
  // Empty rows without an intercept: few entries, too many rows.
  EXPECT_THROW(require_part_fits(0, kMaxPartEntries + 1, 10, 5, ~std::uint64_t{0}, "free memory"), Unsupported);
}

}  // namespace
}  // namespace snapml::cuda
