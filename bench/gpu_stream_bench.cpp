// Out-of-core GPU training: how much of the host-to-device transfer the chunk
// ring (chunk_ring.h) hides under the epoch's kernels, on generated data.
// Prints markdown tables; bench/gpu_check.sh runs it on a lent GPU.
//
//   gpu_stream_bench [--nnz N] [--features F] [--mean-row-nnz M] [--chunk-rows R]
//                    [--epochs E] [--loss NAME] [--device D]
//
// Measured, each the mean over E passes after one untimed pass:
//   peak H2D     one 1 GiB cudaMemcpyAsync from pinned memory (the link's rate)
//   host fill    1 GiB of pageable memory into pinned memory, by one thread's
//                memcpy and by copy_to_pinned, the ring's first stage (chunk_ring.h)
//   t_copy       a pass of the ring with no kernels: every chunk filled, uploaded
//   t_compute    the epoch kernels over the same chunks resident on the device
//   t_streamed   the epoch kernels with every chunk streamed through the ring
// The transfer hidden under compute is (t_copy + t_compute - t_streamed) / t_copy;
// with perfect overlap t_streamed = max(t_copy, t_compute), so it can reach at
// most min(t_copy, t_compute) / t_copy, printed beside it. Then the GPU solver
// itself, resident and with max_gpu_memory at its minimum (every chunk streams):
// seconds per epoch including the duality-gap pass, which streams the chunks again.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpu_bench_setup.h"
#include "gpu_timing.h"
#include "dual/kernels.h"  // the cold pass's launchers: cuda/src, for timing it alone
#include "snapml/chunk_source.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/chunk_ring.h"
#include "snapml/cuda/device_csr.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"

namespace {

namespace cuda = snapml::cuda;
using Clock = std::chrono::steady_clock;
using cuda::DeviceBuffer;
using snapml::bench::seconds_since;
using snapml::bench::time_ms;

struct Options {
  std::int64_t nnz = 200'000'000;
  std::int32_t features = 1 << 20;
  int mean_row_nnz = 50;
  std::int64_t chunk_rows = std::int64_t{1} << 18;  // about 100 MB chunks at 50 non-zeros a row
  int epochs = 5;
  snapml::LossKind loss = snapml::LossKind::Logistic;
  int device = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  snapml::bench::parse_flags(argc, argv, [&](const std::string& flag, const std::string& value) {
    if (flag == "--nnz") o.nnz = std::atoll(value.c_str());
    else if (flag == "--features") o.features = static_cast<std::int32_t>(std::atoll(value.c_str()));
    else if (flag == "--mean-row-nnz") o.mean_row_nnz = std::atoi(value.c_str());
    else if (flag == "--chunk-rows") o.chunk_rows = std::atoll(value.c_str());
    else if (flag == "--epochs") o.epochs = std::atoi(value.c_str());
    else if (flag == "--loss") o.loss = snapml::loss_from_name(value);
    else if (flag == "--device") o.device = std::atoi(value.c_str());
    else return false;
    return true;
  });
  snapml::require(o.nnz > 0 && o.features > 0 && o.mean_row_nnz > 0 && o.chunk_rows > 0 && o.epochs > 1,
                  "--nnz, --features, --mean-row-nnz, --chunk-rows must be positive and --epochs at least 2");
  return o;
}

snapml::Dataset generate(const Options& o) {
  return snapml::bench::generated_problem(o.nnz, o.features, o.mean_row_nnz, o.loss, o.chunk_rows);
}

// GB/s of bytes moved in ms milliseconds.
double rate(double bytes, double ms) { return bytes / (ms * 1e6); }

// One large pinned upload on the copy stream: the link's rate.
double peak_upload_ms(cuda::DeviceResources& resources, std::size_t bytes, int repeats) {
  return snapml::bench::pinned_upload_ms(resources.copy_stream(), bytes, repeats);
}

// The ring's fill stage, pageable into pinned memory: one thread's memcpy, or the
// ring's own copy_to_pinned (several threads).
double host_fill_ms(std::size_t bytes, int repeats, bool as_the_ring_does) {
  void* pinned = nullptr;
  SNAPML_CUDA_CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
  std::vector<char> pageable(bytes, 2);
  std::memcpy(pinned, pageable.data(), bytes);  // untimed: fault the pages in
  const auto start = Clock::now();
  for (int i = 0; i < repeats; ++i) {
    if (as_the_ring_does)
      cuda::copy_to_pinned(pinned, pageable.data(), bytes);
    else
      std::memcpy(pinned, pageable.data(), bytes);
  }
  const double ms = seconds_since(start) * 1e3 / repeats;
  SNAPML_CUDA_CHECK(cudaFreeHost(pinned));
  return ms;
}

// The per-row state and weights of one cold pass (cuda/src/dual/cold_pass.cu), as
// the solver holds them, every column cold (the pass's whole work: the ring's
// overlap is what is measured here, not the schedule).
struct EpochState {
  EpochState(const snapml::Dataset& data, const snapml::SolverParameters& p, cudaStream_t stream)
      : loss(cuda::dual::setup_of_kind(p.loss, p.epsilon)) {
    const snapml::RowTargets targets = snapml::RowTargets::from(p);
    std::vector<cuda::dual::RowState> host;
    for (std::size_t c = 0; c < data.n_chunks(); ++c) {
      const snapml::CsrView view = data.view(c);
      first_row.push_back(static_cast<std::int64_t>(host.size()));
      in_flight.push_back(
          cuda::dual::cold_pass_rows_in_flight(loss, cuda::dual::chunk_threads(view.n_rows, view.nnz())));
      for (std::int64_t row = 0; row < view.n_rows; ++row) {
        cuda::dual::RowState r;
        r.target = targets.target(view.labels[row]);
        r.cost = targets.cost(r.target, view.weight(row));
        r.curvature = snapml::row_squared_norm(view, row);
        host.push_back(r);
      }
    }
    rows = DeviceBuffer<cuda::dual::RowState>(host.size());
    rows.copy_from_host(host.data(), host.size(), stream);
    const std::vector<std::int32_t> cold(static_cast<std::size_t>(data.n_features()), -1);
    slot = DeviceBuffer<std::int32_t>(cold.size());
    slot.copy_from_host(cold.data(), cold.size(), stream);
    w = DeviceBuffer<double>(static_cast<std::size_t>(data.n_features()) + 1);
    w.fill_bytes(0, stream);
    split.slot = slot.data();
    split.bias_index = data.n_features();
    split.bias_value = p.intercept_scaling;
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
  }
  // The first pass: cold-start alpha and w(alpha) (zero for these losses).
  void initialise(std::size_t c, const snapml::CsrView& x, std::int64_t nnz, cudaStream_t stream) {
    cuda::dual::launch_initialise(loss, x, nnz, rows.data() + first_row[c], snapml::StartFrom::Cold, nullptr, split,
                                  w.data(), stream);
  }
  void epoch(std::size_t c, const snapml::CsrView& x, std::int64_t nnz, int epoch_index, cudaStream_t stream) {
    const cuda::FeistelPermutation order(static_cast<std::uint64_t>(x.n_rows),
                                         cuda::permutation_key(3, 0, static_cast<std::uint64_t>(epoch_index), c));
    cuda::dual::launch_cold_pass(loss, x, nnz, rows.data() + first_row[c], split, w.data(), 1.0, order,
                                 in_flight[c], stream);
  }

  cuda::dual::LossSetup loss;
  std::vector<std::int64_t> first_row, in_flight;
  DeviceBuffer<cuda::dual::RowState> rows;
  DeviceBuffer<std::int32_t> slot;
  DeviceBuffer<double> w;
  cuda::dual::ColumnSplit split;
};

// Host wall milliseconds of pass(p) for p = 0 .. repeats - 1, after one untimed
// pass(-1), each ended by waiting for both streams.
template <typename Pass>
double pass_ms(cuda::DeviceResources& resources, int repeats, Pass pass) {
  pass(-1);
  resources.synchronize();
  const auto start = Clock::now();
  for (int p = 0; p < repeats; ++p) pass(p);
  resources.synchronize();
  return seconds_since(start) * 1e3 / repeats;
}

struct SolverRun {
  double seconds_per_epoch = 0.0;
  double relative_gap = 0.0;
};
SolverRun run_solver(const snapml::Dataset& data, const snapml::SolverParameters& p, int device) {
  snapml::InMemorySource source(data);
  snapml::LocalCommunicator local;
  snapml::SolverState state;
  const snapml::FitResult fit = cuda::make_sdca_gpu_solver(p, {device})->fit(source, local, state);
  const auto& history = fit.history;
  SolverRun run;  // from the first epoch's record on: leaves out the set-up and first pass
  run.seconds_per_epoch =
      (history.back().seconds - history.front().seconds) / static_cast<double>(history.size() - 1);
  run.relative_gap = history.back().gap / history.back().primal;
  return run;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  cuda::DeviceResources resources(o.device);
  const cudaStream_t compute = resources.compute_stream();
  std::printf("device: %s; loss %s\n\n", resources.description().c_str(), snapml::loss_name(o.loss));

  const auto started = Clock::now();
  const snapml::Dataset data = generate(o);
  std::vector<cuda::ChunkShape> shapes;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) shapes.push_back({data.view(c).n_rows, data.view(c).nnz()});
  const cuda::DeviceMemoryNeeds needs = cuda::device_memory_needs(shapes, data.n_features());
  std::uint64_t data_bytes = 0;
  std::uint64_t largest = 0;
  for (const std::uint64_t bytes : needs.chunk_bytes) {
    data_bytes += bytes;
    largest = std::max(largest, bytes);
  }
  std::printf("generated %lld rows, %lld non-zeros, %d features, %zu chunks in %.1f s; device bytes of the "
              "chunks %.3g (largest %.3g), of the per-row state and weights %.3g\n\n",
              static_cast<long long>(data.n_rows()), static_cast<long long>(data.nnz()), o.features,
              data.n_chunks(), seconds_since(started), static_cast<double>(data_bytes),
              static_cast<double>(largest), static_cast<double>(needs.fixed_bytes()));

  // ---- 1. the link and the fill stage ----
  const std::size_t probe = std::size_t{1} << 30;
  const double peak_ms = peak_upload_ms(resources, probe, 5);
  const double fill_one_ms = host_fill_ms(probe, 3, false);
  const double fill_ms = host_fill_ms(probe, 3, true);

  // ---- 2. the epoch's kernels resident, the ring alone, and both together ----
  const snapml::SolverParameters p = snapml::bench::every_epoch(o.loss, o.epochs);
  EpochState state(data, p, compute);
  std::vector<std::unique_ptr<cuda::DeviceCsr>> resident;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    snapml::CsrView view = data.view(c);
    view.labels = nullptr;
    view.weights = nullptr;
    resident.push_back(std::make_unique<cuda::DeviceCsr>(view, resources));
    state.initialise(c, resident.back()->view(), resident.back()->nnz(), compute);
  }
  const double compute_ms = time_ms(compute, o.epochs, [&](int epoch) {
    for (std::size_t c = 0; c < resident.size(); ++c)
      state.epoch(c, resident[c]->view(), resident[c]->nnz(), epoch + 1, compute);
  });
  resident.clear();  // the streamed passes below must not find the data on the device

  cuda::ChunkRing ring(resources, cuda::kRingSlots, largest);
  // In source order every pass overwrites the chunks the last one ended on before
  // reaching them, so every chunk uploads on every pass.
  auto upload_pass = [&](bool kernels, int epoch) {
    for (std::size_t c = 0; c < data.n_chunks(); ++c) {
      snapml::CsrView host = data.view(c);
      const snapml::CsrView device = ring.load(c, host);
      if (kernels) state.epoch(c, device, host.nnz(), epoch + 1, compute);
      ring.release();
    }
  };
  const std::uint64_t uploads_before = ring.uploads();
  const double copy_ms = pass_ms(resources, o.epochs, [&](int epoch) { upload_pass(false, epoch); });
  const double streamed_ms = pass_ms(resources, o.epochs, [&](int epoch) { upload_pass(true, epoch); });
  const bool every_chunk_uploaded = ring.uploads() - uploads_before == 2 * (o.epochs + 1) * data.n_chunks();

  const double hidden = (copy_ms + compute_ms - streamed_ms) / copy_ms;
  const double hidden_at_most = std::min(copy_ms, compute_ms) / copy_ms;
  const double slowest = std::max(copy_ms, compute_ms);
  std::printf("| measure | ms | GB/s |\n|---|---|---|\n");
  std::printf("| peak host-to-device: one 1 GiB cudaMemcpyAsync from pinned memory | %.2f | %.1f |\n", peak_ms,
              rate(static_cast<double>(probe), peak_ms));
  std::printf("| host fill: one thread's memcpy of 1 GiB pageable -> pinned | %.2f | %.1f |\n", fill_one_ms,
              rate(static_cast<double>(probe), fill_one_ms));
  std::printf("| host fill as the ring does it (copy_to_pinned, up to 8 threads) | %.2f | %.1f |\n", fill_ms,
              rate(static_cast<double>(probe), fill_ms));
  std::printf("| t_copy: a pass through the ring, no kernels (%zu chunks, %.3g bytes) | %.2f | %.1f |\n",
              data.n_chunks(), static_cast<double>(data_bytes), copy_ms, rate(static_cast<double>(data_bytes), copy_ms));
  std::printf("| t_compute: epoch kernels, chunks resident | %.2f | |\n", compute_ms);
  std::printf("| t_streamed: epoch kernels, chunks streamed through %zu slots | %.2f | %.1f |\n\n", ring.slots(),
              streamed_ms, rate(static_cast<double>(data_bytes), streamed_ms));
  std::printf("| transfer hidden under compute: (t_copy + t_compute - t_streamed) / t_copy | at most "
              "min(t_copy, t_compute) / t_copy | t_streamed / max(t_copy, t_compute) | target |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| %.1f%% | %.1f%% | %.2f | <= 1.15 %s |\n\n", 100.0 * hidden, 100.0 * hidden_at_most,
              streamed_ms / slowest, streamed_ms <= 1.15 * slowest ? "met" : "MISSED");
  if (!every_chunk_uploaded) std::printf("note: some passes reused chunks the ring held; t_copy is low\n\n");

  // ---- 3. the solver, resident and streamed at its minimum budget ----
  snapml::SolverParameters streamed = p;
  streamed.max_gpu_memory = needs.fixed_bytes() + cuda::kRingSlots * largest;
  const SolverRun resident_run = run_solver(data, p, o.device);
  const SolverRun streamed_run = run_solver(data, streamed, o.device);
  std::printf("| GPU solver (%d epochs, gap each epoch) | max_gpu_memory | s / epoch | relative gap after | "
              "streamed / resident |\n|---|---|---|---|---|\n", o.epochs);
  std::printf("| resident | none | %.4f | %.2e | 1.00 |\n", resident_run.seconds_per_epoch, resident_run.relative_gap);
  std::printf("| streamed (2 slots, no chunk kept) | %.3g bytes | %.4f | %.2e | %.2f |\n",
              static_cast<double>(streamed.max_gpu_memory), streamed_run.seconds_per_epoch, streamed_run.relative_gap,
              streamed_run.seconds_per_epoch / resident_run.seconds_per_epoch);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gpu_stream_bench: %s\n", e.what());
  return 1;
}
