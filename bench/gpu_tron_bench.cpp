// The primal Newton solver (TRON, logistic loss) on the GPU against the CPU, on a9a,
// news20 (class 1 against the rest) and a generated problem: seconds to the same
// tolerance, iterations, and the objectives' relative difference (run on a lent
// GPU by bench/gpu_check.sh; docs/benchmarks/gpu.md).
//
//   gpu_tron_bench [--data-dir DIR] [--threads T] [--C C] [--tol TOL] [--nnz N] [--features F]
//
// The GPU is timed twice through one session: the first fit includes uploading
// the rows and building the transposed copy, the second reuses them (as the next
// class of a one-vs-rest fit, or the next C of a path, does).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "gpu_bench_setup.h"
#include "gpu_timing.h"
#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/solver_factory.h"

namespace {

using namespace snapml;

struct Timed {
  FitResult result;
  double seconds = 0.0;
};

Timed timed_fit(Solver& solver, const Dataset& data) {
  InMemorySource source(data);
  LocalCommunicator local;
  SolverState state;
  const auto start = std::chrono::steady_clock::now();
  Timed out;
  out.result = solver.fit(source, local, state);
  out.seconds = bench::seconds_since(start);
  return out;
}

void run(const std::string& name, const Dataset& data, SolverParameters p) {
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

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string data_dir;
    if (const char* env = std::getenv("SNAPML_DATA_DIR")) data_dir = env;
    int threads = static_cast<int>(std::thread::hardware_concurrency());
    double C = 1.0;
    double tol = 1e-6;
    std::int64_t nnz = 50'000'000;
    std::int32_t features = 1 << 20;
    bench::parse_flags(argc, argv, [&](const std::string& flag, const std::string& value) {
      if (flag == "--data-dir") data_dir = value;
      else if (flag == "--threads") threads = std::stoi(value);
      else if (flag == "--C") C = std::stod(value);
      else if (flag == "--tol") tol = std::stod(value);
      else if (flag == "--nnz") nnz = std::stoll(value);
      else if (flag == "--features") features = std::stoi(value);
      else return false;
      return true;
    });
    SolverParameters p;
    p.loss = LossKind::Logistic;
    p.C = C;
    p.tol = tol;
    p.intercept_scaling = 1.0;
    p.max_epochs = 1000;
    p.threads = threads;
    std::printf("gpu_tron_bench: logistic TRON, CPU (%d threads) against GPU 0\n", threads);
    for (const char* name : {"a9a", "news20.multiclass"}) {
      const std::filesystem::path path = std::filesystem::path(data_dir) / name;
      if (data_dir.empty() || !std::filesystem::exists(path)) {
        std::printf("\n%s: skipped, not found in '%s' (--data-dir or SNAPML_DATA_DIR)\n", name, data_dir.c_str());
        continue;
      }
      run(name, datasets::read_svmlight(path.string()), p);  // news20: class 1 against the rest
    }
    run("generated", bench::generated_problem(nnz, features, 50, LossKind::Logistic, 1 << 18), p);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_tron_bench: %s\n", e.what());
    return 1;
  }
}
