#include "snapml/threads.h"

#include <algorithm>
#include <thread>

namespace snapml {

int thread_limit() {
  static const int limit = std::max(64, 4 * static_cast<int>(std::thread::hardware_concurrency()));
  return limit;
}

int clamp_threads(int requested) { return std::min(requested, thread_limit()); }

}  // namespace snapml
