// Helpers shared by the parallel text readers (svmlight_reader.cpp,
// criteo_reader.cpp), which all work the same way: cut the input into
// line-aligned byte ranges, parse each range on its own thread into per-range
// row arrays, then copy the ranges, in file order, into chunks cut by global row
// number.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <exception>

#include "parallel.h"
#include "snapml/dataset.h"
#include "snapml/error.h"

namespace snapml::datasets::detail {

// Cuts [0, size) into `parts` ranges that each start at a line start, so that
// every line belongs to exactly one range and the threads need no coordination.
// Returns parts + 1 offsets; a range may be empty.
std::vector<std::size_t> cut_at_lines(const char* data, std::size_t size, int parts);

// The InputError for `problem` found at byte `offset` of `data`. Line and column
// are counted only here, on the error path, so that the parsers' hot loops keep
// no line bookkeeping and only record the byte offset of the offending token.
InputError located(const char* data, std::size_t offset, const std::string& name, const std::string& problem);

// Fills `chunk` with global rows [first, last) taken from the ranges in order;
// `range_first_row[t]` is the global number of range t's first row (one entry
// more than there are ranges, the last being the row count). Each column index
// is stored minus `index_shift` (svmlight: 1 for one-based files, whose base is
// known only once every range is parsed). Rows is any per-range buffer with
// `labels`, `indices`, `values` and `row_ends` (that range's nnz after each of
// its rows). The segments are found first so that the chunk's arrays are sized
// once and written in a single pass, with no regrowth.
template <class Rows>
void fill_chunk(CsrChunk& chunk, std::int64_t first, std::int64_t last, const std::vector<Rows>& ranges,
                const std::vector<std::int64_t>& range_first_row, std::int32_t index_shift = 0) {
  struct Segment {
    const Rows* rows;
    std::size_t begin, end;  // local rows
    std::int64_t nnz_begin, nnz_end;
  };
  std::vector<Segment> segments;
  auto t = static_cast<std::size_t>(
      std::upper_bound(range_first_row.begin(), range_first_row.end(), first) - range_first_row.begin() - 1);
  std::int64_t nnz = 0;
  for (std::int64_t row = first; row < last; ++t) {
    const Rows& r = ranges[t];
    auto begin = static_cast<std::size_t>(row - range_first_row[t]);
    auto end = static_cast<std::size_t>(std::min(last, range_first_row[t + 1]) - range_first_row[t]);
    if (begin == end) continue;  // an empty range
    Segment s{&r, begin, end, begin ? r.row_ends[begin - 1] : 0, r.row_ends[end - 1]};
    nnz += s.nnz_end - s.nnz_begin;
    segments.push_back(s);
    row += static_cast<std::int64_t>(end - begin);
  }

  chunk.row_offsets.clear();
  chunk.row_offsets.reserve(static_cast<std::size_t>(last - first) + 1);
  chunk.row_offsets.push_back(0);
  chunk.labels.reserve(static_cast<std::size_t>(last - first));
  chunk.col_indices.resize(static_cast<std::size_t>(nnz));
  chunk.values.resize(static_cast<std::size_t>(nnz));
  std::int64_t written = 0;
  for (const Segment& s : segments) {
    chunk.labels.insert(chunk.labels.end(), s.rows->labels.begin() + static_cast<std::ptrdiff_t>(s.begin),
                        s.rows->labels.begin() + static_cast<std::ptrdiff_t>(s.end));
    for (std::size_t i = s.begin; i < s.end; ++i)
      chunk.row_offsets.push_back(written + s.rows->row_ends[i] - s.nnz_begin);
    const std::int32_t* from = s.rows->indices.data() + s.nnz_begin;
    std::int32_t* to = chunk.col_indices.data() + written;
    for (std::int64_t k = 0; k < s.nnz_end - s.nnz_begin; ++k) to[k] = from[k] - index_shift;
    std::copy(s.rows->values.begin() + s.nnz_begin, s.rows->values.begin() + s.nnz_end,
              chunk.values.begin() + written);
    written += s.nnz_end - s.nnz_begin;
  }
}

// The options every parallel reader takes: `threads` 0 (all) or positive, and
// positive `chunk_rows`; `options` names the struct in the message.
void check_threads_and_chunk_rows(const char* options, int threads, std::int64_t chunk_rows);

// Phase 2 of every reader: the input cut at line starts into one range per
// thread, range t parsed on its own thread by parse(rows, begin, end) into
// ranges[t]. Nothing may leave a parallel loop, so an exception a range throws is
// kept in its `exception`, for the caller to rethrow in range order.
template <class Rows, class Parse>
std::vector<Rows> parse_ranges(const char* data, std::size_t size, int threads, Parse parse) {
  const std::vector<std::size_t> cuts = cut_at_lines(data, size, threads);
  std::vector<Rows> ranges(static_cast<std::size_t>(threads));
  SNAPML_OMP(parallel for schedule(dynamic, 1) num_threads(threads))
  for (int i = 0; i < threads; ++i) {
    const auto t = static_cast<std::size_t>(i);
    try {
      parse(ranges[t], cuts[t], cuts[t + 1]);
    } catch (...) {
      ranges[t].exception = std::current_exception();
    }
  }
  return ranges;
}

// The global number of each range's first row, and the row count last.
template <class Rows>
std::vector<std::int64_t> range_first_rows(const std::vector<Rows>& ranges) {
  std::vector<std::int64_t> first(ranges.size() + 1, 0);
  for (std::size_t t = 0; t < ranges.size(); ++t)
    first[t + 1] = first[t] + static_cast<std::int64_t>(ranges[t].row_ends.size());
  return first;
}

// Phase 3: the ranges' rows, in file order, cut into chunks of `chunk_rows` rows
// by global row number (so the chunks do not depend on the thread count), filled
// in parallel (fill_chunk, with its index_shift).
template <class Rows>
std::vector<CsrChunk> fill_chunks(const std::vector<Rows>& ranges, const std::vector<std::int64_t>& range_first_row,
                                  std::int64_t chunk_rows, int threads, std::int32_t index_shift = 0) {
  const std::int64_t n_rows = range_first_row.back();
  const std::int64_t n_chunks = (n_rows + chunk_rows - 1) / chunk_rows;
  std::vector<CsrChunk> chunks(static_cast<std::size_t>(n_chunks));
  std::vector<std::exception_ptr> failures(chunks.size());  // no exception may leave the parallel loop
  SNAPML_OMP(parallel for schedule(dynamic, 1) num_threads(threads))
  for (std::int64_t c = 0; c < n_chunks; ++c) {
    const std::int64_t first = c * chunk_rows;
    try {
      fill_chunk(chunks[static_cast<std::size_t>(c)], first, std::min(n_rows, first + chunk_rows), ranges,
                 range_first_row, index_shift);
    } catch (...) {
      failures[static_cast<std::size_t>(c)] = std::current_exception();
    }
  }
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return chunks;
}

}  // namespace snapml::datasets::detail
