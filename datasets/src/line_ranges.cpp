#include "line_ranges.h"

#include <cstring>

namespace snapml::datasets::detail {

std::vector<std::size_t> cut_at_lines(const char* data, std::size_t size, int parts) {
  std::vector<std::size_t> cuts(static_cast<std::size_t>(parts) + 1, size);
  cuts[0] = 0;
  for (std::size_t i = 1; i + 1 < cuts.size(); ++i) {
    // Each cut moves forward to just after the next '\n' (or to the end); never
    // before the previous cut.
    std::size_t at = std::max(size / (cuts.size() - 1) * i, cuts[i - 1]);
    if (at > 0 && at < size && data[at - 1] != '\n') {
      const void* newline = std::memchr(data + at, '\n', size - at);
      at = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - data) + 1 : size;
    }
    cuts[i] = at;
  }
  return cuts;
}

void check_threads_and_chunk_rows(const char* options, int threads, std::int64_t chunk_rows) {
  require(threads >= 0, std::string(options) + ".threads must be 0 (all) or positive, got " + std::to_string(threads));
  require(chunk_rows > 0, std::string(options) + ".chunk_rows must be positive, got " + std::to_string(chunk_rows));
}

InputError located(const char* data, std::size_t offset, const std::string& name, const std::string& problem) {
  std::int64_t line = 1 + std::count(data, data + offset, '\n');
  std::size_t line_start = offset;
  while (line_start > 0 && data[line_start - 1] != '\n') --line_start;
  return InputError(name, line, static_cast<std::int64_t>(offset - line_start) + 1, problem);
}

}  // namespace snapml::datasets::detail
