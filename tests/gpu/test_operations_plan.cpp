// The GPU Newton solver's host-side plans (operations_plan.h): parts, tiles, the
// bytes each part's device holds, the refusal that names them, and the plan of a
// tile's transposed product. Host arithmetic, run everywhere; the device tests
// (test_tron_gpu) then run the plans for real.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

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

// Tiles cover the rows in order, none past kTileRows rows or kTileItems items
// unless it is a single row.
void expect_tiles_cover(const std::vector<Tile>& tiles, const std::vector<std::int64_t>& lengths, bool intercept) {
  std::int64_t row = 0;
  for (const Tile& tile : tiles) {
    EXPECT_EQ(tile.first_row, row);
    ASSERT_GT(tile.n_rows, 0);
    EXPECT_LE(tile.n_rows, kTileRows);
    std::int64_t nnz = 0;
    for (std::int64_t i = row; i < row + tile.n_rows; ++i) nnz += lengths[static_cast<std::size_t>(i)];
    EXPECT_EQ(tile.nnz, nnz);
    if (tile.n_rows > 1) {
      EXPECT_LE(tile.items(intercept), kTileItems);
    }
    row += tile.n_rows;
  }
  EXPECT_EQ(row, static_cast<std::int64_t>(lengths.size()));
}

TEST(OperationsPlan, TilesCutAtTheirRowAndItemLimits) {
  for (const bool intercept : {false, true}) {
    // Rows alone: 2.5 tiles of short rows.
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(kTileRows * 5 / 2), 3);
    TileCutter rows(intercept);
    for (const std::int64_t length : lengths) rows.add_row(length);
    const std::vector<Tile> by_rows = rows.tiles();
    ASSERT_EQ(by_rows.size(), 3u);
    EXPECT_EQ(by_rows[0].n_rows, kTileRows);
    expect_tiles_cover(by_rows, lengths, intercept);
    // Items: long rows, and one row longer than a tile on its own.
    lengths.assign(40, kTileItems / 16);
    lengths[17] = kTileItems + 5;
    TileCutter items(intercept);
    for (const std::int64_t length : lengths) items.add_row(length);
    const std::vector<Tile> by_items = items.tiles();
    expect_tiles_cover(by_items, lengths, intercept);
    bool alone = false;
    for (const Tile& tile : by_items) alone = alone || (tile.n_rows == 1 && tile.nnz == kTileItems + 5);
    EXPECT_TRUE(alone);
  }
  EXPECT_TRUE(TileCutter(true).tiles().empty());
  TileCutter empty_rows(false);
  for (int i = 0; i < 10; ++i) empty_rows.add_row(0);
  ASSERT_EQ(empty_rows.tiles().size(), 1u);
  EXPECT_EQ(empty_rows.tiles()[0].n_rows, 10);
}

// a9a with the intercept as one tile: 32561 rows, 451592 non-zeros, 124 weights.
TEST(OperationsPlan, BytesAreTheAllocations) {
  TileCutter cutter(true);
  for (int row = 0; row < 32561; ++row) cutter.add_row(row < 451592 % 32561 ? 451592 / 32561 + 1 : 451592 / 32561);
  const PartShape shape = part_shape(cutter.tiles(), true);
  EXPECT_EQ(shape.n_rows, 32561);
  EXPECT_EQ(shape.nnz, 451592);
  EXPECT_EQ(shape.tiles, 1);
  EXPECT_EQ(shape.items, 451592 + 32561);
  EXPECT_EQ(shape.largest_tile_items, 451592 + 32561);
  const std::size_t weights = 124;
  EXPECT_EQ(weight_vectors(true, 1), 12u);
  EXPECT_EQ(weight_vectors(true, 3), 16u);
  EXPECT_EQ(weight_vectors(false, 3), 3u);
  const OperationsBytes bytes = operations_bytes(shape, weights, weight_vectors(true, 1));
  EXPECT_EQ(bytes.matrix, 4u * (32561 + 1) + 8u * 451592);
  const std::uint64_t items = 451592 + 32561;
  EXPECT_EQ(bytes.transposed, 4u * (weights + 1) + 16 + 8 * items + items / 2);
  EXPECT_EQ(bytes.rows, 56u * 32561);
  EXPECT_EQ(bytes.vectors, 8u * weights * 12);
  EXPECT_EQ(bytes.scratch, 28 * items + (std::uint64_t{16} << 20));
  EXPECT_EQ(bytes.total(), bytes.matrix + bytes.transposed + bytes.rows + bytes.vectors + bytes.scratch);
  const PartShape none = part_shape({}, true);
  EXPECT_EQ(operations_bytes(none, weights, 3).total(), 8u * weights * 3);  // a part without rows: its vectors
}

TEST(OperationsPlan, RefusesWhatDoesNotFitNamingTheSizes) {
  TileCutter cutter(true);
  for (int row = 0; row < 1000; ++row) cutter.add_row(20);
  const PartShape shape = part_shape(cutter.tiles(), true);
  const OperationsBytes bytes = operations_bytes(shape, 501, weight_vectors(false, 2));
  EXPECT_NO_THROW(require_part_fits(0, shape, bytes, bytes.total(), "max_gpu_memory"));
  try {
    require_part_fits(3, shape, bytes, bytes.total() - 1, "max_gpu_memory");
    FAIL() << "no refusal";
  } catch (const Unsupported& e) {
    EXPECT_THAT(e.what(), HasSubstr("device 3 (1000 rows, 20000 non-zeros in 1 tiles)"));
    EXPECT_THAT(e.what(), HasSubstr("need " + std::to_string(bytes.total()) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("matrix " + std::to_string(bytes.matrix) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("transposition scratch during the upload"));
    EXPECT_THAT(e.what(), HasSubstr("max_gpu_memory is " + std::to_string(bytes.total() - 1) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("does not stream"));
  }
}

TEST(OperationsPlan, LanesFollowTheMeanLength) {
  EXPECT_EQ(lanes_for(0, 0), 2);
  EXPECT_EQ(lanes_for(100, 100), 2);
  EXPECT_EQ(lanes_for(100, 800), 4);
  EXPECT_EQ(lanes_for(100, 1500), 4);
  EXPECT_EQ(lanes_for(100, 3500), 16);  // Criteo-like rows
  EXPECT_EQ(lanes_for(100, 12800), 32);
  EXPECT_EQ(lanes_for(10, 1000000), 32);
}

// Random column lengths with a few long ones (dense columns, the intercept's):
// the short ones stay within the threshold, the long ones are listed in order and
// their pieces cover each of them exactly, in order, none past kPieceEntries.
TEST(OperationsPlan, TheColumnPlanCoversTheLongColumnsByPieces) {
  std::mt19937_64 rng(3);
  std::vector<std::int32_t> lengths(5000);
  for (auto& length : lengths) length = std::uniform_int_distribution<std::int32_t>(0, 12)(rng);
  lengths[7] = 100000;
  lengths[4999] = kPieceEntries;  // exactly one piece
  lengths[2500] = 3 * kPieceEntries + 1;
  std::vector<std::int32_t> offsets(lengths.size() + 1, 0);
  std::partial_sum(lengths.begin(), lengths.end(), offsets.begin() + 1);
  const ColumnPlan plan = plan_columns(offsets.data(), static_cast<std::int64_t>(lengths.size()));
  EXPECT_EQ(plan.lanes, 2);
  EXPECT_EQ(plan.long_threshold, plan.lanes * kLongIterations);
  ASSERT_EQ(plan.first_piece.size(), plan.long_columns.size() + 1);
  std::size_t next_long = 0;
  for (std::size_t j = 0; j < lengths.size(); ++j) {
    if (lengths[j] <= plan.long_threshold) continue;
    ASSERT_LT(next_long, plan.long_columns.size());
    EXPECT_EQ(plan.long_columns[next_long], static_cast<std::int32_t>(j));
    std::int32_t at = offsets[j];
    for (std::int32_t p = plan.first_piece[next_long]; p < plan.first_piece[next_long + 1]; ++p) {
      EXPECT_EQ(plan.piece_begin[static_cast<std::size_t>(p)], at);
      EXPECT_GT(plan.piece_end[static_cast<std::size_t>(p)], at);
      EXPECT_LE(plan.piece_end[static_cast<std::size_t>(p)] - at, kPieceEntries);
      at = plan.piece_end[static_cast<std::size_t>(p)];
    }
    EXPECT_EQ(at, offsets[j + 1]);
    ++next_long;
  }
  EXPECT_EQ(next_long, plan.long_columns.size());
  EXPECT_EQ(plan.long_columns.size(), 3u);
  EXPECT_EQ(plan.piece_begin.size(), (100000 + kPieceEntries - 1) / kPieceEntries + 1 + 4);
}

}  // namespace
}  // namespace snapml::cuda
