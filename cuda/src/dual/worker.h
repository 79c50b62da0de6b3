// One CoCoA+ worker of the GPU dual solver: a device and its row range (resident
// or streamed chunks, the session's: gpu_devices.h) and the per-row and per-weight
// state of one problem on that device.
#pragma once

#include <cstdint>
#include <vector>

#include "device/gpu_devices.h"
#include "dual/kernels.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/permutation.h"

namespace snapml::cuda::dual {

struct Worker {
  explicit Worker(detail::DeviceRows& device) : resources(device.resources), chunks(device.chunks) {}

  std::int64_t n_rows() const { return chunks.n_rows(); }
  cudaStream_t stream() const { return resources.compute_stream(); }
  RowArrays arrays() {
    return {state.data(), margin.data(), direction.data(), product.data(), weight.data(), paired.data(), best.data()};
  }
  RowArrays arrays(std::size_t chunk) { return arrays().at(chunks.first_row(chunk)); }

  DeviceResources& resources;
  detail::DeviceChunks& chunks;
  std::uint64_t id = 0;                   // over all ranks: keys this worker's permutations
  std::vector<RowState> host_rows;        // target and cost (prepare), curvature (the hot split)
  std::vector<std::int64_t> in_flight;    // per chunk: R, the cold pass's grid
  DeviceBuffer<RowState> state;
  DeviceBuffer<double> margin, direction, product, weight, paired, best;
  DeviceBuffer<double> round_alpha;       // alpha at the round's start; several workers only
  DeviceBuffer<double> v;                 // this worker's copy of w, n_features + 1
  DeviceBuffer<double> paired_weights;    // w(alpha^v), n_features + 1
  DeviceBuffer<std::int32_t> slot;        // per column: its hot slot or -1
  DeviceBuffer<std::int32_t> columns;     // slot -> column
  DeviceBuffer<double> hot[4];            // n_hot each: three sums of a pass, and a vector sent to it
  DeviceBuffer<double> partials;          // kRowBlocks x kRowValues per chunk (at least one)
};

// The chunk index permutation_key reserves for an epoch's chunk order (chunk c's
// rows use c): its (chunk + 1) term wraps to 0, which no real chunk gives.
inline constexpr std::uint64_t kChunkOrderKey = ~std::uint64_t{0};

// The chunks in epoch `epoch`'s order: shuffled per (seed, worker, epoch) where the
// chunks allow it (device_chunks.h).
inline std::vector<std::size_t> epoch_chunk_order(const Worker& worker, std::uint64_t seed, int epoch) {
  return worker.chunks.epoch_order(permutation_key(seed, worker.id, static_cast<std::uint64_t>(epoch), kChunkOrderKey));
}

}  // namespace snapml::cuda::dual
