// PrimalRows::upload: the host chunks straight into the layout the products use
// (primal_rows.h, operations_plan.h).
//
// Pass 1 reads the row lengths (host offsets only), cuts each part into tiles and
// refuses what does not fit. Pass 2 interleaves each tile's columns and values
// into {column, value} entries in a pinned slice with up to `threads` host
// threads while the other slice crosses the link (so the host's copy and the DMA
// overlap), and queues the tile's transposition on the device as soon as its
// rows are there: the sort of tile t runs while tile t + 1 is packed and copied.
// The long columns' plans need each tile's transposed offsets on the host, once,
// after the last tile.
#include <algorithm>
#include <cstring>
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

// Entries a pinned slice holds: 16 MiB, large enough that a copy runs at the
// link's rate.
constexpr std::int64_t kSliceEntries = std::int64_t{1} << 21;

// Two pinned slices on one device through which entries cross to the device.
// Entries appended for one destination accumulate in the open slice, which is
// sent (cudaMemcpyAsync on `stream`) when full or flushed; the host fills a slice
// only after the copy that last read it is done.
class EntryStager {
 public:
  EntryStager(int device_id, cudaStream_t stream, int threads) : device_id_(device_id), stream_(stream), threads_(threads) {
    DeviceGuard guard(device_id_);
    for (int s = 0; s < 2; ++s) {
      slices_[s] = std::make_unique<PinnedBuffer>(static_cast<std::size_t>(kSliceEntries) * sizeof(Entry));
      SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&free_[s], cudaEventDisableTiming));
    }
  }
  ~EntryStager() {
    DeviceGuard guard(device_id_);
    for (cudaEvent_t event : free_)
      if (event) {
        cudaEventSynchronize(event);
        cudaEventDestroy(event);
      }
  }
  EntryStager(const EntryStager&) = delete;
  EntryStager& operator=(const EntryStager&) = delete;

  // The next entries go to `destination` onwards (a new tile).
  void start(Entry* destination) {
    flush();
    destination_ = destination;
  }
  // Appends entries [first, first + count) of chunk x.
  void append(const CsrView& x, std::int64_t first, std::int64_t count) {
    while (count > 0) {
      const std::int64_t take = std::min(count, kSliceEntries - pending_);
      Entry* out = open_slice() + pending_;
      const std::int32_t* columns = x.col_indices + first;
      const float* values = x.values + first;
#if defined(_OPENMP)
#pragma omp parallel for num_threads(threads_) schedule(static) if (take >= (std::int64_t{1} << 18) && threads_ > 1)
#endif
      for (std::int64_t k = 0; k < take; ++k) out[k] = Entry{columns[k], values[k]};
      pending_ += take;
      first += take;
      count -= take;
      if (pending_ == kSliceEntries) flush();
    }
  }
  void flush() {
    if (pending_ == 0) return;
    DeviceGuard guard(device_id_);
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(destination_, open_slice(), static_cast<std::size_t>(pending_) * sizeof(Entry),
                                      cudaMemcpyHostToDevice, stream_));
    SNAPML_CUDA_CHECK(cudaEventRecord(free_[open_], stream_));
    destination_ += pending_;
    pending_ = 0;
    open_ ^= 1;
    SNAPML_CUDA_CHECK(cudaEventSynchronize(free_[open_]));  // its last copy has read it
  }

 private:
  Entry* open_slice() { return static_cast<Entry*>(slices_[open_]->data()); }

  int device_id_;
  cudaStream_t stream_;
  int threads_;
  std::unique_ptr<PinnedBuffer> slices_[2];
  cudaEvent_t free_[2] = {nullptr, nullptr};
  int open_ = 0;
  std::int64_t pending_ = 0;
  Entry* destination_ = nullptr;
};

int host_threads(int threads) {
#if defined(_OPENMP)
  const int available = threads > 0 ? threads : omp_get_max_threads();
  return std::max(1, std::min(available, 16));  // beyond that, host memory bandwidth is spent
#else
  (void)threads;
  return 1;
#endif
}

}  // namespace

class RowsUploader {
 public:
  RowsUploader(ChunkSource& source, const RowsKey& key, int threads)
      : source_(source), key_(key), threads_(host_threads(threads)) {}

  std::shared_ptr<PrimalRows> run();

 private:
  using Visit = std::function<void(std::size_t part, const CsrView& x, std::int64_t begin, std::int64_t end)>;
  // Calls visit(part, chunk, begin, end) for each part's rows [begin, end) of each chunk, in row order.
  void for_each_piece(const Visit& visit);
  void check_budget(const std::vector<std::vector<Tile>>& tiles);
  void allocate(std::size_t k, const std::vector<Tile>& tiles);
  void plan_columns_of(Part& part);

  ChunkSource& source_;
  RowsKey key_;
  int threads_;
  std::shared_ptr<PrimalRows> rows_;
  std::vector<std::int64_t> bounds_;
};

void RowsUploader::for_each_piece(const Visit& visit) {
  std::int64_t offset = 0;
  const std::size_t n_parts = bounds_.size() - 1;
  detail::for_each_host_chunk(source_, [&](const CsrView& x) {
    for (std::size_t k = 0; k < n_parts; ++k) {
      const std::int64_t begin = std::max(bounds_[k], offset) - offset;
      const std::int64_t end = std::min(bounds_[k + 1], offset + x.n_rows) - offset;
      if (begin < end) visit(k, x, begin, end);
    }
    offset += x.n_rows;
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

// The long columns' plan of each tile (operations_plan.h, plan_columns) from its
// transposed offsets, and the pieces' partials for the largest plan.
void RowsUploader::plan_columns_of(Part& part) {
  DeviceGuard guard(part.device_id);
  const std::size_t width = rows_->n_weights_;
  std::vector<std::int32_t> offsets(width + 1);
  std::size_t most_pieces = 1;
  for (TileData& tile : part.tiles) {
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(offsets.data(), tile.t_offsets.data(), offsets.size() * sizeof(std::int32_t),
                                      cudaMemcpyDeviceToHost, part.stream()));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(part.stream()));
    require(offsets[width] == tile.shape.items(key_.intercept),
            "the transposition of a tile of " + std::to_string(tile.shape.n_rows) + " rows left " +
                std::to_string(offsets[width]) + " entries, not " +
                std::to_string(tile.shape.items(key_.intercept)));
    const ColumnPlan plan = plan_columns(offsets.data(), static_cast<std::int64_t>(width));
    std::vector<std::int32_t> packed(plan.long_columns);
    packed.insert(packed.end(), plan.first_piece.begin(), plan.first_piece.end());
    packed.insert(packed.end(), plan.piece_begin.begin(), plan.piece_begin.end());
    packed.insert(packed.end(), plan.piece_end.begin(), plan.piece_end.end());
    tile.plan = DeviceBuffer<std::int32_t>(packed.size());
    tile.plan.copy_from_host(packed.data(), packed.size(), part.stream());
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(part.stream()));  // before `packed` goes
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
    most_pieces = std::max(most_pieces, static_cast<std::size_t>(n_pieces));
  }
  part.piece_partials = DeviceBuffer<double>(2 * most_pieces);
}

std::shared_ptr<PrimalRows> RowsUploader::run() {
  const std::int32_t n_features = key_.rows.n_features;
  require(source_.n_features() <= n_features, "the primal solver's rows: n_features " + std::to_string(n_features) +
                                                  " is below the source's " + std::to_string(source_.n_features()));
  require(n_features < std::numeric_limits<std::int32_t>::max() - 1,
          "the GPU primal solver indexes n_features + 1 columns in 32 bits");
  require(!key_.device_ids.empty() && key_.device_ids.size() <= kMaxParts,
          "the GPU primal solver takes 1 to " + std::to_string(kMaxParts) + " device ids, got " +
              std::to_string(key_.device_ids.size()));
  for (const int device : key_.device_ids) require_gpu(device);

  rows_ = std::shared_ptr<PrimalRows>(new PrimalRows());
  rows_->key_ = key_;
  rows_->n_rows_ = source_.n_rows();
  rows_->n_weights_ = static_cast<std::size_t>(n_features) + 1;
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

  rows_->master_ = std::make_unique<DeviceResources>(key_.device_ids[0]);
  {
    DeviceGuard guard(key_.device_ids[0]);
    rows_->master_sums_ = std::make_unique<StreamSums>(rows_->master_stream());
    SNAPML_CUDA_CHECK(cudaEventCreateWithFlags(&rows_->fork_, cudaEventDisableTiming));
  }
  rows_->incoming_a_.resize(n_parts);
  rows_->incoming_b_.resize(n_parts);
  for (std::size_t k = 0; k < n_parts; ++k)
    if (!tiles[k].empty()) allocate(k, tiles[k]);
  if (rows_->parts_.empty()) {  // no rows on this rank: its products are zeros
    DeviceGuard guard(key_.device_ids[0]);
    rows_->zeros_ = DeviceBuffer<double>(rows_->n_weights_);
    rows_->zeros_.fill_bytes(0, rows_->master_stream());
  }

  // The transposition's scratch of each part, for its largest tile.
  struct Scratch {
    DeviceBuffer<std::uint32_t> keys_in, keys_out;
    DeviceBuffer<std::uint64_t> values_in;
    DeviceBuffer<std::byte> temp;
    TransposeScratch view;
  };
  std::vector<Scratch> scratch(rows_->parts_.size());
  std::vector<std::unique_ptr<EntryStager>> stagers;
  std::vector<std::size_t> part_of(n_parts, rows_->parts_.size());  // boundary index -> parts_ index
  for (std::size_t p = 0, k = 0; k < n_parts; ++k)
    if (!tiles[k].empty()) part_of[k] = p++;
  for (std::size_t p = 0; p < rows_->parts_.size(); ++p) {
    Part& part = *rows_->parts_[p];
    DeviceGuard guard(part.device_id);
    std::int64_t largest = 0;
    for (const TileData& tile : part.tiles) largest = std::max(largest, tile.shape.items(key_.intercept));
    Scratch& s = scratch[p];
    s.keys_in = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(largest));
    s.keys_out = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(largest));
    s.values_in = DeviceBuffer<std::uint64_t>(static_cast<std::size_t>(largest));
    const std::size_t temp_bytes = transpose_temp_bytes(largest, static_cast<std::int32_t>(rows_->n_weights_));
    s.temp = DeviceBuffer<std::byte>(std::max<std::size_t>(temp_bytes, 1));
    s.view = {s.keys_in.data(), s.keys_out.data(), s.values_in.data(), s.temp.data(), temp_bytes};
    stagers.push_back(std::make_unique<EntryStager>(part.device_id, part.resources->copy_stream(), threads_));
  }

  // Pass 2: each part's tiles, row by row, and each tile's transposition when its rows are in.
  struct Cursor {
    std::size_t tile = 0;
    std::int64_t rows = 0;     // of the open tile written
    std::int64_t entries = 0;  // of the open tile written
    std::vector<std::int32_t> offsets;
  };
  std::vector<Cursor> cursors(rows_->parts_.size());
  auto finish_tile = [&](std::size_t p) {
    Part& part = *rows_->parts_[p];
    Cursor& cursor = cursors[p];
    TileData& tile = part.tiles[cursor.tile];
    require(cursor.entries == tile.shape.nnz, "the chunk source returned other rows than its first pass counted");
    cursor.offsets.push_back(static_cast<std::int32_t>(cursor.entries));
    DeviceGuard guard(part.device_id);
    stagers[p]->flush();
    // Queued after the entries on the copy stream; the compute stream waits for both.
    part.resources->upload(tile.offsets.data(), cursor.offsets.data(), cursor.offsets.size() * sizeof(std::int32_t));
    launch_transpose(tile.rows, tile.shape.nnz, key_.intercept, rows_->intercept_index(),
                     static_cast<std::int32_t>(rows_->n_weights_), scratch[p].view, tile.t_offsets.data(),
                     tile.t_entries.data(), part.stream());
    ++cursor.tile;
    cursor.rows = cursor.entries = 0;
    cursor.offsets.clear();
    if (cursor.tile < part.tiles.size()) stagers[p]->start(part.tiles[cursor.tile].entries.data());
  };
  for (std::size_t p = 0; p < rows_->parts_.size(); ++p) stagers[p]->start(rows_->parts_[p]->tiles[0].entries.data());
  for_each_piece([&](std::size_t k, const CsrView& x, std::int64_t begin, std::int64_t end) {
    const std::size_t p = part_of[k];
    Part& part = *rows_->parts_[p];
    Cursor& cursor = cursors[p];
    while (begin < end) {
      require(cursor.tile < part.tiles.size(), "the chunk source returned more rows than its first pass counted");
      const Tile& shape = part.tiles[cursor.tile].shape;
      const std::int64_t take = std::min(end - begin, shape.n_rows - cursor.rows);
      const std::int64_t base = x.row_offsets[begin];
      for (std::int64_t row = begin; row < begin + take; ++row)
        cursor.offsets.push_back(static_cast<std::int32_t>(cursor.entries + x.row_offsets[row] - base));
      const std::int64_t count = x.row_offsets[begin + take] - base;
      require(cursor.entries + count <= shape.nnz, "the chunk source returned more non-zeros than its first pass counted");
      stagers[p]->append(x, base, count);
      cursor.entries += count;
      cursor.rows += take;
      begin += take;
      if (cursor.rows == shape.n_rows) finish_tile(p);
    }
  });
  for (std::size_t p = 0; p < rows_->parts_.size(); ++p) {
    require(cursors[p].tile == rows_->parts_[p]->tiles.size(),
            "the chunk source returned fewer rows than its first pass counted");
    rows_->parts_[p]->resources->synchronize();  // the transpositions are done with the scratch
  }
  stagers.clear();
  scratch.clear();
  for (auto& part : rows_->parts_) plan_columns_of(*part);
  return std::move(rows_);
}

std::shared_ptr<PrimalRows> PrimalRows::upload(ChunkSource& source, const RowsKey& key, int threads) {
  return RowsUploader(source, key, threads).run();
}

}  // namespace snapml::cuda::primal
