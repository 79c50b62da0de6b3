// The GPU session's share of the primal solver: the rows primal problems uploaded
// (primal/primal_rows.h), which a later problem over the same source reuses
// (one-vs-rest classes, a regularisation path, the folds of a -C search), as
// GpuDevices keeps the SDCA solver's (device/gpu_devices.h), and the pinned
// memory uploads stage through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/solver.h"

namespace snapml::cuda {
namespace primal {
class PrimalRows;
class StagingRings;
struct RowsKey;
}

namespace detail {

class PrimalRowsCache {
 public:
  // Keeps the rows of up to `row_sets` sources (at least 1): a session that trains
  // on one set of rows keeps 1, so the device holds one copy; a -C search over k
  // folds keeps k, one per fold's training rows.
  explicit PrimalRowsCache(std::size_t row_sets = 1) : row_sets_(row_sets < 1 ? 1 : row_sets) {}

  // The rows `key` names: kept ones when an earlier fit uploaded them, else
  // uploaded now from `source` with `threads` (the least recently used set freed
  // first when `row_sets` are kept; when the upload is refused as too large for
  // the device, Unsupported, the other kept sets are freed and it is tried once
  // more). Sets *uploaded, where given, to whether it uploaded.
  std::shared_ptr<primal::PrimalRows> rows_for(ChunkSource& source, const primal::RowsKey& key, int threads,
                                               bool* uploaded = nullptr);
  // The rows the last rows_for returned (null before the first).
  const std::shared_ptr<primal::PrimalRows>& current() const;
  // Uploads so far (SolverSession::row_uploads).
  std::int64_t uploads() const { return uploads_; }

  // The pinned rings uploads stage through (staging_ring.h): allocated by the
  // first upload, kept for the session's later uploads and targets. A test may
  // set smaller ones before the first upload.
  std::shared_ptr<primal::StagingRings> staging;

 private:
  std::size_t row_sets_;
  std::vector<std::shared_ptr<primal::PrimalRows>> sets_;  // most recently used first
  std::int64_t uploads_ = 0;
};

// The primal solver on `device_ids` whose fits look in `cache` first and leave
// their rows there: the device-resident Newton solver (primal/newton_gpu.h) for a
// scalar loss stepping by the trust region, the CPU solver's L-BFGS or Cholesky
// steps (and the multinomial loss) over the GPU matrix operations otherwise.
std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                             std::shared_ptr<PrimalRowsCache> cache);

}  // namespace detail
}  // namespace snapml::cuda
