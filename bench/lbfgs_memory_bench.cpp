// The L-BFGS memory's cost per iteration (snapml/src/primal/quasi_newton.h): one
// remember of a new pair and one direction, at news20's multinomial width (20
// classes x 62,061 weights = 1,241,220) with 10 pairs, random pairs with s.y > 0.
//
//   lbfgs_memory_bench [--width N] [--pairs M] [--threads T] [--iterations I]
//
// Prints the mean and the fastest of the iterations after the memory is full.
// docs/benchmarks/primal.md has a run.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "../snapml/src/primal/quasi_newton.h"

int main(int argc, char** argv) {
  CLI::App app{"L-BFGS memory: one remember and one direction per iteration"};
  std::size_t width = 1241220;
  int pairs = 10, threads = 2, iterations = 20;
  app.add_option("--width", width);
  app.add_option("--pairs", pairs);
  app.add_option("--threads", threads);
  app.add_option("--iterations", iterations);
  CLI11_PARSE(app, argc, argv);
  snapml::detail::LbfgsMemory memory(width, pairs, threads);
  std::mt19937 random(1);
  std::normal_distribution<double> normal;
  std::vector<double> s(width), y(width), g(width), p;
  double total = 0.0, fastest = 1e300, slope_sum = 0.0;
  for (int iteration = 0; iteration < pairs + iterations; ++iteration) {
    for (std::size_t j = 0; j < width; ++j) {
      s[j] = normal(random);
      y[j] = 2.0 * s[j] + 0.1 * normal(random);
      g[j] = normal(random);
    }
    const auto start = std::chrono::steady_clock::now();
    memory.remember(s, y);
    slope_sum += memory.direction(g, p);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (iteration < pairs) continue;  // until the memory is full
    total += seconds;
    fastest = std::min(fastest, seconds);
  }
  std::printf("width %zu pairs %d threads %d: mean %.1f ms, fastest %.1f ms (slopes %.3g)\n", width, pairs, threads,
              1e3 * total / iterations, 1e3 * fastest, slope_sum);
  return 0;
}
