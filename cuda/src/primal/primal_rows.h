// The rows of the GPU Newton solver on their devices, and the products over them
// (docs/gpu.md, "Primal Newton on the GPU"). One object per uploaded source, kept
// by the GPU session between the problems of a train() call (primal_rows_cache.h,
// PrimalRowsCache): the problems share the rows and the per-row buffers; each
// problem sets its own targets and costs.
//
// Layout (snapml/cuda/operations_plan.h has the bytes): the rows are cut into
// parts, one per device id, and each part into tiles; each tile holds its rows as
// CSR and as the CSR of X^T (kernels.h). A part keeps per row the target y, the
// cost C, the loss's derivative and curvature (C loss', C loss'') at the current
// point and at the trial point, and u (a product's row vector). The first device
// id is the master: its stream runs the weight-sized sweeps (the solver's), the
// part that starts at row 0 shares that stream, and every other part runs on a
// stream of its own (on its device, or a second stream of the same device for
// device_ids = [0, 0]).
//
// A product over the parts: fork(v) copies the master's weight-sized input v into
// every other part's input and makes their streams wait for the master; each part
// runs its tiles on its stream; join() copies every other part's weight-sized
// outputs to the master and makes the master wait (between distinct devices by
// NCCL's send and receive where it loads, else peer copies: peer_transfers.h);
// raw_a() / raw_b() then name the parts' outputs in part order for a sweep to add up
// (kernels.h, PartSums). Only scalars and, under MPI, the summed weight-sized
// outputs cross the host.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../device/gpu_devices.h"
#include "../device/peer_transfers.h"
#include "kernels/kernels.h"
#include "staging_ring.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/operations_plan.h"
#include "snapml/impl/objectives.h"

namespace snapml::cuda::primal {

// What names uploaded rows: a later fit over the same source, features, devices
// and budget (the SDCA session's key), with or without the intercept's column,
// reuses them. The intercept's value is the fit's (the products scale its column).
struct RowsKey {
  detail::UploadKey rows;
  bool intercept = false;
  std::vector<int> device_ids;
  TileLimits tiles;
  bool operator==(const RowsKey& o) const {
    return rows == o.rows && intercept == o.intercept && device_ids == o.device_ids && tiles == o.tiles;
  }
};

// The key of `source`'s rows as the primal solver uploads them: the source's
// identity and counts, the global feature count, whether the intercept's column
// is there, the devices, the budget and the tiles.
RowsKey key_of(ChunkSource& source, std::int32_t n_features, bool intercept, std::vector<int> device_ids,
               std::uint64_t max_gpu_memory, TileLimits tiles = {});

// Pinned host memory, freed on destruction.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The result slots of the kernels that sum, on one stream.
enum Slot : int {
  kLoss = 0,  // margin pass: sum C_i loss_i, then the paired dual values' sum
  kDual,
  kGradientSquared,  // gradient epilogue: ||g||^2, ||w - g||^2, g.M^-1.g
  kDualWeightsSquared,
  kGradientByM,
  kCurvature,  // Hessian epilogue: d.Hd
  kCgZr,       // CG's start: r.M^-1.r, d.M.d
  kCgDd,
  kCgZrNext,  // CG's advance: r'.M^-1.r', r'.r', then s.M.d', d'.M.d'
  kCgRrNext,
  kCgSd,
  kCgDdNext,
  kTrialGs,  // trial point: g.s, s.r, s.M.s, sum r_j trial_j^2
  kTrialSr,
  kTrialSms,
  kTrialPenalty,
  kPenalty,  // sum r_j w_j^2
  kSlots
};

// One stream's reduction workspace and result slots (kernels.h, Reduction).
class StreamSums {
 public:
  explicit StreamSums(cudaStream_t stream);  // on the current device, its counter zeroed on `stream`
  Reduction at(Slot slot);
  // Copies slots [first, first + count) to the host after the stream's work; waits.
  const double* fetch(cudaStream_t stream, Slot first, int count);

 private:
  DeviceBuffer<double> partials_;
  DeviceBuffer<unsigned int> counter_;
  DeviceBuffer<double> slots_;
  PinnedBuffer host_;
};

// Host threads for packing the staged copies: `threads` (0: OpenMP's default),
// at most 16 (beyond that the host's memory bandwidth is spent).
int host_threads(int threads);

struct TileData {
  Tile shape;
  DeviceBuffer<std::int32_t> offsets;
  DeviceBuffer<Entry> entries;
  DeviceBuffer<std::int32_t> t_offsets;
  DeviceBuffer<Entry> t_entries;
  DeviceBuffer<std::int32_t> plan;  // the ColumnPlan's arrays, one after the other
  RowTile rows;
  ColumnTile columns;
};

struct Part {
  int device_id = 0;
  bool shares_master = false;  // runs on the master's stream (the part that starts at row 0)
  std::unique_ptr<DeviceResources> own_resources;  // when not
  std::unique_ptr<StreamSums> own_sums;
  DeviceResources* resources = nullptr;
  StreamSums* sums = nullptr;
  std::int64_t first_row = 0;  // in this rank's rows
  std::int64_t n_rows = 0;
  std::vector<TileData> tiles;
  // Per row; `d`, `c` at the current point, `d_trial`, `c_trial` at the trial point
  // (with K classes: K entries a row each, and `c` holds the probabilities).
  DeviceBuffer<double> targets, costs, d, c, d_trial, c_trial, u;
  DeviceBuffer<double> input;         // weight-sized: the product's input, when not shares_master
  DeviceBuffer<double> raw_a, raw_b;  // weight-sized: this part's products
  DeviceBuffer<double> piece_partials;
  cudaEvent_t done = nullptr;    // recorded at join, when not shares_master
  cudaEvent_t copied = nullptr;  // recorded on the copy stream for the compute stream to wait on

  Part() = default;
  ~Part();
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;
  cudaStream_t stream() const { return resources->compute_stream(); }
  // Part-local row `row`'s entry in a per-row buffer.
  double* at(DeviceBuffer<double>& buffer, std::int64_t row) { return buffer.data() + row; }
};

// The part's compute stream waits for everything queued on its copy stream so far.
void wait_for_copies(Part& part);

class PrimalRows {
 public:
  // Uploads this rank's rows of `source` (rows_upload.cpp): the first host pass
  // counts each part's tiles and checks them against max_gpu_memory and the free
  // memory (require_part_fits), the second packs offsets and entries into the
  // pinned rings of `staging` (the session's; null: the upload's own) with up to
  // `threads` host threads, each tile's transposition runs on its device as soon
  // as its copies are queued, and the long columns' plans follow.
  static std::shared_ptr<PrimalRows> upload(ChunkSource& source, const RowsKey& key, int threads,
                                            std::shared_ptr<StagingRings> staging = nullptr);
  ~PrimalRows();
  PrimalRows(const PrimalRows&) = delete;
  PrimalRows& operator=(const PrimalRows&) = delete;

  const RowsKey& key() const { return key_; }
  std::int64_t n_rows() const { return n_rows_; }
  std::size_t n_weights() const { return n_weights_; }
  // The problem's classes K: 1 for a scalar loss, the multinomial loss's count
  // otherwise. Each per-row buffer but the targets and costs holds K entries a
  // row (row-major) and each weight-sized one n_weights x K (feature-major,
  // kernels.h's WeightSetup); the products below take the K-class kernels.
  // Reallocates what changes (checked against each device's free memory).
  void set_classes(int classes);
  int classes() const { return classes_; }
  std::size_t width() const { return n_weights_ * static_cast<std::size_t>(classes_); }
  std::int32_t intercept_index() const { return static_cast<std::int32_t>(n_weights_ - 1); }
  std::vector<std::unique_ptr<Part>>& parts() { return parts_; }
  DeviceResources& master() { return *master_; }
  cudaStream_t master_stream() const { return master_->compute_stream(); }
  StreamSums& master_sums() { return *master_sums_; }
  // Bytes one pass reads and writes, for the benchmark (gpu_tron_bench).
  std::int64_t stored_entries() const;     // CSR entries over all tiles
  std::int64_t transposed_entries() const;  // X^T entries over all tiles
  std::int64_t tiles() const;
  const UploadTimings& upload_timings() const { return upload_timings_; }

  // The problem's targets and costs (RowTargets of the labels and sample weights
  // in `source`, read again from the host chunks), uploaded to every part.
  void set_targets(ChunkSource& source, const RowTargets& targets);
  // The multinomial loss's: each row's class index among `classes` (sorted) as
  // its target, C x its class weight x its sample weight as its cost; a label
  // not among them is an InvalidArgument naming the row.
  void set_class_targets(ChunkSource& source, const std::vector<double>& classes,
                         const std::vector<double>& class_weights, double C);

  // Before the parts read master vector v (null: none): v to the other parts'
  // inputs; every part waits for the master's work so far.
  void fork(const double* v);
  // The input a part reads: v itself on the master's stream, else its copy.
  const double* input(Part& part, const double* v) { return part.shares_master || v == nullptr ? v : part.input.data(); }
  // After the parts' work: their raw_a (and raw_b) to the master; the master
  // waits for every part.
  void join(bool raw_a, bool raw_b);
  // The parts' raw_a / raw_b on the master device, in part order (a zero vector
  // when no part holds rows).
  PartSums raw_a() const;
  PartSums raw_b() const;

  // Per-row products of the parts over their tiles (the caller forks and joins).
  void margin_terms(const PrimalLoss& loss, const double* v, double intercept);  // into d_trial, c_trial, kLoss/kDual
  void curvature_rows(const double* v, double intercept);                      // u = c .* X v
  void row_dots(const double* v, double intercept);                            // u = X v
  void column_sums(ColumnSum kind, bool from_u);  // raw_a = X^T z (or squares), z = u or c; K classes: X^T u only
  void column_gradient();                         // raw_a = X^T d, raw_b = (X.^2)^T c (K classes: the diagonal's)
  // sum_i C_i loss_i and the dual values' sum over the parts (waits for them).
  void margin_sums(double& loss, double& dual);
  // The trial point's d and c become the current ones.
  void accept_trial();

  // Sums of the weight-sized products over the ranks of `communicator`: the
  // parts' sums (raw, in part order) to the host, the allreduce, and back; the
  // sums' PartSums. A single rank gets `raw` back.
  PartSums over_ranks(Communicator& communicator, const PartSums& raw, bool second);

  // Host <-> per-row vectors of this rank, in row order (up: through the staging
  // rings, and the parts' compute streams wait for the copies).
  void upload_rows(const double* host, DeviceBuffer<double> Part::*buffer);
  void download_rows(DeviceBuffer<double> Part::*buffer, double* host, int per_row = 1);

 private:
  PrimalRows() = default;
  friend class RowsUploader;
  // set_targets' work: target(label) and cost(target, sample weight) of each row
  // (defined and instantiated in primal_rows.cpp).
  template <typename Target, typename Cost>
  void fill_targets(ChunkSource& source, const Target& target, const Cost& cost);

  RowsKey key_;
  std::shared_ptr<StagingRings> staging_;
  int threads_ = 1;  // host threads packing staged copies
  UploadTimings upload_timings_;
  std::int64_t n_rows_ = 0;
  std::size_t n_weights_ = 0;
  int classes_ = 1;
  std::unique_ptr<DeviceResources> master_;
  std::unique_ptr<StreamSums> master_sums_;
  cudaEvent_t fork_ = nullptr;  // on the master device
  std::unique_ptr<PeerTransfers> transfers_;  // the fork's and join's copies between devices (made at the first)
  PeerTransfers& transfers();
  std::vector<std::unique_ptr<Part>> parts_;  // parts with rows, in row order
  // On the master: each other part's raw_a and raw_b (index: part), the sums over
  // ranks, and the zeros a part-less rank reads.
  std::vector<DeviceBuffer<double>> incoming_a_, incoming_b_;
  DeviceBuffer<double> ranks_a_, ranks_b_, zeros_;
};

}  // namespace snapml::cuda::primal
