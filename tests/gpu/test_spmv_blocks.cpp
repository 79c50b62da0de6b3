// Host-side planning of the GPU kernels: how CsrSpmv cuts a chunk into row blocks
// that 32-bit offsets can address, and the block size row_dots picks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "snapml/cuda/row_dots.h"
#include "snapml/cuda/spmv.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

using Offsets = std::vector<std::int64_t>;

std::vector<std::int64_t> split(const Offsets& offsets, std::int64_t limit) {
  return split_rows_by_nnz(offsets.data(), static_cast<std::int64_t>(offsets.size()) - 1, limit);
}

TEST(SplitRowsByNnz, OneBlockWhenEverythingFits) {
  EXPECT_EQ(split({0, 3, 3, 7}, 7), (Offsets{0, 3}));
  EXPECT_EQ(split({0, 3, 3, 7}, 100), (Offsets{0, 3}));
}

TEST(SplitRowsByNnz, NoRowsNoBlocks) { EXPECT_EQ(split({0}, 5), (Offsets{0})); }

TEST(SplitRowsByNnz, CutsAtTheLastRowThatFits) {
  // Rows of 2, 2, 0, 3, 1 non-zeros.
  const Offsets offsets{0, 2, 4, 4, 7, 8};
  EXPECT_EQ(split(offsets, 4), (Offsets{0, 3, 5}));  // rows 0-2 hold 4, rows 3-4 hold 4
  EXPECT_EQ(split(offsets, 3), (Offsets{0, 1, 3, 4, 5}));  // the empty row 2 joins row 1
}

TEST(SplitRowsByNnz, RowLongerThanTheLimitIsABlockOfItsOwn) {
  const Offsets offsets{0, 1, 11, 12};  // rows of 1, 10, 1
  EXPECT_EQ(split(offsets, 2), (Offsets{0, 1, 2, 3}));
}

TEST(SplitRowsByNnz, EveryBlockRespectsTheLimitOnRandomRows) {
  Offsets offsets{0};
  std::uint64_t state = 12345;
  for (int row = 0; row < 5000; ++row) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    offsets.push_back(offsets.back() + static_cast<std::int64_t>((state >> 33) % 40));
  }
  const std::int64_t limit = 1000;
  const auto cuts = split(offsets, limit);
  ASSERT_GE(cuts.size(), 2u);
  EXPECT_EQ(cuts.front(), 0);
  EXPECT_EQ(cuts.back(), 5000);
  for (std::size_t b = 0; b + 1 < cuts.size(); ++b) {
    EXPECT_LT(cuts[b], cuts[b + 1]);
    EXPECT_LE(offsets[cuts[b + 1]] - offsets[cuts[b]], limit);
    // Greedy: the next row would not have fitted.
    if (cuts[b + 1] < 5000) {
      EXPECT_GT(offsets[cuts[b + 1] + 1] - offsets[cuts[b]], limit);
    }
  }
}

TEST(SplitRowsByNnz, RejectsANonPositiveLimit) { EXPECT_THROW(split({0, 1}, 0), InvalidArgument); }

TEST(RowDotsBlockSize, SmallestWarpMultipleCoveringTheMeanRowAtTwoEntriesAThread) {
  EXPECT_EQ(row_dots_block_size(0.0), 32);
  EXPECT_EQ(row_dots_block_size(64.0), 32);  // at most two entries a thread
  EXPECT_EQ(row_dots_block_size(65.0), 64);
  EXPECT_EQ(row_dots_block_size(200.0), 128);
  EXPECT_EQ(row_dots_block_size(5000.0), 256);
}

}  // namespace
}  // namespace snapml::cuda
