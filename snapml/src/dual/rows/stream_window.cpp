#include "stream_window.h"

#include <algorithm>
#include <deque>
#include <string>

#include "snapml/error.h"

namespace snapml {

std::pair<std::int64_t, std::int64_t> window_part(std::int64_t rows, std::size_t parts, std::size_t part) {
  const auto p = static_cast<std::int64_t>(parts);
  const auto k = static_cast<std::int64_t>(part);
  return {rows * k / p, rows * (k + 1) / p};
}

std::size_t stream_window(std::size_t max_held, std::size_t chunks) {
  return std::max<std::size_t>(1, std::min(max_held > 1 ? max_held - 1 : 1, chunks));
}

namespace {

// A chunk in the window.
struct WindowChunk {
  CsrView x;
  std::int64_t first = 0;           // its first row among all rows
  std::vector<std::int64_t> order;  // its rows in a random order, cut into parts
  std::size_t entered = 0;          // the step it entered the window at
};

}  // namespace

void streamed_epoch(ChunkSource& source, const std::vector<std::int64_t>& chunk_first, detail::SplitMix64& random,
                    StreamedEpoch& epoch,
                    const std::function<void(const detail::ResidentRows&, const std::int64_t*, std::int64_t)>& visit) {
  const std::size_t chunks = chunk_first.size() - 1;
  detail::random_permutation(epoch.chunk_order, static_cast<std::int64_t>(chunks), random);
  // StreamedBinarySource reads its chunks at any offset; a text stream cannot.
  const bool shuffled =
      source.reset_in_order(std::vector<std::size_t>(epoch.chunk_order.begin(), epoch.chunk_order.end()));
  const std::size_t window = stream_window(source.max_held(), chunks);
  source.hold(window);
  std::deque<WindowChunk> held;
  std::size_t position = 0;
  CsrView x;
  // Step k takes chunk k of the pass into the window (while there is one), then
  // visits part (k - j) of every chunk j in it; a chunk leaves after its last part.
  for (std::size_t step = 0; position < chunks || !held.empty(); ++step) {
    if (position < chunks) {
      require(source.next(x), "the chunk source returned fewer chunks than in its first pass");
      const auto c =
          static_cast<std::size_t>(shuffled ? epoch.chunk_order[position] : static_cast<std::int64_t>(position));
      ++position;
      const std::int64_t offset = chunk_first[c];
      require(x.n_rows == chunk_first[c + 1] - offset,
              "chunk " + std::to_string(c) + " of the chunk source changed its row count since the first pass");
      WindowChunk entering{x, offset, {}, step};
      detail::random_permutation(entering.order, x.n_rows, random);
      held.push_back(std::move(entering));
    }
    // This step's rows, as indices among all rows (alpha's), in one random order.
    std::vector<std::int64_t>& order = epoch.order;
    order.clear();
    for (const WindowChunk& chunk : held) {
      const auto [begin, end] = window_part(chunk.x.n_rows, window, step - chunk.entered);
      for (std::int64_t i = begin; i < end; ++i) order.push_back(chunk.first + chunk.order[static_cast<std::size_t>(i)]);
    }
    if (held.size() > 1) detail::shuffle(order.data(), static_cast<std::int64_t>(order.size()), random);
    // The window's chunks sorted by their first row, as the epoch's rows locate them.
    detail::ResidentRows& rows = epoch.window_rows;
    rows.chunks.clear();
    rows.first.clear();
    std::vector<const WindowChunk*> by_first;
    for (const WindowChunk& chunk : held) by_first.push_back(&chunk);
    std::sort(by_first.begin(), by_first.end(),
              [](const WindowChunk* a, const WindowChunk* b) { return a->first < b->first; });
    for (const WindowChunk* chunk : by_first) {
      rows.chunks.push_back(chunk->x);
      rows.first.push_back(chunk->first);
    }
    rows.first.push_back(by_first.back()->first + by_first.back()->x.n_rows);
    visit(rows, order.data(), static_cast<std::int64_t>(order.size()));
    // The oldest chunk has visited its last part: next() may give its buffer up.
    if (step + 1 - held.front().entered == window) held.pop_front();
  }
  source.hold(1);
}

}  // namespace snapml
