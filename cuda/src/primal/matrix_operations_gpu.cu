// The GPU backend of the matrix-operations seam (snapml/cuda/tron_gpu.h explains
// the layout and the choice of a transposed copy; operations_plan.h the memory).
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "../device/device_chunks.h"
#include "../device/gpu_session.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/operations_plan.h"
#include "snapml/cuda/tron_gpu.h"
#include "snapml/error.h"
#include "tron_gpu.h"

namespace snapml::cuda {
namespace detail {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 4096;  // grid-stride loops cover the rest
// cuSPARSE documents CSR_ALG2 as bitwise repeatable run to run; ALG1 may not be.
constexpr cusparseSpMVAlg_t kSpmvAlgorithm = CUSPARSE_SPMV_CSR_ALG2;

int blocks_for(std::int64_t items) {
  return static_cast<int>(std::max<std::int64_t>(1, std::min(kMaxBlocks, (items + kThreads - 1) / kThreads)));
}

// u_i = c_i (x_i . v): the rows the Hessian product adds, with 0 where the
// curvature is 0 (the squared hinge's inactive rows; as the CPU skips them).
__global__ void scale_by_curvature(const double* __restrict__ curvature, double* __restrict__ u, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const double c = curvature[i];
    u[i] = c == 0.0 ? 0.0 : c * u[i];
  }
}

// out_j = sum_i c_i x_ij^2 over the transposed CSR's row j: one warp per row, each
// lane a fixed stride of entries, then a fixed shuffle tree (repeatable bits).
__global__ void squared_column_sums(const std::int32_t* __restrict__ offsets, const std::int32_t* __restrict__ rows,
                                    const double* __restrict__ values, const double* __restrict__ curvature,
                                    std::int64_t n_columns, double* __restrict__ out) {
  const unsigned lane = threadIdx.x % 32;
  const std::int64_t warps = std::int64_t{gridDim.x} * (blockDim.x / 32);
  for (std::int64_t j = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / 32; j < n_columns; j += warps) {
    double sum = 0.0;
    for (std::int64_t k = offsets[j] + lane; k < offsets[j + 1]; k += 32) sum += curvature[rows[k]] * values[k] * values[k];
    for (int shift = 16; shift > 0; shift /= 2) sum += __shfl_down_sync(0xffffffffu, sum, shift);
    if (lane == 0) out[j] = sum;
  }
}

}  // namespace

// What names the rows a fit uploads: a later fit over the same source, features,
// devices and budget (the SDCA session's key) and bias value reuses them.
struct PrimalRowsKey {
  UploadKey rows;
  double bias_value = 0.0;
  std::vector<int> device_ids;
  bool operator==(const PrimalRowsKey& o) const {
    return rows == o.rows && bias_value == o.bias_value && device_ids == o.device_ids;
  }
};

// One device's contiguous rows: CSR and transposed CSR with double values, the
// product vectors, and their cuSPARSE descriptors.
struct OperationsPart {
  OperationsPart(int device_id, std::int64_t first, std::int64_t rows, std::int64_t stored, std::size_t weights)
      : resources(device_id), first_row(first), n_rows(rows), entries(stored), n_weights(weights) {}
  ~OperationsPart() { release(); }
  OperationsPart(const OperationsPart&) = delete;
  OperationsPart& operator=(const OperationsPart&) = delete;

  void allocate();
  // Rows [begin, end) of host chunk x go after the rows already added.
  void add_rows(const CsrView& x, std::int64_t begin, std::int64_t end, std::int32_t n_features, double bias_value);
  // After the last add_rows: the transposed copy, the descriptors, the workspace.
  void finish();
  void release() noexcept;

  cudaStream_t stream() const { return resources.compute_stream(); }
  // y = A x on the compute stream.
  void multiply(cusparseConstSpMatDescr_t a, cusparseConstDnVecDescr_t x, cusparseDnVecDescr_t y);
  // out = A^T-side product into weight_out: X^T (row vector `x`), or zeros.
  void transposed_product(cusparseConstDnVecDescr_t x);

  DeviceResources resources;
  std::int64_t first_row;
  std::int64_t n_rows;
  std::int64_t entries;
  std::size_t n_weights;
  std::int64_t rows_added = 0;
  std::int64_t entries_added = 0;
  DeviceBuffer<std::int32_t> offsets, columns, t_offsets, t_rows;
  DeviceBuffer<double> values, t_values;
  DeviceBuffer<double> row_in, row_out, weight_in, weight_out;
  DeviceBuffer<std::byte> workspace;
  cusparseConstSpMatDescr_t matrix = nullptr;
  cusparseConstSpMatDescr_t transposed = nullptr;
  cusparseDnVecDescr_t row_in_vector = nullptr, row_out_vector = nullptr;
  cusparseDnVecDescr_t weight_in_vector = nullptr, weight_out_vector = nullptr;
  std::vector<double> host_weights;  // this part's n_weights-sized result
};

struct PrimalRows {
  PrimalRowsKey key;
  std::int64_t n_rows = 0;
  std::size_t n_weights = 0;
  std::vector<std::unique_ptr<OperationsPart>> parts;  // in row order; parts without rows left out
};

void OperationsPart::allocate() {
  DeviceGuard guard(resources.device_id());
  const auto rows = static_cast<std::size_t>(n_rows);
  const auto stored = static_cast<std::size_t>(entries);
  offsets = DeviceBuffer<std::int32_t>(rows + 1);
  columns = DeviceBuffer<std::int32_t>(stored);
  values = DeviceBuffer<double>(stored);
  t_offsets = DeviceBuffer<std::int32_t>(n_weights + 1);
  t_rows = DeviceBuffer<std::int32_t>(stored);
  t_values = DeviceBuffer<double>(stored);
  row_in = DeviceBuffer<double>(rows);
  row_out = DeviceBuffer<double>(rows);
  weight_in = DeviceBuffer<double>(n_weights);
  weight_out = DeviceBuffer<double>(n_weights);
  // The outputs start at 0, never as uninitialised bits: SpMV's beta is 0, and the
  // BLAS convention that y is then not read is not one cuSPARSE states for every
  // algorithm.
  row_out.fill_bytes(0, stream());
  weight_out.fill_bytes(0, stream());
  host_weights.assign(n_weights, 0.0);
}

void OperationsPart::add_rows(const CsrView& x, std::int64_t begin, std::int64_t end, std::int32_t n_features,
                              double bias_value) {
  std::vector<std::int32_t> row_starts;
  std::vector<std::int32_t> piece_columns;
  std::vector<double> piece_values;
  row_starts.reserve(static_cast<std::size_t>(end - begin));
  for (std::int64_t row = begin; row < end; ++row) {
    row_starts.push_back(static_cast<std::int32_t>(entries_added + static_cast<std::int64_t>(piece_columns.size())));
    for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
      piece_columns.push_back(x.col_indices[k]);
      piece_values.push_back(static_cast<double>(x.values[k]));
    }
    if (bias_value != 0.0) {
      piece_columns.push_back(n_features);
      piece_values.push_back(bias_value);
    }
  }
  const auto added = static_cast<std::int64_t>(piece_columns.size());
  require(rows_added + (end - begin) <= n_rows && entries_added + added <= entries,
          "the chunk source returned more rows or non-zeros than its first pass counted");
  DeviceGuard guard(resources.device_id());
  resources.upload(offsets.data() + rows_added, row_starts.data(), row_starts.size() * sizeof(std::int32_t));
  if (added > 0) {
    resources.upload(columns.data() + entries_added, piece_columns.data(), piece_columns.size() * sizeof(std::int32_t));
    resources.upload(values.data() + entries_added, piece_values.data(), piece_values.size() * sizeof(double));
  }
  rows_added += end - begin;
  entries_added += added;
}

void OperationsPart::finish() {
  require(rows_added == n_rows && entries_added == entries,
          "the chunk source returned fewer rows or non-zeros than its first pass counted");
  DeviceGuard guard(resources.device_id());
  const auto last = static_cast<std::int32_t>(entries);
  resources.upload(offsets.data() + n_rows, &last, sizeof last);
  const cusparseHandle_t handle = resources.cusparse();
  const auto rows = static_cast<std::int64_t>(n_rows);
  const auto weights = static_cast<std::int64_t>(n_weights);
  SNAPML_CUDA_CHECK(cusparseCreateDnVec(&row_in_vector, rows, row_in.data(), CUDA_R_64F));
  SNAPML_CUDA_CHECK(cusparseCreateDnVec(&row_out_vector, rows, row_out.data(), CUDA_R_64F));
  SNAPML_CUDA_CHECK(cusparseCreateDnVec(&weight_in_vector, weights, weight_in.data(), CUDA_R_64F));
  SNAPML_CUDA_CHECK(cusparseCreateDnVec(&weight_out_vector, weights, weight_out.data(), CUDA_R_64F));
  if (entries == 0) return;  // every product is zeros: no matrices

  // X^T as CSR (X as CSC), once: its rows' entries in row order of X.
  std::size_t scratch_bytes = 0;
  SNAPML_CUDA_CHECK(cusparseCsr2cscEx2_bufferSize(
      handle, static_cast<int>(n_rows), static_cast<int>(n_weights), static_cast<int>(entries), values.data(),
      offsets.data(), columns.data(), t_values.data(), t_offsets.data(), t_rows.data(), CUDA_R_64F,
      CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &scratch_bytes));
  {
    DeviceBuffer<std::byte> scratch(std::max<std::size_t>(scratch_bytes, 1));
    SNAPML_CUDA_CHECK(cusparseCsr2cscEx2(
        handle, static_cast<int>(n_rows), static_cast<int>(n_weights), static_cast<int>(entries), values.data(),
        offsets.data(), columns.data(), t_values.data(), t_offsets.data(), t_rows.data(), CUDA_R_64F,
        CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, scratch.data()));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream()));  // before the scratch is freed
  }
  SNAPML_CUDA_CHECK(cusparseCreateConstCsr(&matrix, rows, weights, entries, offsets.data(), columns.data(),
                                           values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  SNAPML_CUDA_CHECK(cusparseCreateConstCsr(&transposed, weights, rows, entries, t_offsets.data(), t_rows.data(),
                                           t_values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  // One workspace for the three products a fit makes.
  const double one = 1.0;
  const double zero = 0.0;
  std::size_t largest = 0;
  const std::pair<cusparseConstSpMatDescr_t, std::pair<cusparseDnVecDescr_t, cusparseDnVecDescr_t>> products[] = {
      {matrix, {weight_in_vector, row_out_vector}},
      {transposed, {row_in_vector, weight_out_vector}},
      {transposed, {row_out_vector, weight_out_vector}}};
  for (const auto& product : products) {
    std::size_t bytes = 0;
    SNAPML_CUDA_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, product.first,
                                              product.second.first, &zero, product.second.second, CUDA_R_64F,
                                              kSpmvAlgorithm, &bytes));
    largest = std::max(largest, bytes);
  }
  workspace = DeviceBuffer<std::byte>(std::max<std::size_t>(largest, 1));
}

void OperationsPart::release() noexcept {
  if (matrix) cusparseDestroySpMat(matrix);
  if (transposed) cusparseDestroySpMat(transposed);
  for (cusparseDnVecDescr_t vector : {row_in_vector, row_out_vector, weight_in_vector, weight_out_vector})
    if (vector) cusparseDestroyDnVec(vector);
  matrix = transposed = nullptr;
  row_in_vector = row_out_vector = weight_in_vector = weight_out_vector = nullptr;
}

void OperationsPart::multiply(cusparseConstSpMatDescr_t a, cusparseConstDnVecDescr_t x, cusparseDnVecDescr_t y) {
  const double one = 1.0;
  const double zero = 0.0;
  SNAPML_CUDA_CHECK(cusparseSpMV(resources.cusparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y,
                                 CUDA_R_64F, kSpmvAlgorithm, workspace.data()));
}

void OperationsPart::transposed_product(cusparseConstDnVecDescr_t x) {
  if (entries == 0)
    weight_out.fill_bytes(0, stream());
  else
    multiply(transposed, x, weight_out_vector);
}

namespace {

// Host pass 1 (non-zeros per part), the checks, the allocations, host pass 2
// (the uploads), the transposes.
std::shared_ptr<PrimalRows> upload_rows(ChunkSource& source, const PrimalRowsKey& key) {
  require(source.n_features() <= key.rows.n_features, "matrix operations: n_features " +
                                                     std::to_string(key.rows.n_features) + " is below the source's " +
                                                     std::to_string(source.n_features()));
  require(key.rows.n_features < std::numeric_limits<std::int32_t>::max(),
          "the GPU matrix operations index n_features + 1 columns in 32 bits");
  for (const int device : key.device_ids) require_gpu(device);
  auto rows = std::make_shared<PrimalRows>();
  rows->key = key;
  rows->n_rows = source.n_rows();
  rows->n_weights = static_cast<std::size_t>(key.rows.n_features) + 1;
  const std::vector<std::int64_t> bounds = part_boundaries(rows->n_rows, key.device_ids.size());
  const std::size_t n_parts = key.device_ids.size();

  // Calls visit(part, chunk, begin, end) for each part's rows [begin, end) of each chunk.
  auto for_each_piece = [&](const auto& visit) {
    std::int64_t offset = 0;
    for_each_host_chunk(source, [&](const CsrView& x) {
      for (std::size_t k = 0; k < n_parts; ++k) {
        const std::int64_t begin = std::max(bounds[k], offset) - offset;
        const std::int64_t end = std::min(bounds[k + 1], offset + x.n_rows) - offset;
        if (begin < end) visit(k, x, begin, end);
      }
      offset += x.n_rows;
    });
    require(offset == rows->n_rows, "the chunk source returned " + std::to_string(offset) +
                                        " rows, not its n_rows() (" + std::to_string(rows->n_rows) + ")");
  };
  std::vector<std::int64_t> nnz(n_parts, 0);
  for_each_piece([&](std::size_t k, const CsrView& x, std::int64_t begin, std::int64_t end) {
    nnz[k] += x.row_offsets[end] - x.row_offsets[begin];
  });

  std::map<int, std::uint64_t> budgeted;  // per device, against max_gpu_memory
  std::vector<OperationsPart*> part_of(n_parts, nullptr);
  for (std::size_t k = 0; k < n_parts; ++k) {
    const std::int64_t part_rows = bounds[k + 1] - bounds[k];
    if (part_rows == 0) continue;
    const int device = key.device_ids[k];
    const std::int64_t entries = part_entries(part_rows, nnz[k], key.bias_value);
    if (key.rows.max_gpu_memory > 0) {
      std::uint64_t& used = budgeted[device];
      require_part_fits(device, part_rows, entries, rows->n_weights,
                        key.rows.max_gpu_memory - std::min(used, key.rows.max_gpu_memory),
                        "what max_gpu_memory leaves on the device");
      used += operations_bytes(part_rows, entries, rows->n_weights).total();
    }
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    {
      DeviceGuard guard(device);
      SNAPML_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    }
    require_part_fits(device, part_rows, entries, rows->n_weights, free_bytes,
                      "the free memory of device " + std::to_string(device));
    rows->parts.push_back(std::make_unique<OperationsPart>(device, bounds[k], part_rows, entries, rows->n_weights));
    rows->parts.back()->allocate();
    part_of[k] = rows->parts.back().get();
  }
  for_each_piece([&](std::size_t k, const CsrView& x, std::int64_t begin, std::int64_t end) {
    part_of[k]->add_rows(x, begin, end, key.rows.n_features, key.bias_value);
  });
  for (auto& part : rows->parts) part->finish();
  return rows;
}

class GpuMatrixOperations final : public MatrixOperations {
 public:
  GpuMatrixOperations(ChunkSource& source, std::shared_ptr<PrimalRows> rows)
      : source_(source), rows_(std::move(rows)) {}

  std::int64_t n_rows() const override { return rows_->n_rows; }
  std::size_t n_weights() const override { return rows_->n_weights; }

  // From the host's chunks, as the CPU backend reads them: the device holds no labels.
  void rows(double* labels, double* sample_weights) override {
    std::int64_t offset = 0;
    for_each_host_chunk(source_, [&](const CsrView& x) {
      require(offset + x.n_rows <= rows_->n_rows, "the chunk source returned more rows than it counts");
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        labels[offset + row] = x.labels[row];
        sample_weights[offset + row] = x.weight(row);
      }
      offset += x.n_rows;
    });
    require(offset == rows_->n_rows, "the chunk source returned fewer rows than it counts");
  }

  void margins(const double* w, double* out) override {
    for (auto& part : rows_->parts) {
      DeviceGuard guard(part->resources.device_id());
      upload(*part, part->weight_in, w, rows_->n_weights);
      if (part->entries == 0)
        part->row_out.fill_bytes(0, part->stream());
      else
        part->multiply(part->matrix, part->weight_in_vector, part->row_out_vector);
    }
    for (auto& part : rows_->parts) download(*part, part->row_out, out + part->first_row, part->n_rows);
  }

  void transpose_times(const double* d, double* out) override {
    for (auto& part : rows_->parts) {
      DeviceGuard guard(part->resources.device_id());
      upload(*part, part->row_in, d + part->first_row, part->n_rows);
      part->transposed_product(part->row_in_vector);
    }
    sum_parts(out);
  }

  void hessian_product(const double* curvature, const double* v, double* out) override {
    for (auto& part : rows_->parts) {
      DeviceGuard guard(part->resources.device_id());
      if (part->entries > 0) {
        upload(*part, part->row_in, curvature + part->first_row, part->n_rows);
        upload(*part, part->weight_in, v, rows_->n_weights);
        part->multiply(part->matrix, part->weight_in_vector, part->row_out_vector);
        scale_by_curvature<<<blocks_for(part->n_rows), kThreads, 0, part->stream()>>>(
            part->row_in.data(), part->row_out.data(), part->n_rows);
        SNAPML_CUDA_CHECK(cudaGetLastError());
      }
      part->transposed_product(part->row_out_vector);
    }
    sum_parts(out);
  }

  void hessian_diagonal(const double* curvature, double* out) override {
    for (auto& part : rows_->parts) {
      DeviceGuard guard(part->resources.device_id());
      if (part->entries == 0) {
        part->weight_out.fill_bytes(0, part->stream());
        continue;
      }
      upload(*part, part->row_in, curvature + part->first_row, part->n_rows);
      const auto columns = static_cast<std::int64_t>(rows_->n_weights);
      squared_column_sums<<<blocks_for(columns * 32), kThreads, 0, part->stream()>>>(
          part->t_offsets.data(), part->t_rows.data(), part->t_values.data(), part->row_in.data(), columns,
          part->weight_out.data());
      SNAPML_CUDA_CHECK(cudaGetLastError());
    }
    sum_parts(out);
  }

 private:
  static void upload(OperationsPart& part, DeviceBuffer<double>& to, const double* from, std::int64_t count) {
    if (count > 0) part.resources.upload(to.data(), from, static_cast<std::size_t>(count) * sizeof(double));
  }
  // Waits for the part's queued work (a copy to pageable memory returns when done).
  static void download(OperationsPart& part, const DeviceBuffer<double>& from, double* to, std::int64_t count) {
    DeviceGuard guard(part.resources.device_id());
    if (count > 0)
      SNAPML_CUDA_CHECK(cudaMemcpyAsync(to, from.data(), static_cast<std::size_t>(count) * sizeof(double),
                                        cudaMemcpyDeviceToHost, part.stream()));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(part.stream()));
  }
  // out = the parts' weight_out summed in part order (one part: its own bits).
  void sum_parts(double* out) {
    const std::size_t width = rows_->n_weights;
    std::fill(out, out + width, 0.0);
    for (auto& part : rows_->parts) {
      download(*part, part->weight_out, part->host_weights.data(), static_cast<std::int64_t>(width));
      for (std::size_t j = 0; j < width; ++j) out[j] += part->host_weights[j];
    }
  }

  ChunkSource& source_;
  std::shared_ptr<PrimalRows> rows_;
};

std::vector<int> or_default_device(const std::vector<int>& device_ids) {
  return device_ids.empty() ? std::vector<int>{0} : device_ids;
}

// The rows `cache` holds when they are the ones asked for, else a fresh upload
// (the old rows are freed first: the device holds one set).
std::unique_ptr<MatrixOperations> cached_operations(ChunkSource& source, PrimalRowsKey key, PrimalRowsCache& cache) {
  if (!cache.rows || !(cache.rows->key == key)) {
    cache.rows.reset();
    cache.rows = upload_rows(source, key);
  }
  return std::make_unique<GpuMatrixOperations>(source, cache.rows);
}

PrimalRowsKey key_of(ChunkSource& source, std::int32_t n_features, double bias_value, std::vector<int> device_ids,
                     std::uint64_t max_gpu_memory) {
  const UploadKey rows{&source,   source.n_rows(), source.nnz(), source.n_chunks(), n_features,
                       static_cast<std::int64_t>(device_ids.size()), max_gpu_memory};
  return {rows, bias_value, std::move(device_ids)};
}

}  // namespace

std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                             std::shared_ptr<PrimalRowsCache> cache) {
  const std::vector<int> devices = or_default_device(device_ids);
  for (const int device : devices) require_gpu(device);
  const std::uint64_t budget = parameters.max_gpu_memory;
  return make_tron_solver(parameters, [devices, budget, cache = std::move(cache)](
                                          ChunkSource& source, std::int32_t n_features, double bias_value, int) {
    return cached_operations(source, key_of(source, n_features, bias_value, devices, budget), *cache);
  });
}

}  // namespace detail

std::unique_ptr<MatrixOperations> make_gpu_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                             double bias_value, const std::vector<int>& device_ids,
                                                             std::uint64_t max_gpu_memory) {
  detail::PrimalRowsCache cache;
  return detail::cached_operations(
      source, detail::key_of(source, n_features, bias_value, detail::or_default_device(device_ids), max_gpu_memory),
      cache);
}

std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, const std::vector<int>& device_ids) {
  return detail::make_tron_gpu_solver(parameters, device_ids, std::make_shared<detail::PrimalRowsCache>());
}

}  // namespace snapml::cuda
