// Which columns a PASSCoDe thread keeps pending (snapml/src/hot_columns.h).
#include <gtest/gtest.h>

#include <vector>

#include "../../../snapml/src/hot_columns.h"
#include "snapml/dataset.h"

namespace {

using snapml::detail::HotColumns;

TEST(HotColumns, PicksColumnsInAtLeastTheMinimumShareOfRowsAndTheIntercept) {
  // 1,000 rows; columns 0..4 then the intercept's slot.
  const std::vector<std::uint32_t> counts = {900, 49, 50, 0, 700, 0};
  const HotColumns hot(counts, 1000, /*with_intercept=*/true);
  ASSERT_EQ(hot.size(), 4u);  // 0, 4, 2 by frequency, then the intercept (5)
  EXPECT_EQ(hot.column(0), 0);
  EXPECT_EQ(hot.column(1), 4);
  EXPECT_EQ(hot.column(2), 2);
  EXPECT_EQ(hot.column(3), 5);
  for (std::size_t s = 0; s < hot.size(); ++s) EXPECT_EQ(hot.slot(hot.column(s)), static_cast<std::int32_t>(s));
  EXPECT_EQ(hot.slot(1), -1);  // 4.9 % of the rows
  EXPECT_EQ(hot.slot(3), -1);
  EXPECT_TRUE(HotColumns(counts, 1000, false).slot(5) == -1);
}

TEST(HotColumns, KeepsTheMostFrequentUpToTheCap) {
  const std::size_t n = HotColumns::kMaxColumns + 100;
  std::vector<std::uint32_t> counts(n + 1, 0);
  for (std::size_t j = 0; j < n; ++j) counts[j] = 100 + static_cast<std::uint32_t>(j);  // later ones more frequent
  const HotColumns hot(counts, 1000, true);
  ASSERT_EQ(hot.size(), HotColumns::kMaxColumns);
  EXPECT_EQ(hot.column(0), static_cast<std::int32_t>(n - 1));
  EXPECT_EQ(hot.slot(0), -1);  // among the least frequent: left out
  EXPECT_EQ(hot.column(hot.size() - 1), static_cast<std::int32_t>(n));  // the intercept, always
}

TEST(HotColumns, NothingHotIsEmpty) {
  EXPECT_TRUE(HotColumns({1, 2, 0}, 1000, false).empty());
  EXPECT_TRUE(HotColumns().empty());
  EXPECT_TRUE(HotColumns({}, 0, true).empty());
}

TEST(HotColumns, CountsEveryRowsColumns) {
  snapml::CsrChunk chunk;
  const std::int32_t a[] = {0, 2};
  const std::int32_t b[] = {2};
  const float va[] = {1.0f, 2.0f};
  const float vb[] = {3.0f};
  chunk.add_row(1.0, a, va, 2);
  chunk.add_row(-1.0, b, vb, 1);
  std::vector<snapml::CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  const snapml::Dataset data(std::move(chunks), 3);
  std::vector<std::uint32_t> counts(4, 0);
  snapml::detail::count_columns(data.view(0), counts);
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{1, 0, 2, 0}));
}

}  // namespace
