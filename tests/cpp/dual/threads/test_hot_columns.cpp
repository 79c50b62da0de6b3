// Which columns a PASSCoDe thread keeps pending (snapml/src/dual/threads/hot_columns.h).
#include <gtest/gtest.h>

#include <vector>

#include "../../../../snapml/src/dual/threads/hot_columns.h"
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

TEST(ColumnCounter, ATeamCountsWhatOneThreadCounts) {
  // 3,000 rows over 40 columns (1,000 rows a chunk), column j in about 1 / (j + 1) of them.
  std::vector<snapml::CsrChunk> chunks(3);
  std::uint64_t state = 7;
  for (snapml::CsrChunk& chunk : chunks) {
    for (int row = 0; row < 1000; ++row) {
      std::vector<std::int32_t> columns;
      for (std::int32_t j = 0; j < 40; ++j) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((state >> 33) % static_cast<std::uint64_t>(j + 1) == 0) columns.push_back(j);
      }
      const std::vector<float> values(columns.size(), 1.0f);
      chunk.add_row(1.0, columns.data(), values.data(), static_cast<std::int64_t>(columns.size()));
    }
  }
  const snapml::Dataset data(std::move(chunks), 40);
  std::vector<std::uint32_t> serial(41, 0);
  for (std::size_t c = 0; c < data.n_chunks(); ++c) snapml::detail::count_columns(data.view(c), serial);
  EXPECT_EQ(serial[0], 3000u);
  for (const int threads : {1, 2, 3, 8}) {
    snapml::detail::ColumnCounter counter(41, data.nnz(), threads);
    for (std::size_t c = 0; c < data.n_chunks(); ++c) counter.add(data.view(c));
    EXPECT_EQ(counter.take(), serial) << threads << " threads";
  }
  // Too wide for a team's arrays (41 columns, 41 non-zeros): one array, same counts.
  snapml::detail::ColumnCounter narrow(41, 41, 8);
  for (std::size_t c = 0; c < data.n_chunks(); ++c) narrow.add(data.view(c));
  EXPECT_EQ(narrow.take(), serial);
}

}  // namespace
