#include "snapml/cuda/spmv.h"

#include <algorithm>
#include <string>

#include "snapml/cuda/check.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace {

// out[i] = offsets[first_row + i] - offsets[first_row] for i in [0, count): one row
// block's 64-bit offsets made relative to its first non-zero, in 32 bits.
__global__ void rebase_offsets(const std::int64_t* __restrict__ offsets, std::int64_t first_row,
                               std::int64_t count, std::int32_t* __restrict__ out) {
  const std::int64_t base = offsets[first_row];
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < count;
       i += std::int64_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<std::int32_t>(offsets[first_row + i] - base);
}

// The two dense-vector descriptors of one multiply, destroyed on every path out.
struct DenseVectors {
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  DenseVectors(std::int64_t x_size, const float* x_values, std::int64_t y_size, float* y_values) {
    SNAPML_CUDA_CHECK(cusparseCreateConstDnVec(&x, x_size, x_values, CUDA_R_32F));
    SNAPML_CUDA_CHECK(cusparseCreateDnVec(&y, y_size, y_values, CUDA_R_32F));
  }
  ~DenseVectors() {
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
  }
  DenseVectors(const DenseVectors&) = delete;
  DenseVectors& operator=(const DenseVectors&) = delete;
};

}  // namespace

std::vector<std::int64_t> split_rows_by_nnz(const std::int64_t* row_offsets, std::int64_t n_rows,
                                            std::int64_t max_block_nnz) {
  require(max_block_nnz > 0, "max_block_nnz must be positive, got " + std::to_string(max_block_nnz));
  std::vector<std::int64_t> boundaries{0};
  const std::int64_t* end = row_offsets + n_rows + 1;
  for (std::int64_t first = 0; first < n_rows;) {
    // The last row boundary whose offset stays within max_block_nnz of the block's start.
    const std::int64_t limit = row_offsets[first] + max_block_nnz;
    std::int64_t next = (std::upper_bound(row_offsets + first + 1, end, limit) - row_offsets) - 1;
    if (next == first) next = first + 1;  // one row longer than the limit: a block of its own
    boundaries.push_back(next);
    first = next;
  }
  return boundaries;
}

CsrSpmv::CsrSpmv(const DeviceCsr& matrix, DeviceResources& resources, std::int64_t max_block_nnz)
    : matrix_(matrix), resources_(resources) {
  require(matrix.device_id() == resources.device_id(),
          "CsrSpmv: the matrix lives on device " + std::to_string(matrix.device_id()) +
              " but the resources are for device " + std::to_string(resources.device_id()));
  // Without non-zeros there is nothing for cuSPARSE to do: multiply() writes zeros.
  if (matrix.nnz() == 0) return;
  DeviceGuard guard(resources.device_id());
  const CsrView& x = matrix.view();
  const cudaStream_t stream = resources.compute_stream();

  // One block unless the chunk is too large for 32-bit offsets; only then are the
  // offsets brought back to find the cut points.
  std::vector<std::int64_t> boundaries{0, x.n_rows};
  std::vector<std::int64_t> host_offsets;
  if (matrix.nnz() > max_block_nnz) {
    host_offsets.resize(static_cast<std::size_t>(x.n_rows) + 1);
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(host_offsets.data(), x.row_offsets,
                                      host_offsets.size() * sizeof(std::int64_t),
                                      cudaMemcpyDeviceToHost, stream));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));
    boundaries = split_rows_by_nnz(host_offsets.data(), x.n_rows, max_block_nnz);
  }

  const std::size_t n_blocks = boundaries.size() - 1;
  offsets32_ = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(x.n_rows) + n_blocks);
  try {
    std::int64_t first_offset = 0;
    for (std::size_t b = 0; b < n_blocks; ++b) {
      Block block;
      block.first_row = boundaries[b];
      block.n_rows = boundaries[b + 1] - boundaries[b];
      block.first_offset = first_offset;
      if (host_offsets.empty()) {
        block.first_nnz = 0;
        block.nnz = matrix.nnz();
      } else {
        block.first_nnz = host_offsets[block.first_row];
        block.nnz = host_offsets[block.first_row + block.n_rows] - block.first_nnz;
      }
      if (block.nnz > kMaxBlockNnz)
        throw InvalidArgument("row " + std::to_string(block.first_row) + " of the chunk has " +
                              std::to_string(block.nnz) +
                              " non-zeros, more than 32-bit offsets can address");
      const std::int64_t count = block.n_rows + 1;
      const int threads = 256;
      const int grid = static_cast<int>(std::min<std::int64_t>((count + threads - 1) / threads, 4096));
      rebase_offsets<<<grid, threads, 0, stream>>>(x.row_offsets, block.first_row, count,
                                                    offsets32_.data() + first_offset);
      SNAPML_CUDA_CHECK(cudaGetLastError());
      SNAPML_CUDA_CHECK(cusparseCreateConstCsr(
          &block.descriptor, block.n_rows, x.n_features, block.nnz, offsets32_.data() + first_offset,
          x.col_indices + block.first_nnz, x.values + block.first_nnz, CUSPARSE_INDEX_32I,
          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
      blocks_.push_back(block);
      first_offset += count;
    }
  } catch (...) {
    release();
    throw;
  }
}

CsrSpmv::~CsrSpmv() { release(); }

void CsrSpmv::release() noexcept {
  for (Block& block : blocks_)
    if (block.descriptor) cusparseDestroySpMat(block.descriptor);
  blocks_.clear();
}

void CsrSpmv::multiply(const float* w, float* y) {
  DeviceGuard guard(resources_.device_id());
  const cudaStream_t stream = resources_.compute_stream();
  if (blocks_.empty()) {
    if (matrix_.n_rows() > 0)
      SNAPML_CUDA_CHECK(cudaMemsetAsync(y, 0, matrix_.n_rows() * sizeof(float), stream));
    return;
  }
  const float one = 1.0f;
  const float zero = 0.0f;
  const cusparseHandle_t handle = resources_.cusparse();
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const cusparseSpMVAlg_t algorithm = CUSPARSE_SPMV_ALG_DEFAULT;

  // Size the shared workspace for every block before queuing any multiply: replacing
  // it between blocks would free memory a queued multiply still uses.
  std::size_t workspace_bytes = 0;
  for (const Block& block : blocks_) {
    DenseVectors vectors(matrix_.n_features(), w, block.n_rows, y + block.first_row);
    std::size_t bytes = 0;
    SNAPML_CUDA_CHECK(cusparseSpMV_bufferSize(handle, op, &one, block.descriptor, vectors.x, &zero,
                                              vectors.y, CUDA_R_32F, algorithm, &bytes));
    workspace_bytes = std::max(workspace_bytes, bytes);
  }
  if (workspace_bytes > workspace_.bytes()) {
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old workspace may be in use
    workspace_ = DeviceBuffer<std::byte>(workspace_bytes);
  }

  for (const Block& block : blocks_) {
    DenseVectors vectors(matrix_.n_features(), w, block.n_rows, y + block.first_row);
    SNAPML_CUDA_CHECK(cusparseSpMV(handle, op, &one, block.descriptor, vectors.x, &zero, vectors.y,
                                   CUDA_R_32F, algorithm, workspace_.data()));
  }
}

}  // namespace snapml::cuda
