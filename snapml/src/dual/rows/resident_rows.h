// Internal: a resident source's chunks as one SDCA epoch addresses them (one
// permutation over all rows, sdca_cpu.cpp), and how it finds a row's chunk.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"

namespace snapml::detail {

// Every chunk of a resident source at once, and where each starts among this
// rank's rows; order[] holds indices into all of them.
struct ResidentRows {
  std::vector<CsrView> chunks;
  std::vector<std::int64_t> first;  // chunks.size() + 1 prefix sums of the row counts
  // The chunk of the first row of every block of 2^kBlockShift rows (index_blocks);
  // empty: chunk_of searches `first`.
  static constexpr int kBlockShift = 8;
  std::vector<std::uint32_t> block_chunk;

  // Fills block_chunk, for chunks that start at row 0 and follow each other.
  void index_blocks() {
    const std::int64_t rows = first.back();
    block_chunk.resize(static_cast<std::size_t>((rows >> kBlockShift) + 1));
    std::uint32_t c = 0;
    for (std::size_t b = 0; b < block_chunk.size(); ++b) {
      const std::int64_t row = static_cast<std::int64_t>(b) << kBlockShift;
      while (c + 1 < chunks.size() && first[c + 1] <= row) ++c;
      block_chunk[b] = c;
    }
  }
  // The chunk holding row `index` among all rows. An epoch asks four times a row
  // (the row and the three prefetch stages), for indices in a random order: a
  // binary search mispredicted about every second level, which cost a click log's
  // 14 chunks 15 % of the epoch against the same rows in one chunk. The block's
  // chunk is one load from a table of n / 256 entries, and moving on from it
  // to the chunk that holds the row is rare (a chunk boundary inside the block).
  std::size_t chunk_of(std::int64_t index) const {
    if (block_chunk.empty())
      return static_cast<std::size_t>(std::upper_bound(first.begin() + 1, first.end(), index) - (first.begin() + 1));
    std::size_t c = block_chunk[static_cast<std::size_t>(index >> kBlockShift)];
    while (first[c + 1] <= index) ++c;
    return c;
  }
};

}  // namespace snapml::detail
