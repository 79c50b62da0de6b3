#include "snapml/cuda/operations_plan.h"


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

std::int64_t part_entries(std::int64_t n_rows, std::int64_t nnz, double bias_value) {
  return nnz + (bias_value != 0.0 ? n_rows : 0);
}

OperationsBytes operations_bytes(std::int64_t n_rows, std::int64_t entries, std::size_t n_weights) {
  const auto rows = static_cast<std::uint64_t>(n_rows);
  const auto stored = static_cast<std::uint64_t>(entries);
  const auto weights = static_cast<std::uint64_t>(n_weights);
  constexpr std::uint64_t kEntry = sizeof(std::int32_t) + sizeof(double);
  OperationsBytes bytes;
  bytes.matrix = sizeof(std::int32_t) * (rows + 1) + kEntry * stored;
  bytes.transposed = sizeof(std::int32_t) * (weights + 1) + kEntry * stored;
  bytes.vectors = 2 * sizeof(double) * (rows + weights);
  return bytes;
}

void require_part_fits(int device_id, std::int64_t n_rows, std::int64_t entries, std::size_t n_weights,
                       std::uint64_t available, const std::string& limit) {
  const std::string part = "the primal Newton solver's rows for device " + std::to_string(device_id) + " (" +
                           std::to_string(n_rows) + " rows, " + std::to_string(entries) + " stored entries)";
  if (entries > kMaxPartEntries || n_rows > kMaxPartEntries)
    throw Unsupported(part + " exceed the " + std::to_string(kMaxPartEntries) +
                      " rows or entries one device holds (32-bit cuSPARSE indices); pass more device ids or train "
                      "on the CPU (without use_gpu)");
  const OperationsBytes bytes = operations_bytes(n_rows, entries, n_weights);
  if (bytes.total() > available)
    throw Unsupported(part + " need " + bytes_text(bytes.total()) + " (matrix " + bytes_text(bytes.matrix) +
                      ", its transposed copy " + bytes_text(bytes.transposed) + ", vectors " +
                      bytes_text(bytes.vectors) + ") but " + limit + " is " + bytes_text(available) +
                      "; the primal solver keeps every row on its device and does not stream: pass more device "
                      "ids, raise the limit, or train on the CPU (without use_gpu)");
}

}  // namespace snapml::cuda
