// y = X w for a device-resident chunk through cuSPARSE's generic SpMV
// (cusparseSpMV, CUSPARSE_SPMV_ALG_DEFAULT, float32 in and out): what predictions use
// (the SDCA duality gap needs double margins; docs/gpu.md).
//
// Index widths: the chunk keeps 64-bit row offsets and 32-bit column indices
// (device_csr.h). cuSPARSE describes a CSR matrix with one index type for offsets and
// one for columns, and its documentation lists 32-bit and 64-bit indices for SpMV
// without promising the mixed pair, so this class does not rely on it. It cuts the
// chunk into row blocks of at most `max_block_nnz` (2^31 - 1) non-zeros and gives each
// block 32-bit offsets rebased to the block's first non-zero; the blocks share the
// chunk's column and value arrays. Cost: 4 bytes a row, once per chunk. A chunk under
// 2^31 non-zeros is one block. The alternative, 64-bit column indices, would cost 4
// more bytes per non-zero on every multiply.
#pragma once

#include <cusparse.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"

namespace snapml::cuda {

class CsrSpmv {
 public:
  static constexpr std::int64_t kMaxBlockNnz = std::numeric_limits<std::int32_t>::max();

  // Builds the row blocks and their cuSPARSE descriptors for `matrix`, which must
  // outlive this object. `max_block_nnz` below the default exists for tests, which
  // reach the multi-block path without 2^31 non-zeros; a single row longer than it
  // still forms its own block.
  CsrSpmv(const DeviceCsr& matrix, DeviceResources& resources,
          std::int64_t max_block_nnz = kMaxBlockNnz);
  ~CsrSpmv();
  CsrSpmv(const CsrSpmv&) = delete;
  CsrSpmv& operator=(const CsrSpmv&) = delete;

  // y[0 .. n_rows) = X w, with w of n_features entries; device pointers. Queued on the
  // compute stream; returns without waiting.
  void multiply(const float* w, float* y);

  std::size_t n_blocks() const { return blocks_.size(); }

 private:
  struct Block {
    std::int64_t first_row = 0;
    std::int64_t n_rows = 0;
    std::int64_t first_nnz = 0;
    std::int64_t nnz = 0;
    std::int64_t first_offset = 0;  // index of this block's offsets in offsets32_
    cusparseConstSpMatDescr_t descriptor = nullptr;
  };

  void release() noexcept;

  const DeviceCsr& matrix_;
  DeviceResources& resources_;
  std::vector<Block> blocks_;
  DeviceBuffer<std::int32_t> offsets32_;
  DeviceBuffer<std::byte> workspace_;
};

// Cuts rows [0, n_rows) into consecutive blocks of at most `max_block_nnz` non-zeros
// (a longer single row is a block of its own). Returns the block boundaries: first
// row of each block, then n_rows. Host code, exposed for tests.
std::vector<std::int64_t> split_rows_by_nnz(const std::int64_t* row_offsets, std::int64_t n_rows,
                                            std::int64_t max_block_nnz);

}  // namespace snapml::cuda
