// The GPU backend of the matrix-operations seam (snapml/impl/matrix_operations.h) over
// the GPU Newton solver's rows and kernels (primal_rows.h): what the CPU solver's
// L-BFGS and Cholesky steps, and its multinomial loss, run on when they are asked
// for on a GPU. Each product copies its vectors across the host link (the seam's
// vectors are host memory); the device-resident solver (newton_gpu_solver.cpp)
// keeps them on the device instead. Also the entry points of snapml/cuda/primal_gpu.h.
#include <algorithm>
#include <string>
#include <utility>

#include "../device/device_chunks.h"
#include "newton_gpu.h"
#include "primal_rows.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/primal_gpu.h"
#include "snapml/error.h"

namespace snapml::cuda {
namespace primal {
namespace {

class GpuMatrixOperations final : public MatrixOperations {
 public:
  GpuMatrixOperations(ChunkSource& source, std::shared_ptr<PrimalRows> rows, double bias_value)
      : source_(source), rows_(std::move(rows)), bias_value_(bias_value) {
    rows_->set_classes(1);  // the seam's products are one vector's (a multinomial fit may have left K)
    DeviceGuard guard(rows_->master().device_id());
    in_ = DeviceBuffer<double>(rows_->n_weights());
    out_ = DeviceBuffer<double>(rows_->n_weights());
    setup_.n = static_cast<std::int64_t>(rows_->n_weights());
    setup_.intercept = {rows_->intercept_index(), bias_value_};
  }

  std::int64_t n_rows() const override { return rows_->n_rows(); }
  std::size_t n_weights() const override { return rows_->n_weights(); }

  // From the host's chunks, as the CPU backend reads them: the device holds no labels.
  void rows(double* labels, double* sample_weights) override {
    std::int64_t offset = 0;
    detail::for_each_host_chunk(source_, [&](const CsrView& x) {
      require(offset + x.n_rows <= rows_->n_rows(), "the chunk source returned more rows than it counts");
      for (std::int64_t row = 0; row < x.n_rows; ++row) {
        labels[offset + row] = x.labels[row];
        sample_weights[offset + row] = x.weight(row);
      }
      offset += x.n_rows;
    });
    require(offset == rows_->n_rows(), "the chunk source returned fewer rows than it counts");
  }

  void margins(const double* w, double* out) override {
    upload_weights(w);
    rows_->fork(in_.data());
    rows_->row_dots(in_.data(), bias_value_);
    rows_->join(false, false);
    rows_->download_rows(&Part::u, out);
  }

  void transpose_times(const double* d, double* out) override {
    rows_->upload_rows(d, &Part::u);
    column_product(ColumnSum::Plain, true, 1, out);
  }

  void hessian_product(const double* curvature, const double* v, double* out) override {
    rows_->upload_rows(curvature, &Part::c);
    upload_weights(v);
    rows_->fork(in_.data());
    rows_->curvature_rows(in_.data(), bias_value_);
    rows_->column_sums(ColumnSum::Plain, true);
    finish_columns(1, out);
  }

  void hessian_diagonal(const double* curvature, double* out) override {
    rows_->upload_rows(curvature, &Part::c);
    column_product(ColumnSum::Squares, false, 2, out);
  }

 private:
  void upload_weights(const double* w) {
    DeviceGuard guard(rows_->master().device_id());
    in_.copy_from_host(w, rows_->n_weights(), rows_->master_stream());
  }
  void column_product(ColumnSum kind, bool from_u, int power, double* out) {
    rows_->fork(nullptr);
    rows_->column_sums(kind, from_u);
    finish_columns(power, out);
  }
  // The parts' raw_a summed in part order, the intercept's entry scaled by bias^power, to `out`.
  void finish_columns(int power, double* out) {
    rows_->join(true, false);
    DeviceGuard guard(rows_->master().device_id());
    launch_assign_sum(setup_, rows_->raw_a(), power, out_.data(), rows_->master_stream());
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(out, out_.data(), rows_->n_weights() * sizeof(double), cudaMemcpyDeviceToHost,
                                      rows_->master_stream()));
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(rows_->master_stream()));
  }

  ChunkSource& source_;
  std::shared_ptr<PrimalRows> rows_;
  double bias_value_;
  WeightSetup setup_;
  DeviceBuffer<double> in_, out_;
};

// The rows `cache` holds when they are the ones asked for, else a fresh upload
// (PrimalRowsCache::rows_for).
std::unique_ptr<MatrixOperations> cached_operations(ChunkSource& source, RowsKey key, double bias_value, int threads,
                                                    detail::PrimalRowsCache& cache) {
  return std::make_unique<GpuMatrixOperations>(source, cache.rows_for(source, key, threads), bias_value);
}

std::vector<int> or_default_device(const std::vector<int>& device_ids) {
  return device_ids.empty() ? std::vector<int>{0} : device_ids;
}

}  // namespace

RowsKey key_of(ChunkSource& source, std::int32_t n_features, bool intercept, std::vector<int> device_ids,
               std::uint64_t max_gpu_memory, TileLimits tiles) {
  RowsKey key;
  key.tiles = tiles;
  key.rows = {source.identity(), source.n_rows(), source.nnz(), source.n_chunks(), n_features,
              static_cast<std::int64_t>(device_ids.size()), max_gpu_memory};
  key.intercept = intercept;
  key.device_ids = std::move(device_ids);
  return key;
}

std::unique_ptr<MatrixOperations> make_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                         double bias_value, const std::vector<int>& device_ids,
                                                         std::uint64_t max_gpu_memory, TileLimits tiles) {
  detail::PrimalRowsCache cache;
  return cached_operations(
      source, key_of(source, n_features, bias_value != 0.0, or_default_device(device_ids), max_gpu_memory, tiles),
      bias_value, 0, cache);
}

}  // namespace primal

namespace detail {

std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, std::vector<int> device_ids,
                                             std::shared_ptr<PrimalRowsCache> cache) {
  const std::vector<int> devices = primal::or_default_device(device_ids);
  for (const int device : devices) require_gpu(device);
  if (primal::newton_gpu_takes(parameters)) return primal::make_newton_gpu_solver(parameters, devices, cache);
  const std::uint64_t budget = parameters.max_gpu_memory;
  return make_tron_solver(parameters, [devices, budget, cache = std::move(cache)](
                                          ChunkSource& source, std::int32_t n_features, double bias_value,
                                          int threads) {
    return primal::cached_operations(source, primal::key_of(source, n_features, bias_value != 0.0, devices, budget),
                                     bias_value, threads, *cache);
  });
}

}  // namespace detail

std::unique_ptr<MatrixOperations> make_gpu_matrix_operations(ChunkSource& source, std::int32_t n_features,
                                                             double bias_value, const std::vector<int>& device_ids,
                                                             std::uint64_t max_gpu_memory) {
  return primal::make_matrix_operations(source, n_features, bias_value, device_ids, max_gpu_memory, {});
}

std::unique_ptr<Solver> make_tron_gpu_solver(const SolverParameters& parameters, const std::vector<int>& device_ids) {
  return detail::make_tron_gpu_solver(parameters, device_ids, std::make_shared<detail::PrimalRowsCache>());
}

}  // namespace snapml::cuda
