// Internal: a streamed SDCA epoch's sliding window of chunks (sdca_cpu.cpp;
// docs/out-of-core.md, "Convergence").
//
// One permutation over all rows is what a resident epoch visits; a streamed source
// holds only a few chunks at a time, and visiting one chunk after another makes
// SDCA zig-zag between the chunks' optima (chunk_source.h). So the epoch keeps
// `window` chunks in the ring at once: each chunk's rows are cut at random into
// `window` parts, and at each step, as one chunk enters, the rows of one part of
// every chunk in the window are visited in one random permutation: a step mixes
// rows of `window` chunks, and every row is still visited once an epoch. (The
// window of chunks in memory follows the resident working set of DuHL, Dunner,
// Forte, Takac & Jaggi, NeurIPS 2017, with a sliding instead of a gap-driven
// choice of chunks.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "../../common/random.h"
#include "resident_rows.h"
#include "snapml/chunk_source.h"

namespace snapml {

// Part `part` (0 <= part < parts) of a chunk of `rows` rows, as [begin, end) of
// its random order: the parts cover every row once and differ in size by at most one.
std::pair<std::int64_t, std::int64_t> window_part(std::int64_t rows, std::size_t parts, std::size_t part);

// The chunks a streamed epoch keeps in its window, given the views the source can
// hold at once (ChunkSource::max_held) and the chunk count: all but one buffer,
// which the reader fills ahead; at most the chunks, at least 1.
std::size_t stream_window(std::size_t max_held, std::size_t chunks);

// What a streamed epoch reuses from one epoch to the next.
struct StreamedEpoch {
  std::vector<std::int64_t> chunk_order;
  std::vector<std::int64_t> order;   // a step's rows, as indices among all rows
  detail::ResidentRows window_rows;  // a step's window of chunks, by their first row
};

// One streamed epoch over `source`, whose chunk c holds the rows
// [chunk_first[c], chunk_first[c + 1]) of all rows (its first pass's order): the
// chunks in a fresh random order where the source can take one (reset_in_order),
// the window's rows mixed as above. `visit(rows, order, n)` visits each step's n
// rows order[0, n) (indices among all rows) of the window's chunks `rows`.
void streamed_epoch(ChunkSource& source, const std::vector<std::int64_t>& chunk_first, detail::SplitMix64& random,
                    StreamedEpoch& epoch,
                    const std::function<void(const detail::ResidentRows&, const std::int64_t*, std::int64_t)>& visit);

}  // namespace snapml
