#include "stream_window.h"

#include <algorithm>

namespace snapml {

std::pair<std::int64_t, std::int64_t> window_part(std::int64_t rows, std::size_t parts, std::size_t part) {
  const auto p = static_cast<std::int64_t>(parts);
  const auto k = static_cast<std::int64_t>(part);
  return {rows * k / p, rows * (k + 1) / p};
}

std::size_t stream_window(std::size_t max_held, std::size_t chunks) {
  return std::max<std::size_t>(1, std::min(max_held > 1 ? max_held - 1 : 1, chunks));
}

}  // namespace snapml
