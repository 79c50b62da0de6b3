// What the GPU Newton solver (cuda/src/primal/, docs/gpu.md "Primal Newton on the
// GPU") keeps on each device, counted as it allocates; the tiles its rows are cut
// into and the plan of each tile's transposed product; and the rule that refuses
// what does not fit. Pure host arithmetic with no CUDA dependency, so CI tests it
// without a GPU (tests/gpu/test_operations_plan.cpp).
//
// Parts: the rows are cut into contiguous, equal row ranges, one per device id (as
// the GPU SDCA solver cuts its workers' rows), each a part that one device holds
// for the whole fit. Tiles: a part's rows are cut again into tiles of at most
// kTileRows rows and kTileItems transposed entries, each with
//
//   matrix      4 (rows + 1) + 8 nnz          CSR: int32 offsets, {int32 column, float value}
//   transposed  4 (n_weights + 1) + 8 items   CSR of X^T: {int32 row, float value}; items =
//               + items / 2 + 16              nnz, plus one per row for the intercept's column
//                                             (value 1: the products scale it), and the plan
//                                             of its long columns with their pieces' partial
//                                             sums (bounded by items / 2)
//
// Float values lose nothing (the chunks hold float32) and the products accumulate
// in double. A tile's 32-bit offsets always suffice: its items stay below 2^31.
// Why tiles: the transposed product gathers the per-row vector of its tile at
// random (X^T u reads u_i for each entry); a tile's u (16 MiB for 2^21 rows) stays
// in the device's L2 cache, where the whole part's would not, and the
// transposition's scratch is one tile's. Each tile adds its own transposed
// offsets and one read-add-write of each weight-sized output, 20 bytes a weight.
//
// Per row of the part: 56 bytes (target, cost, the loss's derivative and
// curvature at the point and at the trial point, and the product vector u). Per
// weight: the first part's device holds the solver's vectors (w, the trial point,
// g, M, r, s, d, H d), the outputs of its own products, the other parts' outputs
// it sums, and the cross-rank sums under MPI; another part holds its copy of the
// product's input and its two outputs (weight_vectors). The transposition's
// scratch for the largest tile is freed after the upload: 16 bytes an item (keys
// in and out, values in) and the radix sort's own (estimated at 12 bytes an item
// plus 16 MiB here; its exact size is checked again on the device).
//
// Data beyond a device: refused, never streamed. A Newton fit reads every row
// in each product, tens to hundreds of passes per fit; streamed over PCIe at
// about a tenth of device-memory bandwidth, each would cost ten times its
// resident time. (The SDCA solver streams: stream_plan.h.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace snapml::cuda {

// Device ids one fit spreads its rows over at most.
inline constexpr std::size_t kMaxParts = 16;

// Part k of `parts` holds rows [b[k], b[k + 1]) of n_rows; returns b (parts + 1
// entries): shares within one row of equal, cut as the GPU SDCA solver cuts its
// workers' rows.
std::vector<std::int64_t> part_boundaries(std::int64_t n_rows, std::size_t parts);

inline constexpr std::int64_t kTileRows = std::int64_t{1} << 21;
inline constexpr std::int64_t kTileItems = std::int64_t{1} << 27;

struct Tile {
  std::int64_t first_row = 0;  // in the part
  std::int64_t n_rows = 0;
  std::int64_t nnz = 0;
  // Entries of the tile's transposed copy: the intercept's column adds one a row.
  std::int64_t items(bool intercept) const { return nnz + (intercept ? n_rows : 0); }
};

// The most rows and items of a tile: kTileRows and kTileItems, smaller in tests
// (many tiles from few rows).
struct TileLimits {
  std::int64_t rows = kTileRows;
  std::int64_t items = kTileItems;
  bool operator==(const TileLimits& o) const { return rows == o.rows && items == o.items; }
};

// Cuts a part's rows, fed in order, into tiles: a tile ends before the row that
// would take it past the limits' rows or items. A row alone is never cut (its
// items stay below 2^31: fewer columns than that).
class TileCutter {
 public:
  explicit TileCutter(bool intercept, TileLimits limits = {}) : intercept_(intercept), limits_(limits) {}
  void add_row(std::int64_t nnz);
  // The tiles so far, the last one included; a part without rows has none.
  std::vector<Tile> tiles() const;

 private:
  bool intercept_;
  TileLimits limits_;
  std::vector<Tile> tiles_;
  Tile open_;
};

struct PartShape {
  std::int64_t n_rows = 0;
  std::int64_t nnz = 0;
  std::int64_t tiles = 0;
  std::int64_t items = 0;               // transposed entries over all tiles
  std::int64_t largest_tile_items = 0;  // what the transposition's scratch is sized for
};
PartShape part_shape(const std::vector<Tile>& tiles, bool intercept);

// Weight-sized double vectors a part's device holds for it: the first part's
// holds the solver's 8, its 2 outputs, 2 per other part and 2 for the sums over
// ranks; another part holds 3.
std::size_t weight_vectors(bool first_part, std::size_t parts);

struct OperationsBytes {
  std::uint64_t matrix = 0;
  std::uint64_t transposed = 0;
  std::uint64_t rows = 0;
  std::uint64_t vectors = 0;
  std::uint64_t scratch = 0;  // during the upload only
  std::uint64_t total() const { return matrix + transposed + rows + vectors + scratch; }
};

// The bytes of a part (above) with `vectors` weight-sized vectors of n_weights.
OperationsBytes operations_bytes(const PartShape& part, std::size_t n_weights, std::size_t vectors);

// Throws Unsupported naming the part's rows, entries and each kind of bytes when
// it needs more than `available` (what `limit` names: "max_gpu_memory", "free
// memory"); the message says what to do (more device ids, a larger budget, the CPU).
void require_part_fits(int device_id, const PartShape& part, const OperationsBytes& bytes, std::uint64_t available,
                       const std::string& limit);

// Threads that share one row (or one transposed row) in the products: a power of
// two from 2 to 32, the largest not above half the mean length. Each thread then
// walks two or more of a row's entries, and a warp holds several short rows in
// flight (Criteo-like rows of 35 entries: 16 lanes, two rows a warp), which hides
// more of the latency of the offsets -> entries -> gather chain.
int lanes_for(std::int64_t rows, std::int64_t entries);

// A transposed row (a column of X) longer than lanes x kLongIterations entries is
// "long": its entries are summed in pieces of kPieceEntries by whole thread blocks
// and the pieces' sums added in order (the intercept's column, dense and hashed
// columns), so no group of lanes walks a million entries alone.
inline constexpr int kLongIterations = 64;
inline constexpr std::int32_t kPieceEntries = 2048;

// The plan of one tile's transposed product, from its offsets (n_columns + 1).
struct ColumnPlan {
  int lanes = 2;                      // for the short columns
  std::int32_t long_threshold = 0;    // longer columns are long
  std::vector<std::int32_t> long_columns;  // in column order
  std::vector<std::int32_t> first_piece;   // long_columns.size() + 1: column c's pieces are [first[c], first[c + 1])
  std::vector<std::int32_t> piece_begin;   // entries [begin, end) of each piece
  std::vector<std::int32_t> piece_end;
};
ColumnPlan plan_columns(const std::int32_t* offsets, std::int64_t n_columns);

}  // namespace snapml::cuda
