// Internal: the sliding window of chunks a streamed SDCA epoch mixes (sdca_cpu.cpp,
// WindowChunk; docs/out-of-core.md, "Convergence"). Pure functions, tested alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace snapml {

// Part `part` (0 <= part < parts) of a chunk of `rows` rows, as [begin, end) of
// its random order: the parts cover every row once and differ in size by at most one.
std::pair<std::int64_t, std::int64_t> window_part(std::int64_t rows, std::size_t parts, std::size_t part);

// The chunks a streamed epoch keeps in its window, given the views the source can
// hold at once (ChunkSource::max_held) and the chunk count: all but one buffer,
// which the reader fills ahead; at most the chunks, at least 1.
std::size_t stream_window(std::size_t max_held, std::size_t chunks);

}  // namespace snapml
