#include "snapml/threads.h"

#include <algorithm>
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

}  // namespace snapml
