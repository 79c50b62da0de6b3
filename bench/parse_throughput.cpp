// Parse throughput of the svmlight reader (and of the binary chunked format).
//
//   parse_throughput generate --out FILE [--binary FILE.snap] [--rows N] [--features F] [--nnz K]
//     writes a synthetic svmlight file (make_synthetic + write_svmlight), and the
//     same data in the binary format when --binary is given;
//   parse_throughput parse FILE [--threads 1,2] [--repeat R] [--binary FILE.snap]
//     times read_svmlight at each thread count (best of R runs, after one
//     untimed run that fills the page cache), then load_binary on the binary file.
//
// Every result is also printed as one `RESULT key=value ...` line for
// bench/parse_bench.py.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/datasets/synthetic.h"
#include "snapml/error.h"

namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds used by the whole process (all threads), user and system.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Timing {
  double wall = 1e300;  // best of the runs
  double cpu = 1e300;   // CPU seconds of the run with the least CPU time
};

// Times `repeat` runs of `run`. The CPU time is reported beside the wall time
// because the benchmark machine may be shared: on a busy machine the wall time
// of a one-thread run grows, its CPU time does not.
// `run` keeps its result alive until its next call, so that freeing it is not timed.
Timing time_runs(int repeat, const std::function<void()>& run) {
  Timing best;
  for (int i = 0; i < repeat; ++i) {
    double cpu_start = process_cpu_seconds();
    auto start = Clock::now();
    run();
    best.wall = std::min(best.wall, std::chrono::duration<double>(Clock::now() - start).count());
    best.cpu = std::min(best.cpu, process_cpu_seconds() - cpu_start);
  }
  return best;
}

int generate(const std::string& out, const std::string& binary, const snapml::datasets::SyntheticOptions& options) {
  auto start = Clock::now();
  snapml::Dataset data = snapml::datasets::make_synthetic(options);
  snapml::datasets::write_svmlight(data, out);
  if (!binary.empty()) snapml::datasets::write_binary(data, binary);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("wrote %s: %lld rows, %d features, %lld non-zeros, %.1f MB in %.1f s\n", out.c_str(),
              static_cast<long long>(data.n_rows()), data.n_features(), static_cast<long long>(data.nnz()),
              static_cast<double>(std::filesystem::file_size(out)) / 1e6, seconds);
  return 0;
}

int parse(const std::string& path, const std::string& binary, const std::vector<int>& threads, int repeat) {
  const double megabytes = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  snapml::Dataset data;
  snapml::datasets::read_svmlight(path);  // untimed: brings the file into the page cache
  double text_one_thread = 0;
  for (int t : threads) {
    snapml::datasets::SvmlightOptions options;
    options.threads = t;
    Timing timing = time_runs(repeat, [&] {
      data = snapml::Dataset();
      data = snapml::datasets::read_svmlight(path, options);
    });
    if (t == 1) text_one_thread = timing.wall;
    std::printf("svmlight %d thread(s): %.3f s, %.1f MB/s (CPU time %.3f s; %lld rows, %lld non-zeros)\n", t,
                timing.wall, megabytes / timing.wall, timing.cpu, static_cast<long long>(data.n_rows()),
                static_cast<long long>(data.nnz()));
    std::printf("RESULT kind=svmlight threads=%d seconds=%.6f cpu_seconds=%.6f megabytes=%.3f rows=%lld nnz=%lld\n", t,
                timing.wall, timing.cpu, megabytes, static_cast<long long>(data.n_rows()),
                static_cast<long long>(data.nnz()));
  }
  if (!binary.empty()) {
    const double binary_megabytes = static_cast<double>(std::filesystem::file_size(binary)) / 1e6;
    auto report = [&](const char* kind, const char* what, const Timing& timing) {
      std::printf("%s: %.3f s, %.1f MB/s of binary file (CPU time %.3f s)", what, timing.wall,
                  binary_megabytes / timing.wall, timing.cpu);
      if (text_one_thread > 0) std::printf(", %.1fx faster than the 1-thread text parse", text_one_thread / timing.wall);
      std::printf("\nRESULT kind=%s threads=0 seconds=%.6f cpu_seconds=%.6f megabytes=%.3f rows=%lld nnz=%lld\n", kind,
                  timing.wall, timing.cpu, binary_megabytes, static_cast<long long>(data.n_rows()),
                  static_cast<long long>(data.nnz()));
    };
    snapml::datasets::load_binary(binary);  // untimed, as above
    // An owning in-memory copy, every chunk verified: what read_svmlight returns.
    report("binary_load", "binary load_binary (copy)", time_runs(repeat, [&] {
             data = snapml::Dataset();
             data = snapml::datasets::load_binary(binary);
           }));
    // The zero-copy path a solver streams from: map, then verify every chunk.
    std::unique_ptr<snapml::datasets::MappedBinaryFile> mapped;
    report("binary_map", "binary map + verify_all (no copy)", time_runs(repeat, [&] {
             mapped.reset();
             snapml::datasets::BinaryOpenOptions open;
             open.verify_all = true;
             mapped = std::make_unique<snapml::datasets::MappedBinaryFile>(binary, open);
           }));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Parse throughput of the svmlight reader and the binary format"};
  app.require_subcommand(1);

  std::string out, binary_out;
  snapml::datasets::SyntheticOptions synthetic;
  synthetic.rows = 1500000;
  synthetic.features = 1000000;
  synthetic.nnz_per_row = 40;
  auto* gen = app.add_subcommand("generate", "write a synthetic svmlight file");
  gen->add_option("--out", out, "svmlight file to write")->required();
  gen->add_option("--binary", binary_out, "also write the data in the binary format here");
  gen->add_option("--rows", synthetic.rows, "rows")->capture_default_str();
  gen->add_option("--features", synthetic.features, "features")->capture_default_str();
  gen->add_option("--nnz", synthetic.nnz_per_row, "non-zeros per row")->capture_default_str();
  gen->add_option("--seed", synthetic.seed, "seed")->capture_default_str();

  std::string path, binary_in;
  std::vector<int> threads{1, 2};
  int repeat = 3;
  auto* run = app.add_subcommand("parse", "time the readers");
  run->add_option("file", path, "svmlight file")->required()->check(CLI::ExistingFile);
  run->add_option("--binary", binary_in, "binary file holding the same data")->check(CLI::ExistingFile);
  run->add_option("--threads", threads, "thread counts")->delimiter(',')->capture_default_str();
  run->add_option("--repeat", repeat, "timed runs per reader (the best is reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  try {
    if (*gen) return generate(out, binary_out, synthetic);
    return parse(path, binary_in, threads, repeat);
  } catch (const snapml::Error& e) {
    std::fprintf(stderr, "parse_throughput: %s\n", e.what());
    return 1;
  }
}
