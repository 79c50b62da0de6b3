// What the GPU solver keeps across the problems of one train() call: each worker's
// device resources (streams, handles, pinned staging) and the rows uploaded to it
// (resident chunks, or the ring streamed chunks go through). One-vs-rest classes
// and a regularisation path train on the same rows, so a K-class GPU fit uploads
// the data once; only the per-problem state (targets, costs, dual variables, w)
// is the solver's own. faiss passes its GpuResources object in the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device_chunks.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/device_resources.h"

namespace snapml::cuda::detail {

// One CoCoA+ worker's device and its rows.
struct DeviceRows {
  explicit DeviceRows(int device_id) : resources(device_id), chunks(resources) {}
  DeviceResources resources;
  DeviceChunks chunks;  // after resources: its ring is freed while the streams live
};

// What the rows on the devices were uploaded from and how: a later problem reuses
// them only when all of it is the same.
struct UploadKey {
  std::uint64_t source = 0;  // ChunkSource::identity(): never an address a later source may reuse
  std::int64_t n_rows = 0;
  std::int64_t nnz = 0;
  std::size_t n_chunks = 0;
  std::int32_t n_features = 0;
  std::int64_t total_workers = 0;
  std::uint64_t max_gpu_memory = 0;
  bool operator==(const UploadKey& other) const {
    return source == other.source && n_rows == other.n_rows && nnz == other.nnz && n_chunks == other.n_chunks &&
           n_features == other.n_features && total_workers == other.total_workers &&
           max_gpu_memory == other.max_gpu_memory;
  }
};

class GpuDevices {
 public:
  explicit GpuDevices(std::vector<int> device_ids) : device_ids_(std::move(device_ids)) {}

  const std::vector<int>& device_ids() const { return device_ids_; }
  // Whether the workers hold the rows `key` names (uploaded by an earlier problem).
  bool holds(const UploadKey& key) const { return uploaded_ && key_ == key; }
  // Fresh workers, one per device id, with no rows: the next problem uploads.
  std::vector<std::unique_ptr<DeviceRows>>& reset() {
    uploaded_ = false;
    workers_.clear();
    for (const int device : device_ids_) workers_.push_back(std::make_unique<DeviceRows>(device));
    return workers_;
  }
  // The rows `key` names are on the devices now.
  void uploaded(const UploadKey& key) {
    key_ = key;
    uploaded_ = true;
    ++uploads_;
  }
  // How many times a problem uploaded rows (SolverSession::row_uploads).
  std::int64_t uploads() const { return uploads_; }
  std::vector<std::unique_ptr<DeviceRows>>& workers() { return workers_; }

 private:
  std::vector<int> device_ids_;
  std::vector<std::unique_ptr<DeviceRows>> workers_;
  UploadKey key_;
  bool uploaded_ = false;
  std::int64_t uploads_ = 0;
};

}  // namespace snapml::cuda::detail
