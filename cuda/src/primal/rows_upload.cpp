// PrimalRows::upload: the host chunks straight into the layout the products use
// (primal_rows.h, operations_plan.h).
//
// Pass 1 reads the row lengths (host offsets only), cuts each part into tiles and
// refuses what does not fit. Pass 2 plans each tile's row offsets and
// {column, value} entries as staged copies (staging_ring.h): a few arithmetic
// steps a piece of a chunk, no loop over its rows. A team of host threads packs
// them into the session's pinned rings while earlier slots cross the link, and
// once a tile's last copy is queued its transposition is queued on its part's
// compute stream behind the copies: the sort of one tile runs while later tiles
// are packed and copied. A resident source is planned whole and packed in one
// run; another chunk by chunk (a chunk's view lives until the next). The long
// columns' plans need each tile's transposed offsets on the host, once, after
// the last tile: one host thread a tile.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../device/device_chunks.h"
#include "primal_rows.h"
#include "snapml/cuda/check.h"
#include "snapml/error.h"

namespace snapml::cuda::primal {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

static_assert(sizeof(Entry) == 8 && offsetof(Entry, value) == 4, "interleave_entries writes {int32, float} pairs");

}  // namespace

int host_threads(int threads) {
#if defined(_OPENMP)
  const int available = threads > 0 ? threads : omp_get_max_threads();
  return std::max(1, std::min(available, 16));  // beyond that, host memory bandwidth is spent
#else
  (void)threads;
  return 1;
#endif
}

class RowsUploader {
 public:
  RowsUploader(ChunkSource& source, const RowsKey& key, int threads, std::shared_ptr<StagingRings> staging)
      : source_(source), key_(key), threads_(host_threads(threads)), staging_(std::move(staging)) {}

  std::shared_ptr<PrimalRows> run();

 private:
  using Visit = std::function<void(std::size_t part, const CsrView& x, std::int64_t begin, std::int64_t end)>;
  // The transposition's scratch of a part, for its largest tile.
  struct Scratch {
    DeviceBuffer<std::uint32_t> keys_in, keys_out;
    DeviceBuffer<std::uint64_t> values_in;
    DeviceBuffer<std::byte> temp;
    TransposeScratch view;
  };
  // Where pass 2 is in a part: its open tile, and the rows and entries of it planned.
  struct Cursor {
    std::size_t tile = 0;
    std::int64_t rows = 0;
    std::int64_t entries = 0;
  };

  // Calls visit(part, chunk, begin, end) for each part's rows [begin, end) of each
  // chunk, in row order, and chunk_done() after each chunk.
  void for_each_piece(const Visit& visit, const std::function<void()>& chunk_done = {});
  void check_budget(const std::vector<std::vector<Tile>>& tiles);
  void allocate(std::size_t k, const std::vector<Tile>& tiles);
  void allocate_scratch();
  // Pass 2's copies of part p's rows [begin, end) of chunk x.
  void plan_piece(StagedCopies& copies, std::size_t p, const CsrView& x, std::int64_t begin, std::int64_t end);
  // Group g's copies are queued: its tile's transposition follows them.
  void transpose(int group);
  void plan_columns_of(Part& part, TileData& tile, std::vector<std::int32_t>& offsets);
  void plan_all_columns();

  ChunkSource& source_;
  RowsKey key_;
  int threads_;
  std::shared_ptr<StagingRings> staging_;
  std::shared_ptr<PrimalRows> rows_;
  std::vector<std::int64_t> bounds_;
  std::vector<Scratch> scratch_;               // per part
  std::vector<Cursor> cursors_;                // per part
  std::vector<std::pair<std::size_t, std::size_t>> group_tile_;  // group -> (part, tile)
  std::vector<int> first_group_;               // per part
};

void RowsUploader::for_each_piece(const Visit& visit, const std::function<void()>& chunk_done) {
  std::int64_t offset = 0;
  const std::size_t n_parts = bounds_.size() - 1;
  detail::for_each_host_chunk(source_, [&](const CsrView& x) {
    for (std::size_t k = 0; k < n_parts; ++k) {
      const std::int64_t begin = std::max(bounds_[k], offset) - offset;
      const std::int64_t end = std::min(bounds_[k + 1], offset + x.n_rows) - offset;
      if (begin < end) visit(k, x, begin, end);
    }
    offset += x.n_rows;
    if (chunk_done) chunk_done();
  });
  require(offset == rows_->n_rows_, "the chunk source returned " + std::to_string(offset) +
                                        " rows, not its n_rows() (" + std::to_string(rows_->n_rows_) + ")");
}

void RowsUploader::check_budget(const std::vector<std::vector<Tile>>& tiles) {
  const std::size_t n_parts = tiles.size();
  const std::uint64_t budget = key_.rows.max_gpu_memory;
  std::map<int, std::uint64_t> used;  // per device, against max_gpu_memory
  for (std::size_t k = 0; k < n_parts; ++k) {
    const int device = key_.device_ids[k];
    const PartShape shape = part_shape(tiles[k], key_.intercept);
    const OperationsBytes bytes = operations_bytes(shape, rows_->n_weights_, weight_vectors(k == 0, n_parts));
    if (budget > 0) {
      std::uint64_t& so_far = used[device];
      require_part_fits(device, shape, bytes, budget - std::min(so_far, budget),
                        "what max_gpu_memory leaves on the device");
      so_far += bytes.total();
    }
  }
}

void RowsUploader::allocate(std::size_t k, const std::vector<Tile>& tiles) {
  const int device = key_.device_ids[k];
  const std::size_t n_parts = key_.device_ids.size();
  const PartShape shape = part_shape(tiles, key_.intercept);
  const OperationsBytes bytes = operations_bytes(shape, rows_->n_weights_, weight_vectors(k == 0, n_parts));
  DeviceGuard guard(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  SNAPML_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  require_part_fits(device, shape, bytes, free_bytes, "the free memory of device " + std::to_string(device));

  auto part = std::make_unique<Part>();
  part->device_id = device;
  part->shares_master = k == 0;
  if (part->shares_master) {
    part->resources = rows_->master_.get();
    part->sums = rows_->master_sums_.get();
  } else {
    part->own_resources = std::make_unique<DeviceResources>(device);
    part->resources = part->own_resources.get();
    part->own_sums = std::make_unique<StreamSums>(part->stream());
    part->sums = part->own_sums.get();
    part->input = DeviceBuffer<double>(rows_->n_weights_);
    SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&part->done, cudaEventDisableTiming));
  }
  SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&part->copied, cudaEventDisableTiming));
  part->first_row = bounds_[k];
  part->n_rows = bounds_[k + 1] - bounds_[k];
  const auto rows = static_cast<std::size_t>(part->n_rows);
  for (DeviceBuffer<double>* buffer :
       {&part->targets, &part->costs, &part->d, &part->c, &part->d_trial, &part->c_trial, &part->u})
    *buffer = DeviceBuffer<double>(rows);
  part->raw_a = DeviceBuffer<double>(rows_->n_weights_);
  part->raw_b = DeviceBuffer<double>(rows_->n_weights_);
  for (const Tile& tile : tiles) {
    TileData data;
    data.shape = tile;
    data.offsets = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(tile.n_rows) + 1);
    data.entries = DeviceBuffer<Entry>(static_cast<std::size_t>(tile.nnz));
    data.t_offsets = DeviceBuffer<std::int32_t>(rows_->n_weights_ + 1);
    data.t_entries = DeviceBuffer<Entry>(static_cast<std::size_t>(tile.items(key_.intercept)));
    data.rows = {tile.n_rows, data.offsets.data(), data.entries.data(), lanes_for(tile.n_rows, tile.nnz)};
    part->tiles.push_back(std::move(data));
  }
  if (!part->shares_master) {  // indexed by the part's place among the parts with rows
    DeviceGuard master(rows_->master_->device_id());
    const std::size_t place = rows_->parts_.size();
    rows_->incoming_a_[place] = DeviceBuffer<double>(rows_->n_weights_);
    rows_->incoming_b_[place] = DeviceBuffer<double>(rows_->n_weights_);
  }
  rows_->parts_.push_back(std::move(part));
}

void RowsUploader::allocate_scratch() {
  scratch_.resize(rows_->parts_.size());
  for (std::size_t p = 0; p < rows_->parts_.size(); ++p) {
    Part& part = *rows_->parts_[p];
    DeviceGuard guard(part.device_id);
    std::int64_t largest = 0;
    for (const TileData& tile : part.tiles) largest = std::max(largest, tile.shape.items(key_.intercept));
    Scratch& s = scratch_[p];
    s.keys_in = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(largest));
    s.keys_out = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(largest));
    s.values_in = DeviceBuffer<std::uint64_t>(static_cast<std::size_t>(largest));
    const std::size_t temp_bytes = transpose_temp_bytes(largest, static_cast<std::int32_t>(rows_->n_weights_));
    s.temp = DeviceBuffer<std::byte>(std::max<std::size_t>(temp_bytes, 1));
    s.view = {s.keys_in.data(), s.keys_out.data(), s.values_in.data(), s.temp.data(), temp_bytes};
  }
}

void RowsUploader::plan_piece(StagedCopies& copies, std::size_t p, const CsrView& x, std::int64_t begin,
                              std::int64_t end) {
  Part& part = *rows_->parts_[p];
  Cursor& cursor = cursors_[p];
  const cudaStream_t stream = part.resources->copy_stream();
  while (begin < end) {
    require(cursor.tile < part.tiles.size(), "the chunk source returned more rows than its first pass counted");
    TileData& tile = part.tiles[cursor.tile];
    const std::int64_t take = std::min(end - begin, tile.shape.n_rows - cursor.rows);
    const std::int64_t base = x.row_offsets[begin];
    const std::int64_t count = x.row_offsets[begin + take] - base;
    require(count >= 0 && cursor.entries + count <= tile.shape.nnz,
            "the chunk source returned more non-zeros than its first pass counted");
    const bool closes = cursor.rows + take == tile.shape.n_rows;
    const int group = first_group_[p] + static_cast<int>(cursor.tile);
    // The tile's offsets of these rows (and its last, nnz, when they close it),
    // shifted from the chunk's to the tile's.
    const std::int64_t* offsets = x.row_offsets + begin;
    const std::int64_t shift = cursor.entries - base;
    copies.add_items(
        part.device_id, stream, tile.offsets.data() + cursor.rows, sizeof(std::int32_t), take + (closes ? 1 : 0),
        [offsets, shift](std::int64_t first, std::int64_t n, void* out) {
          auto* to = static_cast<std::int32_t*>(out);
          for (std::int64_t k = 0; k < n; ++k) to[k] = static_cast<std::int32_t>(offsets[first + k] + shift);
        },
        group);
    if (count > 0)
      copies.add_items(
          part.device_id, stream, tile.entries.data() + cursor.entries, sizeof(Entry), count,
          [columns = x.col_indices + base, values = x.values + base](std::int64_t first, std::int64_t n, void* out) {
            interleave_entries(columns + first, values + first, n, out);
          },
          group);
    cursor.entries += count;
    cursor.rows += take;
    begin += take;
    if (closes) {
      require(cursor.entries == tile.shape.nnz, "the chunk source returned other rows than its first pass counted");
      copies.close(group);
      ++cursor.tile;
      cursor.rows = cursor.entries = 0;
    }
  }
}

// Called by the thread that queued the group's last copy, under its device's
// queue lock, the device current.
void RowsUploader::transpose(int group) {
  const auto [p, t] = group_tile_[static_cast<std::size_t>(group)];
  Part& part = *rows_->parts_[p];
  TileData& tile = part.tiles[t];
  wait_for_copies(part);  // the compute stream waits for the tile's copies (and every earlier one)
  launch_transpose(tile.rows, tile.shape.nnz, key_.intercept, rows_->intercept_index(),
                   static_cast<std::int32_t>(rows_->n_weights_), scratch_[p].view, tile.t_offsets.data(),
                   tile.t_entries.data(), part.stream());
}

// The long columns' plan of a tile (operations_plan.h, plan_columns) from its
// transposed offsets, copied to the host into `offsets`.
void RowsUploader::plan_columns_of(Part& part, TileData& tile, std::vector<std::int32_t>& offsets) {
  DeviceGuard guard(part.device_id);
  const std::size_t width = rows_->n_weights_;
  offsets.resize(width + 1);
  SNAPML_CUDA_CHECK(cudaMemcpyAsync(offsets.data(), tile.t_offsets.data(), offsets.size() * sizeof(std::int32_t),
                                    cudaMemcpyDeviceToHost, part.stream()));
  SNAPML_CUDA_CHECK(cudaStreamSynchronize(part.stream()));
  require(offsets[width] == tile.shape.items(key_.intercept),
          "the transposition of a tile of " + std::to_string(tile.shape.n_rows) + " rows left " +
              std::to_string(offsets[width]) + " entries, not " + std::to_string(tile.shape.items(key_.intercept)));
  const ColumnPlan plan = plan_columns(offsets.data(), static_cast<std::int64_t>(width));
  std::vector<std::int32_t> packed(plan.long_columns);
  packed.insert(packed.end(), plan.first_piece.begin(), plan.first_piece.end());
  packed.insert(packed.end(), plan.piece_begin.begin(), plan.piece_begin.end());
  packed.insert(packed.end(), plan.piece_end.begin(), plan.piece_end.end());
  tile.plan = DeviceBuffer<std::int32_t>(packed.size());
  tile.plan.copy_from_host(packed.data(), packed.size(), part.stream());  // pageable: read before it returns
  const auto n_long = static_cast<std::int32_t>(plan.long_columns.size());
  const auto n_pieces = static_cast<std::int32_t>(plan.piece_begin.size());
  const std::int32_t* at = tile.plan.data();
  ColumnTile& columns = tile.columns;
  columns.n_columns = static_cast<std::int32_t>(width);
  columns.offsets = tile.t_offsets.data();
  columns.entries = tile.t_entries.data();
  columns.lanes = plan.lanes;
  columns.long_threshold = plan.long_threshold;
  columns.n_long = n_long;
  columns.long_columns = at;
  columns.first_piece = at + n_long;
  columns.n_pieces = n_pieces;
  columns.piece_begin = at + 2 * n_long + 1;
  columns.piece_end = at + 2 * n_long + 1 + n_pieces;
}

// Every tile's plan, a host thread a tile (the host loops over 2^22 columns take
// milliseconds each), and each part's pieces' partials for its largest plan.
void RowsUploader::plan_all_columns() {
  std::vector<std::pair<Part*, TileData*>> tiles;
  for (auto& part : rows_->parts_)
    for (TileData& tile : part->tiles) tiles.emplace_back(part.get(), &tile);
  const auto n = static_cast<std::int64_t>(tiles.size());
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast<int>(std::clamp<std::int64_t>(n, 1, threads_))) if (n > 1 && threads_ > 1)
  {
    std::vector<std::int32_t> offsets;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < n; ++k) {
      try {
        plan_columns_of(*tiles[static_cast<std::size_t>(k)].first, *tiles[static_cast<std::size_t>(k)].second,
                        offsets);
      } catch (...) {
#pragma omp critical(snapml_plan_columns)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
  for (auto& part : rows_->parts_) {
    DeviceGuard guard(part->device_id);
    std::size_t most_pieces = 1;
    for (const TileData& tile : part->tiles)
      most_pieces = std::max(most_pieces, static_cast<std::size_t>(tile.columns.n_pieces));
    part->piece_partials = DeviceBuffer<double>(kPiecePartials * most_pieces);
  }
}

std::shared_ptr<PrimalRows> RowsUploader::run() {
  Clock::time_point phase = Clock::now();
  const std::int32_t n_features = key_.rows.n_features;
  require(source_.n_features() <= n_features, "the primal solver's rows: n_features " + std::to_string(n_features) +
                                                  " is below the source's " + std::to_string(source_.n_features()));
  require(n_features < std::numeric_limits<std::int32_t>::max() - 1,
          "the GPU primal solver indexes n_features + 1 columns in 32 bits");
  require(!key_.device_ids.empty() && key_.device_ids.size() <= kMaxParts,
          "the GPU primal solver takes 1 to " + std::to_string(kMaxParts) + " device ids, got " +
              std::to_string(key_.device_ids.size()));
  for (const int device : key_.device_ids) require_gpu(device);
  if (!staging_) staging_ = std::make_shared<StagingRings>();

  rows_ = std::shared_ptr<PrimalRows>(new PrimalRows());
  UploadTimings& timings = rows_->upload_timings_;
  rows_->key_ = key_;
  rows_->n_rows_ = source_.n_rows();
  rows_->n_weights_ = static_cast<std::size_t>(n_features) + 1;
  rows_->staging_ = staging_;
  rows_->threads_ = threads_;
  const std::size_t n_parts = key_.device_ids.size();
  bounds_ = part_boundaries(rows_->n_rows_, n_parts);

  // Pass 1: the tiles of every part.
  std::vector<TileCutter> cutters(n_parts, TileCutter(key_.intercept, key_.tiles));
  for_each_piece([&](std::size_t k, const CsrView& x, std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) cutters[k].add_row(x.row_offsets[row + 1] - x.row_offsets[row]);
  });
  std::vector<std::vector<Tile>> tiles(n_parts);
  for (std::size_t k = 0; k < n_parts; ++k) tiles[k] = cutters[k].tiles();
  check_budget(tiles);
  timings.lengths = seconds_since(phase);

  phase = Clock::now();
  rows_->master_ = std::make_unique<DeviceResources>(key_.device_ids[0]);
  {
    DeviceGuard guard(key_.device_ids[0]);
    rows_->master_sums_ = std::make_unique<StreamSums>(rows_->master_stream());
    SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&rows_->fork_, cudaEventDisableTiming));
  }
  timings.resources = seconds_since(phase);
  phase = Clock::now();
  rows_->incoming_a_.resize(n_parts);
  rows_->incoming_b_.resize(n_parts);
  for (std::size_t k = 0; k < n_parts; ++k)
    if (!tiles[k].empty()) allocate(k, tiles[k]);
  if (rows_->parts_.empty()) {  // no rows on this rank: its products are zeros
    DeviceGuard guard(key_.device_ids[0]);
    rows_->zeros_ = DeviceBuffer<double>(rows_->n_weights_);
    rows_->zeros_.fill_bytes(0, rows_->master_stream());
  }
  allocate_scratch();
  timings.allocate = seconds_since(phase);

  // Pass 2: each part's tiles through the staging rings, each tile transposed
  // once its copies are queued.
  phase = Clock::now();
  std::vector<std::size_t> part_of(n_parts, rows_->parts_.size());  // boundary index -> parts_ index
  for (std::size_t p = 0, k = 0; k < n_parts; ++k)
    if (!tiles[k].empty()) part_of[k] = p++;
  cursors_.assign(rows_->parts_.size(), Cursor{});
  for (std::size_t p = 0; p < rows_->parts_.size(); ++p) {
    first_group_.push_back(static_cast<int>(group_tile_.size()));
    for (std::size_t t = 0; t < rows_->parts_[p]->tiles.size(); ++t) group_tile_.emplace_back(p, t);
  }
  StagedCopies copies(*staging_, threads_);
  copies.on_group([this](int group) { transpose(group); });
  const bool whole = source_.resident();  // else chunk by chunk: a chunk's view lives until the next
  for_each_piece([&](std::size_t k, const CsrView& x, std::int64_t begin,
                     std::int64_t end) { plan_piece(copies, part_of[k], x, begin, end); },
                 [&] {
                   if (!whole) copies.run();
                 });
  copies.run();
  for (std::size_t p = 0; p < rows_->parts_.size(); ++p)
    require(cursors_[p].tile == rows_->parts_[p]->tiles.size(),
            "the chunk source returned fewer rows than its first pass counted");
  require(copies.groups_open() == 0, "the upload left tiles without their transposition");
  timings.copies = copies.timings();
  phase = Clock::now();
  for (auto& part : rows_->parts_) part->resources->synchronize();  // the transpositions are done with the scratch
  timings.transposes = seconds_since(phase);
  phase = Clock::now();
  scratch_.clear();
  timings.release = seconds_since(phase);
  phase = Clock::now();
  plan_all_columns();
  timings.plans = seconds_since(phase);
  timings.threads = threads_;
  return std::move(rows_);
}

std::shared_ptr<PrimalRows> PrimalRows::upload(ChunkSource& source, const RowsKey& key, int threads,
                                               std::shared_ptr<StagingRings> staging) {
  return RowsUploader(source, key, threads, std::move(staging)).run();
}

}  // namespace snapml::cuda::primal
