#include "snapml/chunk_source.h"

#include "snapml/error.h"

namespace snapml {

CsrView ChunkSource::chunk(std::size_t) const {
  throw InvalidArgument("this chunk source streams its chunks in order; it has no random access (resident() is false)");
}

}  // namespace snapml
