#include "snapml/chunk_source.h"

#include "snapml/error.h"

namespace snapml {

CsrView ChunkSource::chunk(std::size_t) const {
  throw InvalidArgument("this chunk source streams its chunks in order; it has no random access (resident() is false)");
}

bool ChunkSource::reset_in_order(const std::vector<std::size_t>&) {
  reset();
  return false;
}

}  // namespace snapml
