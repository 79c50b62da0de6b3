#include "snapml/cuda/stream_plan.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "snapml/error.h"

namespace snapml::cuda {
namespace {

std::uint64_t weight_vector_bytes(std::int32_t n_features) {
  // v, the start weights and the certificate's w(alpha^v)
  return 3 * sizeof(double) * (static_cast<std::uint64_t>(n_features) + 1);
}

}  // namespace

std::string bytes_text(std::uint64_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes >= (std::uint64_t{1} << 20)) {
    char mib[48];
    std::snprintf(mib, sizeof mib, " (%.1f MiB)", static_cast<double>(bytes) / (1024.0 * 1024.0));
    text += mib;
  }
  return text;
}

ChunkLayout chunk_layout(const ChunkShape& shape) {
  require(shape.n_rows >= 0 && shape.nnz >= 0, "a chunk with " + std::to_string(shape.n_rows) + " rows and " +
                                                   std::to_string(shape.nnz) + " non-zeros has no layout");
  ChunkLayout layout;
  layout.offsets_at = 0;
  layout.indices_at = sizeof(std::int64_t) * (static_cast<std::uint64_t>(shape.n_rows) + 1);
  layout.values_at = layout.indices_at + sizeof(std::int32_t) * static_cast<std::uint64_t>(shape.nnz);
  layout.bytes = layout.values_at + sizeof(float) * static_cast<std::uint64_t>(shape.nnz);
  return layout;
}

std::uint64_t device_chunk_bytes(const ChunkShape& shape) { return chunk_layout(shape).bytes; }

DeviceMemoryNeeds device_memory_needs(const std::vector<ChunkShape>& chunks, std::int32_t n_features,
                                      bool several_workers) {
  DeviceMemoryNeeds needs;
  std::uint64_t rows = 0;
  for (const ChunkShape& chunk : chunks) {
    needs.chunk_bytes.push_back(device_chunk_bytes(chunk));
    rows += static_cast<std::uint64_t>(chunk.n_rows);
  }
  needs.row_state_bytes = row_state_bytes(several_workers) * rows;
  needs.weight_bytes = weight_vector_bytes(n_features);
  needs.partials_bytes = kObjectivePartialsBytes * chunks.size();
  return needs;
}

std::uint64_t resident_device_bytes(std::int64_t n_rows, std::int64_t nnz, std::size_t n_chunks,
                                    std::int32_t n_features, bool several_workers) {
  const auto rows = static_cast<std::uint64_t>(n_rows);
  const std::uint64_t chunks = 8 * (rows + n_chunks) + 8 * static_cast<std::uint64_t>(nnz);
  return chunks + row_state_bytes(several_workers) * rows + weight_vector_bytes(n_features) + kObjectivePartialsBytes * n_chunks;
}

std::size_t DeviceMemoryPlan::resident_chunks() const {
  return static_cast<std::size_t>(std::count(resident.begin(), resident.end(), true));
}

DeviceMemoryPlan plan_device_memory(const DeviceMemoryNeeds& needs, std::uint64_t budget) {
  DeviceMemoryPlan plan;
  const std::size_t n = needs.chunk_bytes.size();
  const std::uint64_t fixed = needs.fixed_bytes();
  std::uint64_t all_chunks = 0;
  std::uint64_t largest = 0;
  for (const std::uint64_t bytes : needs.chunk_bytes) {
    all_chunks += bytes;
    largest = std::max(largest, bytes);
  }
  if (budget == 0 || fixed + all_chunks <= budget) {
    plan.resident.assign(n, true);
    plan.device_bytes = fixed + all_chunks;
    return plan;
  }

  const std::uint64_t minimum = fixed + kRingSlots * largest;
  if (minimum > budget)
    throw InvalidArgument(
        "max_gpu_memory " + bytes_text(budget) + " is too small to stream the data through the GPU: " +
        "the per-row state (" + bytes_text(needs.row_state_bytes) + ", " + std::to_string(kRowStateBytes) +
        " a row), the weights and objective partials (" + bytes_text(needs.weight_bytes + needs.partials_bytes) +
        ") and " + std::to_string(kRingSlots) + " ring slots of the largest chunk (" + bytes_text(largest) +
        " each) need " + bytes_text(minimum) +
        "; raise max_gpu_memory (--max-gpu-memory) to at least that, or cut the data into smaller chunks "
        "(snap-convert --chunk-rows N)");

  plan.streamed = true;
  plan.slots = kRingSlots;
  plan.slot_bytes = largest;
  plan.resident.assign(n, false);
  std::uint64_t left = budget - minimum;
  std::uint64_t kept = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (needs.chunk_bytes[c] > left) continue;
    plan.resident[c] = true;
    left -= needs.chunk_bytes[c];
    kept += needs.chunk_bytes[c];
  }
  plan.device_bytes = minimum + kept;
  plan.streamed_bytes_per_pass = all_chunks - kept;
  return plan;
}

}  // namespace snapml::cuda
