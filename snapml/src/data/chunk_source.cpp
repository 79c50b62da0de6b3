#include "snapml/chunk_source.h"

#include <string>

#include "snapml/error.h"

namespace snapml {

ChunkSource::ChunkSource() : identity_(detail::new_rows_identity()) {}

CsrView ChunkSource::chunk(std::size_t) const {
  throw InvalidArgument("this chunk source streams its chunks in order; it has no random access (resident() is false)");
}

bool ChunkSource::reset_in_order(const std::vector<std::size_t>&) {
  reset();
  return false;
}

void ChunkSource::hold(std::size_t count) {
  require(count >= 1 && count <= max_held(), "a chunk source asked to hold " + std::to_string(count) +
                                                 " views at once keeps at most " + std::to_string(max_held()));
}

}  // namespace snapml
