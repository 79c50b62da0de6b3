// GPU SDCA (TPA-SCD) epoch time on a generated set of about 500M non-zeros against
// the device-memory floor, and the GPU solver against the CPU solver on all host
// cores on a smaller set. Prints markdown tables; bench/gpu_check.sh runs it on a
// lent GPU.
//
//   gpu_sdca_bench [--nnz N] [--features F] [--mean-row-nnz M] [--epochs E]
//                  [--cpu-nnz N] [--loss NAME] [--device D]
//
// Byte model of one epoch (the fewest bytes it must move through device memory):
//   8 per non-zero    column index and value, read once (the scatter re-reads the
//                     row just read, from L2)
//   48 per row        row offset 8, target 8, cost 8, ||x_i||^2 8, alpha read and
//                     written 16
//   16 per feature    w read and written once (its gathers and atomics hit L2 when it
//                     fits there, the case this floor describes)
// at the bandwidth of a large device-to-device cudaMemcpy (bytes read plus written).
// The epoch time is the kernels' alone (device events around the launches of one
// epoch over every resident chunk); the solver's time per epoch also includes the
// duality gap (one more pass over the data) and moving w to the host.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gpu_bench_setup.h"
#include "gpu_timing.h"
#include "dual/sdca_gpu_kernels.h"  // the kernels' launchers: cuda/src, for timing them alone
#include "snapml/chunk_source.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"

namespace {

using snapml::cuda::DeviceBuffer;
using Clock = std::chrono::steady_clock;
using snapml::bench::copy_bandwidth_gbs;
using snapml::bench::seconds_since;
using snapml::bench::time_ms;

struct Options {
  std::int64_t nnz = 500'000'000;
  std::int32_t features = 1 << 20;
  int mean_row_nnz = 50;
  int epochs = 5;
  std::int64_t cpu_nnz = 20'000'000;
  snapml::LossKind loss = snapml::LossKind::Logistic;
  int device = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  snapml::bench::parse_flags(argc, argv, [&](const std::string& flag, const std::string& value) {
    if (flag == "--nnz") o.nnz = std::atoll(value.c_str());
    else if (flag == "--features") o.features = static_cast<std::int32_t>(std::atoll(value.c_str()));
    else if (flag == "--mean-row-nnz") o.mean_row_nnz = std::atoi(value.c_str());
    else if (flag == "--epochs") o.epochs = std::atoi(value.c_str());
    else if (flag == "--cpu-nnz") o.cpu_nnz = std::atoll(value.c_str());
    else if (flag == "--loss") o.loss = snapml::loss_from_name(value);
    else if (flag == "--device") o.device = std::atoi(value.c_str());
    else return false;
    return true;
  });
  snapml::require(o.nnz > 0 && o.features > 0 && o.mean_row_nnz > 0 && o.epochs > 1 && o.cpu_nnz > 0,
                  "--nnz, --features, --mean-row-nnz, --cpu-nnz must be positive and --epochs at least 2");
  return o;
}

snapml::Dataset generate(std::int64_t nnz, const Options& o) {
  // A few large resident chunks.
  return snapml::bench::generated_problem(nnz, o.features, o.mean_row_nnz, o.loss, std::int64_t{1} << 22);
}


// Milliseconds of one kernel-only epoch over the resident chunks of `data`.
double kernel_epoch_ms(const snapml::Dataset& data, const Options& o, snapml::cuda::DeviceResources& resources) {
  namespace detail = snapml::cuda::detail;
  const cudaStream_t stream = resources.compute_stream();
  const snapml::SolverParameters p = snapml::bench::every_epoch(o.loss, 1, 1);
  const snapml::RowTargets targets = snapml::RowTargets::from(p);
  std::vector<snapml::cuda::DeviceCsr> chunks;
  std::vector<double> target, cost;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    snapml::CsrView view = data.view(c);
    for (std::int64_t row = 0; row < view.n_rows; ++row) {
      target.push_back(targets.target(view.labels[row]));
      cost.push_back(targets.cost(target.back(), view.weight(row)));
    }
    view.labels = nullptr;
    view.weights = nullptr;
    chunks.emplace_back(view, resources);
  }
  const std::size_t rows = target.size();
  DeviceBuffer<double> d_target(rows), d_cost(rows), norms(rows), alpha(rows);
  DeviceBuffer<double> w(static_cast<std::size_t>(data.n_features()) + 1);
  d_target.copy_from_host(target.data(), rows, stream);
  d_cost.copy_from_host(cost.data(), rows, stream);
  w.fill_bytes(0, stream);
  const detail::WeightsView weights{w.data(), data.n_features(), p.intercept_scaling};
  const detail::LossSetup loss{p.loss, p.epsilon, 1e-2};
  std::vector<detail::RowData> row_data;
  std::size_t first = 0;
  for (const auto& chunk : chunks) {
    row_data.push_back({d_target.data() + first, d_cost.data() + first, norms.data() + first, alpha.data() + first});
    detail::launch_squared_norms(chunk.view(), 1.0, norms.data() + first, stream);
    detail::launch_initialise(loss, chunk.view(), chunk.nnz(), row_data.back(), detail::StartFrom::Cold, nullptr,
                              weights, stream);
    first += static_cast<std::size_t>(chunk.n_rows());
  }
  return time_ms(stream, o.epochs, [&](int epoch) {
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      const snapml::cuda::FeistelPermutation order(static_cast<std::uint64_t>(chunks[c].n_rows()),
                                                   snapml::cuda::permutation_key(3, 0, epoch + 1, c));
      detail::launch_epoch(loss, chunks[c].view(), chunks[c].nnz(), row_data[c], weights, 1.0, order, stream);
    }
  });
}

// Seconds per epoch of a solver's fit (history: the last epoch's time over the count).
struct SolverRun {
  double seconds_per_epoch = 0.0;
  double gap = 0.0;
  double primal = 0.0;
};
SolverRun run_solver(snapml::Solver& solver, const snapml::Dataset& data) {
  snapml::InMemorySource source(data);
  snapml::LocalCommunicator local;
  snapml::SolverState state;
  const snapml::FitResult fit = solver.fit(source, local, state);
  const auto& history = fit.history;
  // From the first epoch's record on: leaves out the upload and initialisation.
  SolverRun run;
  run.seconds_per_epoch = (history.back().seconds - history.front().seconds) / static_cast<double>(history.size() - 1);
  run.gap = history.back().gap;
  run.primal = history.back().primal;
  return run;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  snapml::cuda::DeviceResources resources(o.device);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("device: %s; host: %d cores; loss %s\n\n", resources.description().c_str(), cores,
              snapml::loss_name(o.loss));

  // ---- 1. kernel epoch on the large set against the floor ----
  auto start = Clock::now();
  const snapml::Dataset large = generate(o.nnz, o);
  std::printf("generated %lld rows, %lld non-zeros, %d features in %.1f s\n",
              static_cast<long long>(large.n_rows()), static_cast<long long>(large.nnz()), o.features,
              seconds_since(start));
  const double bandwidth = copy_bandwidth_gbs(resources.compute_stream(), 10);
  const double epoch_ms = kernel_epoch_ms(large, o, resources);
  const double bytes = 8.0 * static_cast<double>(large.nnz()) + 48.0 * static_cast<double>(large.n_rows()) +
                       16.0 * static_cast<double>(o.features);
  const double floor_ms = bytes / (bandwidth * 1e6);
  std::printf("device-to-device copy: %.0f GB/s (read + write), the floor's bandwidth\n\n", bandwidth);
  std::printf("| set | non-zeros | epoch ms (kernels) | floor ms | time / floor | target |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::printf("| large | %.3g | %.2f | %.2f | %.2fx | <= 3x %s |\n\n", static_cast<double>(large.nnz()), epoch_ms,
              floor_ms, epoch_ms / floor_ms, epoch_ms / floor_ms <= 3.0 ? "met" : "MISSED");

  // ---- 2. solvers on the small set: GPU against the CPU on every core ----
  const snapml::Dataset small = generate(o.cpu_nnz, o);
  auto cpu = snapml::make_sdca_cpu_solver(snapml::bench::every_epoch(o.loss, o.epochs, cores));
  auto gpu = snapml::cuda::make_sdca_gpu_solver(snapml::bench::every_epoch(o.loss, o.epochs, cores), {o.device});
  const SolverRun cpu_run = run_solver(*cpu, small);
  const SolverRun gpu_run = run_solver(*gpu, small);
  std::printf("| solver (%lld non-zeros, %d epochs, gap each epoch) | s / epoch | relative gap after | speed-up |\n",
              static_cast<long long>(small.nnz()), o.epochs);
  std::printf("|---|---|---|---|\n");
  std::printf("| CPU SDCA, %d threads | %.4f | %.2e | 1.0x |\n", cores, cpu_run.seconds_per_epoch,
              cpu_run.gap / cpu_run.primal);
  std::printf("| GPU SDCA (TPA-SCD) | %.4f | %.2e | %.1fx |\n", gpu_run.seconds_per_epoch,
              gpu_run.gap / gpu_run.primal, cpu_run.seconds_per_epoch / gpu_run.seconds_per_epoch);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gpu_sdca_bench: %s\n", e.what());
  return 1;
}
