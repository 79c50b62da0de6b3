#include "snapml/cuda/operations_plan.h"

#include <algorithm>

#include "snapml/cuda/stream_plan.h"
#include "snapml/error.h"

namespace snapml::cuda {

std::vector<std::int64_t> part_boundaries(std::int64_t n_rows, std::size_t parts) {
  require(parts > 0 && n_rows >= 0, "part_boundaries: " + std::to_string(n_rows) + " rows into " +
                                        std::to_string(parts) + " parts");
  const auto count = static_cast<std::int64_t>(parts);
  std::vector<std::int64_t> boundaries(parts + 1);
  for (std::int64_t k = 0; k <= count; ++k)
    boundaries[static_cast<std::size_t>(k)] = n_rows / count * k + n_rows % count * k / count;
  return boundaries;
}

void TileCutter::add_row(std::int64_t nnz) {
  require(nnz >= 0, [&] { return "TileCutter: a row of " + std::to_string(nnz) + " entries"; });
  const std::int64_t row_items = nnz + (intercept_ ? 1 : 0);
  if (open_.n_rows > 0 && (open_.n_rows + 1 > limits_.rows || open_.items(intercept_) + row_items > limits_.items)) {
    tiles_.push_back(open_);
    Tile next;
    next.first_row = open_.first_row + open_.n_rows;
    open_ = next;
  }
  ++open_.n_rows;
  open_.nnz += nnz;
}

std::vector<Tile> TileCutter::tiles() const {
  std::vector<Tile> all = tiles_;
  if (open_.n_rows > 0) all.push_back(open_);
  return all;
}

PartShape part_shape(const std::vector<Tile>& tiles, bool intercept) {
  PartShape shape;
  for (const Tile& tile : tiles) {
    shape.n_rows += tile.n_rows;
    shape.nnz += tile.nnz;
    shape.items += tile.items(intercept);
    shape.largest_tile_items = std::max(shape.largest_tile_items, tile.items(intercept));
  }
  shape.tiles = static_cast<std::int64_t>(tiles.size());
  return shape;
}

std::size_t weight_vectors(bool first_part, std::size_t parts) {
  // w, trial, g, M, r, s, d, H d; the two outputs; two per other part; two for the ranks' sums.
  return first_part ? 8 + 2 + 2 * (parts - 1) + 2 : 3;
}

OperationsBytes operations_bytes(const PartShape& part, std::size_t n_weights, std::size_t vectors) {
  const auto tiles = static_cast<std::uint64_t>(part.tiles);
  const auto items = static_cast<std::uint64_t>(part.items);
  const auto weights = static_cast<std::uint64_t>(n_weights);
  OperationsBytes bytes;
  bytes.matrix = 4 * (static_cast<std::uint64_t>(part.n_rows) + tiles) + 8 * static_cast<std::uint64_t>(part.nnz);
  bytes.transposed = tiles * (4 * (weights + 1) + 16) + 8 * items + items / 2;
  bytes.rows = 56 * static_cast<std::uint64_t>(part.n_rows);
  bytes.vectors = 8 * weights * static_cast<std::uint64_t>(vectors);
  const auto largest = static_cast<std::uint64_t>(part.largest_tile_items);
  bytes.scratch = largest > 0 ? 16 * largest + 12 * largest + (std::uint64_t{16} << 20) : 0;
  return bytes;
}

void require_part_fits(int device_id, const PartShape& part, const OperationsBytes& bytes, std::uint64_t available,
                       const std::string& limit) {
  if (bytes.total() <= available) return;
  throw Unsupported("the primal Newton solver's rows for device " + std::to_string(device_id) + " (" +
                    std::to_string(part.n_rows) + " rows, " + std::to_string(part.nnz) + " non-zeros in " +
                    std::to_string(part.tiles) + " tiles) need " + bytes_text(bytes.total()) + " (matrix " +
                    bytes_text(bytes.matrix) + ", its transposed copy " + bytes_text(bytes.transposed) +
                    ", per-row state " + bytes_text(bytes.rows) + ", weight vectors " + bytes_text(bytes.vectors) +
                    ", transposition scratch during the upload " + bytes_text(bytes.scratch) + ") but " + limit +
                    " is " + bytes_text(available) +
                    "; the primal solver keeps every row on its device and does not stream: pass more device "
                    "ids, raise the limit, or train on the CPU (without use_gpu)");
}

int lanes_for(std::int64_t rows, std::int64_t entries) {
  const std::int64_t mean = rows > 0 ? entries / rows : 0;
  int lanes = 2;
  while (lanes < 32 && 4 * lanes <= mean) lanes *= 2;
  return lanes;
}

ColumnPlan plan_columns(const std::int32_t* offsets, std::int64_t n_columns) {
  ColumnPlan plan;
  // The lanes fit the columns a group walks: the mean over those of at most
  // 1024 entries (the long ones do not pull it up).
  std::int64_t short_columns = 0, short_entries = 0;
  for (std::int64_t j = 0; j < n_columns; ++j) {
    const std::int64_t length = offsets[j + 1] - offsets[j];
    require(length >= 0, [&] { return "plan_columns: offsets decrease at column " + std::to_string(j); });
    if (length <= 1024) {
      ++short_columns;
      short_entries += length;
    }
  }
  plan.lanes = lanes_for(short_columns, short_entries);
  plan.long_threshold = plan.lanes * kLongIterations;
  plan.first_piece.push_back(0);
  for (std::int64_t j = 0; j < n_columns; ++j) {
    const std::int32_t begin = offsets[j], end = offsets[j + 1];
    if (end - begin <= plan.long_threshold) continue;
    plan.long_columns.push_back(static_cast<std::int32_t>(j));
    for (std::int32_t at = begin; at < end; at += std::min(kPieceEntries, end - at)) {
      plan.piece_begin.push_back(at);
      plan.piece_end.push_back(at + std::min(kPieceEntries, end - at));
    }
    plan.first_piece.push_back(static_cast<std::int32_t>(plan.piece_begin.size()));
  }
  return plan;
}

}  // namespace snapml::cuda
