// Times y = X w on one GPU by both paths, cuSPARSE's SpMV (CsrSpmv) and the TPA-SCD
// shaped row_dots kernel, on a generated chunk of about 500M non-zeros, against the
// device-memory floor: the fewest bytes each multiply must move, at the bandwidth a
// large device-to-device cudaMemcpy reaches (bytes read plus bytes written).
// Prints a short markdown table; bench/gpu_check.sh runs it on a lent GPU.
//
//   gpu_spmv_bench [--nnz N] [--features F] [--mean-row-nnz M] [--repeats R] [--device D]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu_bench_setup.h"
#include "gpu_timing.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/row_dots.h"
#include "snapml/cuda/spmv.h"
#include "snapml/dataset.h"
#include "snapml/error.h"

namespace {

using snapml::CsrChunk;
using snapml::cuda::DeviceBuffer;
using Clock = std::chrono::steady_clock;
using snapml::bench::copy_bandwidth_gbs;
using snapml::bench::seconds_since;
using snapml::bench::time_ms;

struct Options {
  std::int64_t nnz = 500'000'000;
  std::int32_t features = 1 << 22;
  int mean_row_nnz = 50;
  int repeats = 20;
  int device = 0;
};

Options parse(int argc, char** argv) {
  Options options;
  snapml::bench::parse_flags(argc, argv, [&](const std::string& flag, const std::string& text) {
    const long long value = std::atoll(text.c_str());
    if (flag == "--nnz") options.nnz = value;
    else if (flag == "--features") options.features = static_cast<std::int32_t>(value);
    else if (flag == "--mean-row-nnz") options.mean_row_nnz = static_cast<int>(value);
    else if (flag == "--repeats") options.repeats = static_cast<int>(value);
    else if (flag == "--device") options.device = static_cast<int>(value);
    else return false;
    return true;
  });
  snapml::require(options.nnz > 0 && options.features > 0 && options.mean_row_nnz > 0 &&
                      options.repeats > 0,
                  "--nnz, --features, --mean-row-nnz and --repeats must be positive");
  return options;
}

// Runs body(part, begin, end) over [0, n) split across the host's cores.
template <typename Body>
void parallel_for(std::int64_t n, Body body) {
  const int parts = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (int p = 0; p < parts; ++p)
    threads.emplace_back(body, p, n * p / parts, n * (p + 1) / parts);
  for (auto& t : threads) t.join();
}

// Rows of 1 .. 2 * mean - 1 non-zeros (mean `mean_row_nnz`), sorted distinct-ish
// uniform columns, values in [-1, 1]. Generated in parallel, seeded per part, so the
// chunk is the same for the same core count.
CsrChunk generate(const Options& options) {
  const std::int64_t n_rows = std::max<std::int64_t>(1, options.nnz / options.mean_row_nnz);
  CsrChunk chunk;
  chunk.row_offsets.assign(static_cast<std::size_t>(n_rows) + 1, 0);
  chunk.labels.assign(static_cast<std::size_t>(n_rows), 1.0);
  std::mt19937_64 lengths(1);
  std::uniform_int_distribution<std::int64_t> length(1, 2 * options.mean_row_nnz - 1);
  for (std::int64_t row = 0; row < n_rows; ++row)
    chunk.row_offsets[row + 1] = chunk.row_offsets[row] + length(lengths);
  const std::int64_t nnz = chunk.row_offsets.back();
  chunk.col_indices.resize(static_cast<std::size_t>(nnz));
  chunk.values.resize(static_cast<std::size_t>(nnz));
  parallel_for(n_rows, [&](int part, std::int64_t begin, std::int64_t end) {
    std::mt19937_64 rng(1000 + part);
    std::uniform_int_distribution<std::int32_t> column(0, options.features - 1);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (std::int64_t row = begin; row < end; ++row) {
      const auto first = chunk.col_indices.begin() + chunk.row_offsets[row];
      const auto last = chunk.col_indices.begin() + chunk.row_offsets[row + 1];
      for (auto it = first; it != last; ++it) *it = column(rng);
      std::sort(first, last);
      for (std::int64_t k = chunk.row_offsets[row]; k < chunk.row_offsets[row + 1]; ++k)
        chunk.values[k] = value(rng);
    }
  });
  return chunk;
}

// Largest |a - b| over rows, relative to the row's sum of |x_ik w_k| (which bounds the
// rounding of any summation order); a NaN anywhere gives infinity.
double max_relative_difference(const std::vector<float>& a, const std::vector<double>& b,
                               const std::vector<double>& magnitude,
                               const std::vector<std::int64_t>& rows) {
  double worst = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(a[rows[i]]) - b[i]) / std::max(magnitude[i], 1e-30);
    if (!(diff <= worst)) worst = std::isnan(diff) ? INFINITY : diff;
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse(argc, argv);
  snapml::cuda::DeviceResources resources(options.device);
  const cudaStream_t stream = resources.compute_stream();

  auto start = Clock::now();
  const CsrChunk chunk = generate(options);
  const double generate_s = seconds_since(start);
  const std::int64_t n_rows = chunk.n_rows();
  const std::int64_t nnz = chunk.nnz();

  start = Clock::now();
  const snapml::cuda::DeviceCsr x(chunk.view(options.features), resources);
  resources.synchronize();
  const double upload_s = seconds_since(start);
  const double uploaded_bytes = static_cast<double>(nnz) * 8 + static_cast<double>(n_rows) * 16;

  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> host_w(static_cast<std::size_t>(options.features));
  for (auto& v : host_w) v = value(rng);
  DeviceBuffer<float> w(host_w.size()), y_spmv(static_cast<std::size_t>(n_rows)),
      y_dots(static_cast<std::size_t>(n_rows));
  w.copy_from_host(host_w.data(), host_w.size(), stream);
  y_spmv.fill_bytes(0xFF, stream);
  y_dots.fill_bytes(0xFF, stream);

  const double floor_gbs = copy_bandwidth_gbs(stream, options.repeats);
  snapml::cuda::CsrSpmv spmv(x, resources);
  const double spmv_ms = time_ms(stream, options.repeats, [&](int) { spmv.multiply(w.data(), y_spmv.data()); }, 2);
  const double dots_ms = time_ms(stream, options.repeats, [&](int) {
    snapml::cuda::row_dots(x, w.data(), y_dots.data(), stream);
  }, 2);

  // Check both against a double-precision CPU product on a sample of rows.
  const auto spmv_out = y_spmv.to_host(stream);
  const auto dots_out = y_dots.to_host(stream);
  std::vector<std::int64_t> sample;
  std::vector<double> reference;
  std::vector<double> magnitude;
  std::uniform_int_distribution<std::int64_t> pick(0, n_rows - 1);
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t row = pick(rng);
    double sum = 0;
    double size = 0;
    for (std::int64_t k = chunk.row_offsets[row]; k < chunk.row_offsets[row + 1]; ++k) {
      const double term = static_cast<double>(chunk.values[k]) * host_w[chunk.col_indices[k]];
      sum += term;
      size += std::fabs(term);
    }
    sample.push_back(row);
    reference.push_back(sum);
    magnitude.push_back(size);
  }
  const double spmv_error = max_relative_difference(spmv_out, reference, magnitude, sample);
  const double dots_error = max_relative_difference(dots_out, reference, magnitude, sample);

  // Fewest bytes per multiply: values and columns once (8 B per non-zero), the offsets
  // (4 B a row for cuSPARSE's 32-bit block offsets, 8 B for row_dots), w once, y written.
  const double common = static_cast<double>(nnz) * 8 + static_cast<double>(options.features) * 4 +
                        static_cast<double>(n_rows) * 4;
  const double spmv_bytes = common + static_cast<double>(n_rows + 1) * 4;
  const double dots_bytes = common + static_cast<double>(n_rows + 1) * 8;
  auto row = [&](const char* path, double ms, double bytes, double error) {
    const double floor_ms = bytes / (floor_gbs * 1e6);
    std::printf("| %s | %.3f | %.3f | %.0f | %.0f%% | %.1e |\n", path, ms, floor_ms,
                bytes / (ms * 1e6), 100.0 * floor_ms / ms, error);
  };

  std::printf("\n### y = X w on %s\n\n", resources.description().c_str());
  std::printf("%lld rows, %lld non-zeros, %d features (w %.0f MB), mean row %.1f non-zeros; "
              "generated in %.1f s, uploaded in %.2f s (%.1f GB/s through pinned staging)\n\n",
              static_cast<long long>(n_rows), static_cast<long long>(nnz), options.features,
              options.features * 4e-6, static_cast<double>(nnz) / n_rows, generate_s, upload_s,
              uploaded_bytes / upload_s * 1e-9);
  std::printf("device-to-device copy: %.0f GB/s (read + write), the floor's bandwidth\n\n", floor_gbs);
  std::printf("| path | ms / multiply | floor ms | GB/s moved | floor / time | max error / sum abs (20k rows) |\n");
  std::printf("|---|---|---|---|---|---|\n");
  row("cuSPARSE SpMV (ALG_DEFAULT)", spmv_ms, spmv_bytes, spmv_error);
  row("row_dots (block per row)", dots_ms, dots_bytes, dots_error);
  std::printf("\n");
  const bool ok = spmv_error < 1e-4 && dots_error < 1e-4;
  if (!ok) std::fprintf(stderr, "gpu_spmv_bench: results disagree with the CPU reference\n");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gpu_spmv_bench: %s\n", e.what());
  return 2;
}
