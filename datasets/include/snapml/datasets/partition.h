// Partitioned input for distributed (CoCoA+) training: each rank of a
// Communicator reads only its share of one file.
//
// CoCoA+ (Ma, Smith, Jaggi et al., ICML 2015) needs every rank to hold a disjoint
// part of the rows; which part does not matter for correctness, only for balance.
// The shares here are contiguous, so no rank ever touches another rank's bytes:
//
//  - svmlight text (plain file): rank r of K parses the byte range
//    [r * size / K, (r + 1) * size / K), each end moved forward to just after the
//    next '\n' (as the readers' per-thread cut_at_lines), so every line belongs to
//    exactly one rank. A gzip file cannot be entered in the middle: every rank
//    inflates and parses the whole file and keeps rows [r * n / K, (r + 1) * n / K).
//  - binary .snap file: rank r keeps the chunks whose first row lies in
//    [r * n / K, (r + 1) * n / K), viewed in the memory map with no copy.
//
// A share may be empty (more ranks than lines or chunks); such a rank trains on
// zero rows and still takes part in every collective.
//
// What the whole file decides is agreed over the ranks with collectives, so each
// rank's dataset reads exactly as its rows of read_svmlight(path) would:
//  - the index base with IndexBase::Auto is scikit-learn's rule applied to the
//    whole file, "zero-based when any rank sees an index 0" (an allreduce_max of
//    each rank's finding, made before parsing by a scan of the rank's bytes);
//  - the feature count is the largest over ranks (allreduce_max);
//  - an input with no example on any rank is the same InputError as read_svmlight's.
// Errors name the global line: a rank knows the byte offset of its range and counts
// the newlines before it only on the error path.
//
// Every function here that takes a Communicator is collective: all ranks call it,
// in the same order. A rank that throws does so before (or instead of) the next
// collective, so the caller must end every rank (Communicator::abort) rather than
// return quietly, or the others wait forever. Nothing here depends on MPI: any
// Communicator (the in-process thread one of the tests included) works.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/dataset.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/datasets/svmlight.h"

namespace snapml::datasets {

struct ByteRange {
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct RowRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

// Share `rank` of `ranks` of a text of `size` bytes, both ends at line starts
// (or at `size`). The shares of ranks 0..ranks-1 cover [0, size) in order.
ByteRange line_share(const char* data, std::size_t size, int rank, int ranks);

// Rows [rank * n_rows / ranks, (rank + 1) * n_rows / ranks).
RowRange row_share(std::int64_t n_rows, int rank, int ranks);

// True when [data, data + size) (which starts at a line start) holds a pair with
// index 0 outside comments: scikit-learn's evidence for a zero-based file.
bool has_index_zero(const char* data, std::size_t size);

// This rank's rows of an svmlight file (collective). options.n_features and
// options.index_base apply to the whole file; chunk_rows and threads to this
// rank. The dataset's n_features is the agreed global count; its chunks' first_row
// count from this rank's first row. Throws InputError (file:line:column with the
// line number in the whole file) or IoError.
// `base_read`: as read_svmlight's, the base agreed for the whole file.
Dataset read_svmlight_partition(const std::string& path, Communicator& communicator,
                                const SvmlightOptions& options = {}, IndexBase* base_read = nullptr);
Dataset read_svmlight_partition(InputFile input, Communicator& communicator, const SvmlightOptions& options = {},
                                IndexBase* base_read = nullptr);

// The same for text already in memory; `compressed` marks text inflated from a
// gzip file, which every rank holds whole (rows are shared by index).
Dataset parse_svmlight_partition(const char* data, std::size_t size, const std::string& name,
                                 Communicator& communicator, const SvmlightOptions& options = {},
                                 bool compressed = false, IndexBase* base_read = nullptr);

// Chunks [first, last) of a binary file: those whose first row lies in
// row_share(n_rows, rank, ranks).
struct ChunkRange {
  std::size_t first = 0;
  std::size_t last = 0;
};
ChunkRange chunk_share(const MappedBinaryFile& file, int rank, int ranks);
// The same from a chunk table (every chunk's first_row) over n_rows rows.
ChunkRange chunk_share(const std::vector<BinaryChunkEntry>& table, std::int64_t n_rows, int rank, int ranks);

// This rank's chunks of a binary file's layout, for a StreamedBinarySource that
// reads only them (snap-train --max-memory under mpirun: each rank streams its
// share under its own budget).
BinaryFileLayout layout_share(const BinaryFileLayout& whole, int rank, int ranks);

// This rank's contiguous run of chunks of a mapped binary file, with no copy.
// Every rank maps the whole file (the kernel reads only the pages it touches).
// n_rows and nnz are this rank's; n_features is the file's, the same on every rank.
// Resident, as the one-process reader's rows are: the dual solver's epochs then
// visit the share's rows in a fresh random order and merge the ranks' changes
// several times an epoch (thread_updates.h, distributed_rounds_per_epoch);
// a share larger than --max-memory streams instead (StreamedBinarySource).
class MappedBinaryPartition final : public ResidentSource {
 public:
  MappedBinaryPartition(MappedBinaryFile file, int rank, int ranks);

  bool next(CsrView& chunk) override;
  std::int32_t n_features() const override { return file_.n_features(); }
  std::int64_t n_rows() const override { return n_rows_; }
  std::int64_t nnz() const override { return nnz_; }
  std::size_t n_chunks() const override { return range_.last - range_.first; }
  CsrView chunk(std::size_t index) const override { return file_.chunk(range_.first + index); }
  const MappedBinaryFile& file() const { return file_; }
  ChunkRange chunks() const { return range_; }

 private:
  MappedBinaryFile file_;
  ChunkRange range_;
  std::int64_t n_rows_ = 0;
  std::int64_t nnz_ = 0;
};

}  // namespace snapml::datasets
