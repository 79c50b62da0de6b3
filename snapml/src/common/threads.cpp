#include "snapml/threads.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace snapml {

int thread_limit() {
  static const int limit = std::max(64, 4 * static_cast<int>(std::thread::hardware_concurrency()));
  return limit;
}

int clamp_threads(int requested) { return std::min(requested, thread_limit()); }

int default_threads(std::int64_t epoch_nnz, int available) {
  const std::int64_t wanted = std::max<std::int64_t>(epoch_nnz, 0) / kEpochNnzPerThread;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, std::max(available, 1))));
}

namespace {

// Ranks that share this machine, as the launcher tells (1 when it does not).
int ranks_on_this_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* value = std::getenv(name)) {
      const int ranks = std::atoi(value);
      if (ranks > 0) return ranks;
    }
  }
  return 1;
}

}  // namespace

int threads_per_rank() {
  const int hardware = std::max(1u, std::thread::hardware_concurrency());
  int allowed = hardware;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) allowed = std::max(1, CPU_COUNT(&set));
  return std::max(1, std::min(allowed, hardware / ranks_on_this_node()));
}

}  // namespace snapml
