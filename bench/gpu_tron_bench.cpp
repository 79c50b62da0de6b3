// The primal Newton solver (TRON, logistic loss) on the GPU against the CPU.
//
//   gpu_tron_bench [--data-dir DIR] [--threads T] [--C C] [--tol TOL]
//                  [--small 0|1] [--nnz N] [--features F]
//                  [--criteo-rows N] [--hash-bits B] [--test-rows N] [--cpu 0|1]
//
// --small 1 (the default): a9a, news20 (class 1 against the rest) and a generated
// problem of --nnz non-zeros at C = 1, through the solver factory (use_gpu), as a
// user trains: seconds to the same tolerance, iterations, and the objectives'
// relative difference; the GPU twice through one session (the first fit uploads,
// the second finds the rows on the device).
//
// --criteo-rows N: Criteo-like data generated in this process (snap-criteo-gen's
// world, seed 11: N training rows and --test-rows after them, categorical values
// hashed into 2^hash-bits), logistic at --C (0.1) to --tol (1e-8), and for the GPU
// fit (cuda/src/primal/newton_gpu.h):
//   - the fit's time split: upload (rows to the device, transposes built),
//     targets, the first iterate (value, gradient, record), the Newton
//     iterations, the final state; with the rows uploaded and with them resident;
//   - per Newton iteration: the bytes its passes move at least (pass_bytes), the
//     time those take at the measured device-to-device copy bandwidth, and the
//     measured time over it (the target: at most 3);
//   - per iteration: its time, primal, gap and the test log loss of its iterate,
//     and the time to a test log loss within 1e-4 of the last iterate's;
//   - with --cpu 1 (the default): the CPU solver on --threads threads, its time,
//     objective and test log loss;
//   - the upload's split (pass 1, allocation, the staged copies with the threads'
//     packing, slot waits and queueing, the transpositions' tail, the column
//     plans) and its floors on this machine: the host link (a pinned copy) and
//     the staged copies alone (no transposition).
// First, whatever runs: what a fresh process pays before its first fit (the CUDA
// context, streams, the cuBLAS and cuSPARSE handles, first allocations).
// Expected durations on an H100 with 16 host cores: about 20 s for 2M rows (most
// of it the CPU fit), about 70 s for 10M rows at --hash-bits 22.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu_bench_setup.h"
#include "gpu_timing.h"
#include "primal/newton_gpu.h"  // the solver's timings: cuda/src
#include "primal/primal_rows.h"
#include "primal/staging_ring.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_buffer.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/datasets/criteo.h"
#include "snapml/datasets/criteo_generator.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/solver_factory.h"

namespace {

using namespace snapml;
using cuda::primal::FitTimings;
using cuda::primal::PassCounts;

struct Options {
  std::string data_dir;
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  double C = -1.0;  // default per part: 1 for --small, 0.1 for Criteo
  double tol = -1.0;
  bool small = true;
  std::int64_t nnz = 50'000'000;
  std::int32_t features = 1 << 20;
  std::int64_t criteo_rows = 0;
  int hash_bits = 20;
  std::int64_t test_rows = -1;  // default: criteo_rows / 10
  bool cpu = true;
};

struct Timed {
  FitResult result;
  SolverState state;
  double seconds = 0.0;
};

Timed timed_fit(Solver& solver, const Dataset& data) {
  InMemorySource source(data);
  LocalCommunicator local;
  Timed out;
  const auto start = std::chrono::steady_clock::now();
  out.result = solver.fit(source, local, out.state);
  out.seconds = bench::seconds_since(start);
  return out;
}

void run_small(const std::string& name, const Dataset& data, SolverParameters p) {
  std::printf("\n%s: %lld rows, %lld non-zeros, %d features, C = %g, tol = %g\n", name.c_str(),
              static_cast<long long>(data.n_rows()), static_cast<long long>(data.nnz()), data.n_features(), p.C,
              p.tol);
  p.solver = SolverChoice::Primal;
  const Timed cpu = timed_fit(*make_tron_cpu_solver(p), data);
  const auto session = make_solver_session(true, {0});
  const Timed first = timed_fit(*session->make(p), data);
  const Timed again = timed_fit(*session->make(p), data);
  const double f_cpu = cpu.result.history.back().primal;
  auto line = [&](const char* what, const Timed& t) {
    const double f = t.result.history.back().primal;
    std::printf("  %-28s %8.3f s  %3d iterations  converged %d  objective %.12g  (rel. diff. to CPU %.1e)\n", what,
                t.seconds, t.result.epochs, t.result.converged ? 1 : 0, f, std::fabs(f - f_cpu) / std::fabs(f_cpu));
  };
  line(("CPU, " + std::to_string(p.threads) + " threads").c_str(), cpu);
  line("GPU, first fit (uploads)", first);
  line("GPU, rows on the device", again);
  std::printf("  speed-up (rows on the device): %.2fx\n", cpu.seconds / again.seconds);
}

// Criteo-like rows [first_row, first_row + rows) of seed 11's world, generated in
// pieces of a million rows (the text of one piece at a time) and parsed.
Dataset criteo_like(std::int64_t first_row, std::int64_t rows, int hash_bits, int threads) {
  std::vector<CsrChunk> chunks;
  std::int32_t n_features = 0;
  for (std::int64_t done = 0; done < rows;) {
    datasets::CriteoGeneratorOptions generate;
    generate.seed = 11;
    generate.first_row = first_row + done;
    generate.rows = std::min<std::int64_t>(1'000'000, rows - done);
    generate.threads = threads;
    std::string text;
    datasets::generate_criteo(generate, [&](const char* data, std::size_t size) { text.append(data, size); });
    datasets::CriteoOptions parse;
    parse.hash_bits = hash_bits;
    parse.threads = threads;
    parse.chunk_rows = 1 << 18;
    datasets::CriteoData piece = datasets::parse_criteo(text.data(), text.size(), "generated", parse);
    n_features = piece.dataset.n_features();
    for (std::size_t c = 0; c < piece.dataset.n_chunks(); ++c) chunks.push_back(piece.dataset.chunk(c));
    done += generate.rows;
  }
  return Dataset(std::move(chunks), n_features);
}

// Mean log(1 + exp(-y m)) over the rows, y = +1 for label 1 and -1 otherwise.
double test_log_loss(const Dataset& test, const std::vector<double>& w, double intercept_scaling) {
  const auto bias = static_cast<std::size_t>(test.n_features());
  double sum = 0.0;
  for (std::size_t c = 0; c < test.n_chunks(); ++c) {
    const CsrView x = test.view(c);
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double margin = row_dot(x, row, w.data()) + intercept_scaling * w[bias];
      const double ym = x.labels[row] == 1.0 ? margin : -margin;
      sum += ym > 0.0 ? std::log1p(std::exp(-ym)) : -ym + std::log1p(std::exp(ym));
    }
  }
  return sum / static_cast<double>(test.n_rows());
}

PassCounts minus(const PassCounts& a, const PassCounts& b) {
  PassCounts d;
  d.margin_rows = a.margin_rows - b.margin_rows;
  d.curvature_rows = a.curvature_rows - b.curvature_rows;
  d.gradient_columns = a.gradient_columns - b.gradient_columns;
  d.plain_columns = a.plain_columns - b.plain_columns;
  d.sweep_vectors = a.sweep_vectors - b.sweep_vectors;
  return d;
}

// What a fresh process pays before its first fit: `snap-train --gpu` pays it
// inside the fit's time (and the plugin's load besides: libcublasLt is the
// largest of the libraries it maps), the benchmarks' fits after it.
void print_fresh_process_costs() {
  using Clock = std::chrono::steady_clock;
  auto timed = [](auto work) {
    const Clock::time_point start = Clock::now();
    work();
    return bench::seconds_since(start);
  };
  const double context = timed([] {
    SNAPML_CUDA_CHECK(cudaSetDevice(0));
    SNAPML_CUDA_CHECK(cudaFree(nullptr));
  });
  std::unique_ptr<cuda::DeviceResources> resources;
  const double streams = timed([&] { resources = std::make_unique<cuda::DeviceResources>(0); });
  const double cublas = timed([&] { resources->cublas(); });
  const double cusparse = timed([&] { resources->cusparse(); });
  const double pinned = timed([] { cuda::primal::StagingRings().on(0, 32); });
  const double device = timed([] { cuda::DeviceBuffer<std::byte> memory(std::size_t{256} << 20); });
  std::printf("fresh process: CUDA context %.3f s (cudaFree(0)); a device's streams and events %.3f s; cuBLAS "
              "handle %.3f s, cuSPARSE handle %.3f s (the Newton solver makes neither); a staging ring (64 MiB "
              "pinned) made and freed %.3f s; 256 MiB of device memory allocated and freed %.3f s\n",
              context, streams, cublas, cusparse, pinned, device);
}

// The upload's floors here: the host link (one pinned copy of `bytes`) and the
// staged copies alone (StagedCopies of `bytes` of entries from host arrays into
// device memory on `threads` threads, no transposition; the second of two runs,
// the ring made by the first).
void print_upload_floors(cuda::DeviceResources& resources, std::int64_t bytes, int threads) {
  using Clock = std::chrono::steady_clock;
  const std::int64_t entries = bytes / 8;
  std::vector<std::int32_t> columns(static_cast<std::size_t>(entries), 7);
  std::vector<float> values(static_cast<std::size_t>(entries), 0.5f);
  cuda::DeviceBuffer<std::byte> device(static_cast<std::size_t>(bytes));
  const cudaStream_t stream = resources.copy_stream();
  void* pinned = nullptr;
  SNAPML_CUDA_CHECK(cudaHostAlloc(&pinned, static_cast<std::size_t>(bytes), cudaHostAllocDefault));
  const double link_ms = bench::time_ms(stream, 3, [&](int) {
    SNAPML_CUDA_CHECK(cudaMemcpyAsync(device.data(), pinned, static_cast<std::size_t>(bytes), cudaMemcpyHostToDevice,
                                      stream));
  });
  SNAPML_CUDA_CHECK(cudaFreeHost(pinned));
  cuda::primal::StagingRings rings;
  double seconds = 0.0;
  cuda::primal::StagingTimings timings;
  for (int run = 0; run < 2; ++run) {
    cuda::primal::StagedCopies copies(rings, cuda::primal::host_threads(threads));
    copies.add_items(0, stream, device.data(), 8, entries,
                     [&](std::int64_t first, std::int64_t n, void* out) {
                       cuda::primal::interleave_entries(columns.data() + first, values.data() + first, n, out);
                     });
    const Clock::time_point start = Clock::now();
    copies.run();
    SNAPML_CUDA_CHECK(cudaStreamSynchronize(stream));
    seconds = bench::seconds_since(start);
    timings = copies.timings();
  }
  std::printf("upload floors for %.2f GB: host link %.1f GB/s (one pinned copy); staged copies alone %.1f GB/s "
              "(%d threads; summed over them: packing %.3f s, slot waits %.3f s, queueing %.3f s)\n",
              static_cast<double>(bytes) / 1e9, static_cast<double>(bytes) / (link_ms * 1e6),
              static_cast<double>(bytes) / seconds / 1e9, timings.threads, timings.pack, timings.slot_wait,
              timings.queue);
}

void print_upload_split(const cuda::primal::UploadTimings& u, double upload) {
  const cuda::primal::StagingTimings& c = u.copies;
  std::printf("\n| upload (rows uploaded) | s |\n|---|---|\n");
  std::printf("| pass 1: row lengths, tiles, budget | %.3f |\n", u.lengths);
  std::printf("| streams, result slots | %.3f |\n", u.resources);
  std::printf("| device memory allocated | %.3f |\n", u.allocate);
  std::printf("| pinned rings made (once a session) | %.3f |\n", c.rings);
  std::printf("| offsets and entries packed and queued: %lld copies, %.2f GB, %.1f GB/s; summed over %d threads: "
              "packing %.3f s, slot waits %.3f s, queueing (and the transpositions' launches) %.3f s | %.3f |\n",
              static_cast<long long>(c.copies), static_cast<double>(c.bytes) / 1e9,
              c.wall > 0 ? static_cast<double>(c.bytes) / c.wall / 1e9 : 0.0, c.threads, c.pack, c.slot_wait, c.queue,
              c.wall - c.rings);
  std::printf("| transpositions after the last copy | %.3f |\n", u.transposes);
  std::printf("| sort scratch freed | %.3f |\n", u.release);
  std::printf("| long columns' plans | %.3f |\n", u.plans);
  std::printf("| other | %.3f |\n",
              upload - (u.lengths + u.resources + u.allocate + c.wall + u.transposes + u.release + u.plans));
}

void print_split(const char* what, const FitTimings& t, double wall) {
  std::printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", what, wall, t.upload, t.targets, t.start,
              t.iterations, t.finish, wall - (t.upload + t.targets + t.start + t.iterations + t.finish));
}

void run_criteo(const Options& o) {
  const double C = o.C > 0 ? o.C : 0.1;
  const double tol = o.tol > 0 ? o.tol : 1e-8;
  const std::int64_t test_rows = o.test_rows >= 0 ? o.test_rows : o.criteo_rows / 10;
  cuda::DeviceResources resources(0);
  std::printf("\n## Criteo-like %lld rows (seed 11, hash 2^%d), logistic C = %g, tol = %g\n\n",
              static_cast<long long>(o.criteo_rows), o.hash_bits, C, tol);
  std::printf("device: %s; host threads %d\n", resources.description().c_str(), o.threads);
  const double bandwidth = bench::copy_bandwidth_gbs(resources.compute_stream(), 10) * 1e9;
  std::printf("device-to-device copy: %.0f GB/s (bytes read + written)\n", bandwidth / 1e9);
  auto start = std::chrono::steady_clock::now();
  const Dataset train = criteo_like(0, o.criteo_rows, o.hash_bits, o.threads);
  const Dataset test = criteo_like(o.criteo_rows, test_rows, o.hash_bits, o.threads);
  std::printf("generated %lld + %lld test rows, %lld non-zeros, %d features in %.1f s\n\n",
              static_cast<long long>(train.n_rows()), static_cast<long long>(test.n_rows()),
              static_cast<long long>(train.nnz()), train.n_features(), bench::seconds_since(start));

  SolverParameters p;
  p.loss = LossKind::Logistic;
  p.solver = SolverChoice::Primal;
  p.C = C;
  p.tol = tol;
  p.intercept_scaling = 1.0;
  p.max_epochs = 200;
  p.threads = o.threads;
  auto cache = std::make_shared<cuda::detail::PrimalRowsCache>();
  cuda::primal::NewtonGpuOptions options;
  options.timings = std::make_shared<FitTimings>();
  auto gpu = [&] { return cuda::primal::make_newton_gpu_solver(p, {0}, cache, options); };

  std::printf("| GPU fit | wall s | upload | targets | first iterate | iterations | final | other |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  const Timed first = timed_fit(*gpu(), train);
  const FitTimings uploaded = *options.timings;
  print_split("rows uploaded", uploaded, first.seconds);
  const Timed again = timed_fit(*gpu(), train);
  const FitTimings resident = *options.timings;
  print_split("rows resident", resident, again.seconds);
  print_upload_split(uploaded.upload_split, uploaded.upload);
  print_upload_floors(resources, std::min<std::int64_t>(std::int64_t{256} << 20, 8 * train.nnz()), o.threads);

  const int iterations = again.result.epochs;
  std::printf("\n%d Newton iterations, %d CG iterations, %d trial steps; %lld tiles, %lld stored and %lld transposed "
              "entries, %lld weights\n",
              iterations, resident.cg_iterations, resident.trial_steps, static_cast<long long>(resident.tiles),
              static_cast<long long>(resident.stored_entries), static_cast<long long>(resident.transposed_entries),
              static_cast<long long>(resident.n_weights));
  const PassCounts in_iterations = minus(resident.total, resident.at_start);
  if (iterations > 0) {
    const double bytes = cuda::primal::pass_bytes(resident, in_iterations) / iterations;
    const double seconds = resident.iterations / iterations;
    const double floor = bytes / bandwidth;
    std::printf("per Newton iteration: %.3f GB at least (%.1f passes over the rows), %.2f ms; at the copy bandwidth "
                "%.2f ms: %.2fx the floor (target <= 3)\n",
                bytes / 1e9, static_cast<double>(in_iterations.passes()) / iterations, seconds * 1e3, floor * 1e3,
                seconds / floor);
    const double hessian = cuda::primal::pass_bytes(resident, PassCounts{0, 1, 0, 1, 0});
    std::printf("one Hessian product: %.3f GB at least, %.2f ms at the copy bandwidth\n", hessian / 1e9,
                hessian / bandwidth * 1e3);
  }

  // The iterates' test log loss: the same fit again (the same iterates, bit for
  // bit), each accepted step's weights downloaded; untimed.
  std::vector<double> losses;
  SolverParameters snapshots = p;
  snapshots.on_progress = [&](int, const std::function<SolverState()>& snapshot) {
    losses.push_back(test_log_loss(test, snapshot().weights, p.intercept_scaling));
  };
  const Timed traced = timed_fit(*cuda::primal::make_newton_gpu_solver(snapshots, {0}, cache), train);
  const double last_loss = test_log_loss(test, again.state.weights, p.intercept_scaling);
  const double start_loss = test_log_loss(test, std::vector<double>(again.state.weights.size(), 0.0), 0.0);
  std::printf("\n| iteration | s (uploaded run) | CG iterations | primal | relative gap | test log loss |\n"
              "|---|---|---|---|---|---|\n");
  double target_seconds = -1.0;
  for (std::size_t k = 0; k < first.result.history.size(); ++k) {
    const EpochRecord& r = first.result.history[k];
    const double loss = k == 0 ? start_loss : (k - 1 < losses.size() ? losses[k - 1] : last_loss);
    const std::vector<int>& cg = uploaded.cg_at_record;
    const int cg_before = k < cg.size() ? cg[k] - (k > 0 ? cg[k - 1] : 0) : -1;  // the CG that led to this iterate
    std::printf("| %d | %.3f | %d | %.10g | %.2e | %.5f |\n", r.epoch, r.seconds, cg_before, r.primal,
                r.gap / r.primal, loss);
    if (target_seconds < 0 && k > 0 && loss <= last_loss + 1e-4) target_seconds = r.seconds;
  }
  std::printf("\nGPU: %.3f s (rows uploaded) / %.3f s (resident) to tol %g, test log loss %.5f; within 1e-4 of it "
              "after %.3f s (uploaded run); traced run %d iterations\n",
              first.seconds, again.seconds, tol, last_loss, target_seconds, traced.result.epochs);

  if (o.cpu) {
    const Timed cpu = timed_fit(*make_tron_cpu_solver(p), train);
    const double f_cpu = cpu.result.history.back().primal, f_gpu = again.result.history.back().primal;
    const double gap_cpu = cpu.result.history.back().gap / f_cpu, gap_gpu = again.result.history.back().gap / f_gpu;
    std::printf("CPU (%d threads): %.3f s, %d iterations, %lld passes, converged %d, objective %.12g (relative gap "
                "%.1e), test log loss %.5f; GPU objective %.12g (relative gap %.1e): relative difference %.1e, within "
                "the gaps; speed-up %.1fx (rows uploaded), %.1fx (resident)\n",
                p.threads, cpu.seconds, cpu.result.epochs, static_cast<long long>(cpu.result.data_passes),
                cpu.result.converged ? 1 : 0, f_cpu, gap_cpu,
                test_log_loss(test, cpu.state.weights, p.intercept_scaling), f_gpu, gap_gpu,
                std::fabs(f_gpu - f_cpu) / std::fabs(f_cpu), cpu.seconds / first.seconds, cpu.seconds / again.seconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    if (const char* env = std::getenv("SNAPML_DATA_DIR")) o.data_dir = env;
    bench::parse_flags(argc, argv, [&](const std::string& flag, const std::string& value) {
      if (flag == "--data-dir") o.data_dir = value;
      else if (flag == "--threads") o.threads = std::stoi(value);
      else if (flag == "--C") o.C = std::stod(value);
      else if (flag == "--tol") o.tol = std::stod(value);
      else if (flag == "--small") o.small = value != "0";
      else if (flag == "--nnz") o.nnz = std::stoll(value);
      else if (flag == "--features") o.features = std::stoi(value);
      else if (flag == "--criteo-rows") o.criteo_rows = std::stoll(value);
      else if (flag == "--hash-bits") o.hash_bits = std::stoi(value);
      else if (flag == "--test-rows") o.test_rows = std::stoll(value);
      else if (flag == "--cpu") o.cpu = value != "0";
      else return false;
      return true;
    });
    print_fresh_process_costs();
    if (o.small) {
      SolverParameters p;
      p.loss = LossKind::Logistic;
      p.C = o.C > 0 ? o.C : 1.0;
      p.tol = o.tol > 0 ? o.tol : 1e-6;
      p.intercept_scaling = 1.0;
      p.max_epochs = 1000;
      p.threads = o.threads;
      std::printf("gpu_tron_bench: logistic TRON, CPU (%d threads) against GPU 0\n", o.threads);
      for (const char* name : {"a9a", "news20.multiclass"}) {
        const std::filesystem::path path = std::filesystem::path(o.data_dir) / name;
        if (o.data_dir.empty() || !std::filesystem::exists(path)) {
          std::printf("\n%s: skipped, not found in '%s' (--data-dir or SNAPML_DATA_DIR)\n", name, o.data_dir.c_str());
          continue;
        }
        run_small(name, datasets::read_svmlight(path.string()), p);  // news20: class 1 against the rest
      }
      run_small("generated", bench::generated_problem(o.nnz, o.features, 50, LossKind::Logistic, 1 << 18), p);
    }
    if (o.criteo_rows > 0) run_criteo(o);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_tron_bench: %s\n", e.what());
    return 1;
  }
}
