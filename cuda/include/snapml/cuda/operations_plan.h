// What the GPU backend of the primal solver's matrix operations (tron_gpu.h) keeps
// on each device, counted as it allocates, and the rule that refuses what does not
// fit. Pure host arithmetic with no CUDA dependency, so CI tests it without a GPU
// (tests/gpu/test_operations_plan.cpp).
//
// Rows: the source's rows are cut into contiguous, equal row ranges, one per
// device id (as the GPU SDCA solver cuts them), each a "part" that one device
// holds in full for the whole fit:
//
//   matrix      4 (rows + 1) + 12 entries   CSR, int32 offsets and columns, double values
//   transposed  4 (n_weights + 1) + 12 entries   the same entries as CSR of X^T
//   vectors     16 rows + 16 n_weights   an input and an output of each length
//
// where entries = the part's non-zeros, plus one per row for the constant
// feature (the intercept's column, index n_features) when bias_value is not 0.
// Values are doubles: cuSPARSE's SpMV takes no float matrix with double vectors,
// and the products must equal the CPU's to 1e-10 (float values, double sums).
// cuSPARSE's SpMV workspaces and the transposition's scratch buffer (the
// library sizes them at run time) come on top; the device's free memory is
// checked again before each allocation.
//
// Data beyond a device: refused, never streamed. A Newton fit reads every row
// in each product (a gradient, every CG step), tens to hundreds of passes per
// fit; streamed over PCIe at about a tenth of device-memory bandwidth, each
// would cost ten times its resident time, and the CPU solver would win.
// (The SDCA solver streams: stream_plan.h.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace snapml::cuda {

// Rows and entries of one part at most: cuSPARSE's CSR-to-CSC conversion takes
// 32-bit offsets, indices and sizes.
inline constexpr std::int64_t kMaxPartEntries = std::numeric_limits<std::int32_t>::max();

// Part k of `parts` holds rows [b[k], b[k + 1]) of n_rows; returns b (parts + 1
// entries): shares within one row of equal, cut as the GPU SDCA solver cuts its
// workers' rows.
std::vector<std::int64_t> part_boundaries(std::int64_t n_rows, std::size_t parts);

// Stored entries of a part of `n_rows` rows and `nnz` non-zeros.
std::int64_t part_entries(std::int64_t n_rows, std::int64_t nnz, double bias_value);

struct OperationsBytes {
  std::uint64_t matrix = 0;
  std::uint64_t transposed = 0;
  std::uint64_t vectors = 0;
  std::uint64_t total() const { return matrix + transposed + vectors; }
};

// The bytes a part of `n_rows` rows and `entries` entries holds (above).
OperationsBytes operations_bytes(std::int64_t n_rows, std::int64_t entries, std::size_t n_weights);

// Throws Unsupported naming the rows, the entries and each kind of bytes when the
// part needs more than `available` (what `limit` names: "max_gpu_memory", "free
// memory"), or when its rows or entries exceed kMaxPartEntries; the message says what to
// do (more device ids, a larger budget, the CPU).
void require_part_fits(int device_id, std::int64_t n_rows, std::int64_t entries, std::size_t n_weights,
                       std::uint64_t available, const std::string& limit);

}  // namespace snapml::cuda
