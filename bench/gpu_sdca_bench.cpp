// The GPU dual solver (epoch_schedule.h, "hot and cold") to the CPU optimum's
// tolerance on a9a, w8a and a generated Criteo-like click log (2M rows by
// default), in one run of about a minute and a half on an H100. Prints a markdown
// table; bench/gpu_check.sh runs it on a lent GPU.
//
//   gpu_sdca_bench [--criteo-rows N] [--loss NAME] [--tol T] [--device D] [--data DIR]
//                  [--target-log-loss L] [--peer-seconds S] [--criteria 0|1]
//
// Per data set: the CPU solver on one thread to tol / 10 gives the reference
// optimum P* (serial SDCA: on the 16-core device the shared w's 16 threads left
// a9a's reference 20 times above the optimum after 1,000 epochs, device run of
// 2026-11-27; a reference that misses its tolerance is said in the table); the GPU fit stops at its certificate's tol (the CPU default's
// relative gap); printed are its epochs and seconds to it, the GPU's seconds per
// epoch against the memory floor of one pass over the data (8 bytes per
// non-zero, 48 per row, 16 per weight, at the measured device-to-device copy
// bandwidth) and against the floor of the passes the schedule made (cold pass,
// margins, Hessian products, the certificate's paired point: FitResult::
// data_passes), the final certified gap and P_gpu / P* - 1. On the click log also
// the test log loss on the 200k rows after the training rows (IBM snapml's GPU
// solver reached 0.0938 after 64 epochs in 1.23 s on an H100,
// ../shared/device-runs/2026-11-26/README.md).
//
// Then issue 33's device criteria on the click log (--criteria 1, the default):
//   time to the peer's test log loss  fits of 1, 2, 4, ... epochs (each a fresh
//       fit, upload included, tol 1e-12 so it runs its budget), then a bisection
//       between the last miss and the first hit: the fastest fit whose model's
//       test log loss is at most --target-log-loss (IBM snapml's GPU solver after
//       64 epochs, 0.0938, in --peer-seconds 1.23 s); the issue asks for half
//   streamed at half the data's size  max_gpu_memory = the fixed bytes + half the
//       chunks' bytes, against resident, seconds per epoch over 8 epochs; the
//       issue asks for at most 1.3 x resident + the transfer the link cannot hide
//       (the streamed bytes an epoch at the measured pinned upload rate, less the
//       resident epoch's time).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "gpu_bench_setup.h"
#include "gpu_timing.h"
#include "snapml/chunk_source.h"
#include "snapml/cuda/check.h"
#include "snapml/cuda/device_resources.h"
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/cuda/stream_plan.h"
#include "snapml/datasets/criteo.h"
#include "snapml/datasets/criteo_generator.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "snapml/impl/objectives.h"

namespace {

using Clock = std::chrono::steady_clock;
using snapml::bench::seconds_since;

struct Options {
  std::int64_t criteo_rows = 2'000'000;
  std::int64_t criteo_test_rows = 200'000;
  snapml::LossKind loss = snapml::LossKind::Logistic;
  double tol = 1e-3;
  int device = 0;
  std::string data_dir;
  double target_log_loss = 0.0938;
  double peer_seconds = 1.23;
  bool criteria = true;
};

Options parse(int argc, char** argv) {
  Options o;
  if (const char* dir = std::getenv("SNAPML_DATA_DIR")) o.data_dir = dir;
  if (o.data_dir.empty()) o.data_dir = "../shared/datasets";
  snapml::bench::parse_flags(argc, argv, [&](const std::string& flag, const std::string& value) {
    if (flag == "--criteo-rows") o.criteo_rows = std::atoll(value.c_str());
    else if (flag == "--target-log-loss") o.target_log_loss = std::atof(value.c_str());
    else if (flag == "--peer-seconds") o.peer_seconds = std::atof(value.c_str());
    else if (flag == "--criteria") o.criteria = std::atoi(value.c_str()) != 0;
    else if (flag == "--loss") o.loss = snapml::loss_from_name(value);
    else if (flag == "--tol") o.tol = std::atof(value.c_str());
    else if (flag == "--device") o.device = std::atoi(value.c_str());
    else if (flag == "--data") o.data_dir = value;
    else return false;
    return true;
  });
  snapml::require(o.criteo_rows > 0 && o.tol > 0.0, "--criteo-rows and --tol must be positive");
  return o;
}

// Criteo-like rows [first, first + rows) of snap-criteo-gen's world (seed 11),
// hashed into 2^20 buckets as snap-convert does.
snapml::Dataset criteo_rows(std::int64_t first, std::int64_t rows) {
  snapml::datasets::CriteoGeneratorOptions generator;
  generator.rows = rows;
  generator.first_row = first;
  generator.seed = 11;
  std::string text;
  snapml::datasets::generate_criteo(generator, [&](const char* data, std::size_t size) { text.append(data, size); });
  return snapml::datasets::parse_criteo(text.data(), text.size(), "generated").dataset;
}

struct Problem {
  std::string name;
  snapml::Dataset train;
  snapml::Dataset test;  // empty where no test rows
  double C = 1.0;
};

double test_log_loss(const snapml::Dataset& test, const std::vector<double>& w) {
  if (test.n_rows() == 0) return NAN;
  double sum = 0.0;
  const std::size_t bias = w.size() - 1;
  for (std::size_t c = 0; c < test.n_chunks(); ++c) {
    const snapml::CsrView x = test.view(c);
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      const double margin = snapml::row_dot(x, row, w.data()) + w[bias];
      const double y = x.labels[row] > 0.5 ? 1.0 : -1.0;
      const double t = -y * margin;
      sum += (t > 0.0 ? t : 0.0) + std::log1p(std::exp(-std::fabs(t)));
    }
  }
  return sum / static_cast<double>(test.n_rows());
}

void run(const Problem& problem, const Options& o, double bandwidth) {
  snapml::SolverParameters p;
  p.loss = o.loss;
  p.C = problem.C;
  p.intercept_scaling = 1.0;
  p.max_epochs = 1000;
  p.seed = 3;
  snapml::InMemorySource source(problem.train);
  snapml::LocalCommunicator local;

  // The reference optimum: serial SDCA to a tenth of the tolerance.
  snapml::SolverParameters reference = p;
  reference.tol = o.tol / 10.0;
  reference.threads = 1;
  snapml::SolverState cpu_state;
  auto started = Clock::now();
  const snapml::FitResult cpu = snapml::make_sdca_cpu_solver(reference)->fit(source, local, cpu_state);
  const double cpu_seconds = seconds_since(started);
  const double optimum = cpu.history.back().primal;

  snapml::SolverParameters gpu_parameters = p;
  gpu_parameters.tol = o.tol;
  snapml::SolverState gpu_state;
  started = Clock::now();
  const snapml::FitResult gpu =
      snapml::cuda::make_sdca_gpu_solver(gpu_parameters, {o.device})->fit(source, local, gpu_state);
  const double gpu_seconds = seconds_since(started);
  const snapml::EpochRecord& last = gpu.history.back();
  const snapml::EpochRecord& first = gpu.history.front();
  const double per_epoch = gpu.history.size() > 1
                               ? (last.seconds - first.seconds) / static_cast<double>(last.epoch - first.epoch)
                               : last.seconds / std::max(1, last.epoch);
  const double pass_bytes = 8.0 * static_cast<double>(problem.train.nnz()) +
                            48.0 * static_cast<double>(problem.train.n_rows()) +
                            16.0 * static_cast<double>(problem.train.n_features());
  const double floor_ms = pass_bytes / (bandwidth * 1e6);
  const double passes = static_cast<double>(gpu.data_passes) / std::max(1, gpu.epochs);
  std::printf("| %s | %lld | %.3g | %.2f (%d ep%s) | %s %d | %.3f | %.3f | %.3f | %.1f | %.1fx | %.1fx | %.2e | %.1e | %.4f |\n",
              problem.name.c_str(), static_cast<long long>(problem.train.n_rows()),
              static_cast<double>(problem.train.nnz()), cpu_seconds, cpu.epochs,
              cpu.converged ? "" : ", MISSED its tol: P* not known", gpu.converged ? "met at" : "MISSED,",
              gpu.epochs, gpu_seconds, last.seconds, per_epoch * 1e3, passes, per_epoch * 1e3 / floor_ms,
              per_epoch * 1e3 / (passes * floor_ms), last.gap / last.primal, last.primal / optimum - 1.0,
              test_log_loss(problem.test, gpu_state.weights));
  std::fflush(stdout);
}

struct BudgetFit {
  int epochs = 0;
  double seconds = 0.0;     // the whole fit, upload included
  double per_epoch = 0.0;   // between its first and last records
  double log_loss = 0.0;
  double passes = 0.0;      // data passes an epoch
};

// A fresh GPU fit of exactly `epochs` epochs (tol 1e-12: the budget ends it).
BudgetFit fit_epochs(const Problem& problem, const Options& o, int epochs, std::uint64_t max_gpu_memory = 0) {
  snapml::SolverParameters p;
  p.loss = o.loss;
  p.C = problem.C;
  p.intercept_scaling = 1.0;
  p.max_epochs = epochs;
  p.tol = 1e-12;
  p.seed = 3;
  p.max_gpu_memory = max_gpu_memory;
  snapml::InMemorySource source(problem.train);
  snapml::LocalCommunicator local;
  snapml::SolverState state;
  const auto started = Clock::now();
  const snapml::FitResult fit = snapml::cuda::make_sdca_gpu_solver(p, {o.device})->fit(source, local, state);
  BudgetFit out;
  out.seconds = seconds_since(started);
  out.epochs = fit.epochs;
  const snapml::EpochRecord& first = fit.history.front();
  const snapml::EpochRecord& last = fit.history.back();
  out.per_epoch = last.epoch > first.epoch ? (last.seconds - first.seconds) / (last.epoch - first.epoch)
                                           : last.seconds / std::max(1, last.epoch);
  out.passes = static_cast<double>(fit.data_passes) / std::max(1, fit.epochs);
  out.log_loss = test_log_loss(problem.test, state.weights);
  return out;
}

void click_log_criteria(const Problem& problem, const Options& o, double link_gbs) {
  std::printf("\n### Issue 33's device criteria on %s\n\n| epochs | fit s (upload included) | test log loss |\n"
              "|---|---|---|\n", problem.name.c_str());
  int miss = 0, hit = 0;
  double hit_seconds = 0.0;
  auto probe = [&](int epochs) {  // one fit; moves the bracket [miss, hit]
    const BudgetFit f = fit_epochs(problem, o, epochs);
    std::printf("| %d | %.3f | %.5f |\n", f.epochs, f.seconds, f.log_loss);
    std::fflush(stdout);
    if (f.log_loss <= o.target_log_loss) {
      hit = epochs;
      hit_seconds = f.seconds;
    } else {
      miss = epochs;
    }
  };
  for (int epochs = 1; epochs <= 256 && hit == 0; epochs *= 2) probe(epochs);
  while (hit > 0 && hit - miss > 1 && hit - miss > hit / 8) probe((miss + hit) / 2);  // to an eighth of the epochs
  if (hit > 0)
    std::printf("\ntime to the peer's test log loss %.4f: %.3f s (%d epochs); the peer %.2f s; the issue's bound "
                "%.3f s: %s\n", o.target_log_loss, hit_seconds, hit, o.peer_seconds, o.peer_seconds / 2,
                hit_seconds <= o.peer_seconds / 2 ? "met" : "MISSED");
  else
    std::printf("\ntime to the peer's test log loss %.4f: not reached in 256 epochs: MISSED\n", o.target_log_loss);

  std::vector<snapml::cuda::ChunkShape> shapes;
  for (std::size_t c = 0; c < problem.train.n_chunks(); ++c)
    shapes.push_back({problem.train.view(c).n_rows, problem.train.view(c).nnz()});
  const snapml::cuda::DeviceMemoryNeeds needs = snapml::cuda::device_memory_needs(shapes, problem.train.n_features());
  std::uint64_t data_bytes = 0;
  for (const std::uint64_t bytes : needs.chunk_bytes) data_bytes += bytes;
  const std::uint64_t budget = needs.fixed_bytes() + data_bytes / 2;
  const BudgetFit resident = fit_epochs(problem, o, 8);
  const BudgetFit streamed = fit_epochs(problem, o, 8, budget);
  // At most half the chunks stay: the other half crosses the link every pass.
  const double link_s = streamed.passes * 0.5 * static_cast<double>(data_bytes) / (link_gbs * 1e9);
  const double bound = 1.3 * resident.per_epoch + std::max(0.0, link_s - resident.per_epoch);
  std::printf("\n| 8 epochs | max_gpu_memory | s / epoch | passes / epoch | streamed / resident |\n"
              "|---|---|---|---|---|\n| resident | none | %.4f | %.1f | 1.00 |\n"
              "| streamed | %.3g bytes (fixed + half of %.3g) | %.4f | %.1f | %.2f |\n\n"
              "streamed at half the data's size: %.4f s an epoch; half the chunks over the link at %.1f GB/s for "
              "every pass: %.4f s; the issue's bound 1.3 x resident + what the link cannot hide = %.4f s: %s\n",
              resident.per_epoch, resident.passes, static_cast<double>(budget), static_cast<double>(data_bytes),
              streamed.per_epoch, streamed.passes, streamed.per_epoch / resident.per_epoch, streamed.per_epoch,
              link_gbs, link_s, bound, streamed.per_epoch <= bound ? "met" : "MISSED");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  snapml::cuda::DeviceResources resources(o.device);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const double bandwidth = snapml::bench::copy_bandwidth_gbs(resources.compute_stream(), 10);
  std::printf("device: %s; host: %d cores; loss %s, tol %g; device-to-device copy %.0f GB/s (read + write)\n\n",
              resources.description().c_str(), cores, snapml::loss_name(o.loss), o.tol, bandwidth);

  std::vector<Problem> problems;
  for (const char* name : {"a9a", "w8a"}) {
    try {
      problems.push_back({name, snapml::datasets::read_svmlight(o.data_dir + "/" + name), {}, 1.0});
    } catch (const std::exception& e) {
      std::printf("%s: skipped (%s)\n", name, e.what());
    }
  }
  const auto generating = Clock::now();
  Problem criteo{"criteo-like", criteo_rows(0, o.criteo_rows), criteo_rows(o.criteo_rows, o.criteo_test_rows), 0.1};
  criteo.name += " " + std::to_string(o.criteo_rows / 1000) + "k";
  std::printf("generated the click log (%lld + %lld rows) in %.1f s\n\n", static_cast<long long>(o.criteo_rows),
              static_cast<long long>(o.criteo_test_rows), seconds_since(generating));
  problems.push_back(std::move(criteo));

  std::printf("| data | rows | nnz | CPU ref s (epochs, 1 thread) | GPU to tol: epochs | GPU fit s | s at the stop | "
              "ms / epoch | passes / epoch | epoch / one-pass floor | epoch / its passes' floor | final rel. gap | "
              "P / P* - 1 | test log loss |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Problem& problem : problems) run(problem, o, bandwidth);
  if (o.criteria) {
    const std::size_t probe = std::size_t{1} << 30;
    const double link_ms = snapml::bench::pinned_upload_ms(resources.copy_stream(), probe, 3);
    const double link_gbs = static_cast<double>(probe) / (link_ms * 1e6);
    click_log_criteria(problems.back(), o, link_gbs);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gpu_sdca_bench: %s\n", e.what());
  return 1;
}
