// The owning side of the data view: a dataset made of row chunks.
//
// Readers fill chunks; solvers see them only through CsrView (snapml/csr_view.h),
// so data that is in memory, memory-mapped or streamed all reaches a solver the
// same way (through a ChunkSource, snapml/chunk_source.h).
#pragma once

#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"

namespace snapml {

// One owned chunk of rows in CSR form. Offsets start at 0 within the chunk.
struct CsrChunk {
  std::vector<std::int64_t> row_offsets{0};
  std::vector<std::int32_t> col_indices;
  std::vector<float> values;
  std::vector<double> labels;
  std::vector<float> weights;  // empty: every weight is 1
  std::int64_t first_row = 0;

  std::int64_t n_rows() const { return static_cast<std::int64_t>(labels.size()); }
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  // Appends one row; indices must already be validated by the caller.
  void add_row(double label, const std::int32_t* indices, const float* vals, std::int64_t count);
  CsrView view(std::int32_t n_features) const;
};

namespace detail {
// A number for a set of rows that no other dataset or chunk source of this copy
// of the core is given (counted from a random start: the GPU plugin's copy of the
// core counts apart).
std::uint64_t new_rows_identity();
}  // namespace detail

// A dataset: chunks of consecutive rows and the number of features.
class Dataset {
 public:
  Dataset() = default;
  Dataset(std::vector<CsrChunk> chunks, std::int32_t n_features);

  std::int32_t n_features() const { return n_features_; }
  // Raises the feature count (a test set read with the training set's count).
  void set_n_features(std::int32_t n_features);
  std::int64_t n_rows() const { return n_rows_; }
  std::int64_t nnz() const { return nnz_; }
  std::size_t n_chunks() const { return chunks_.size(); }
  const CsrChunk& chunk(std::size_t i) const { return chunks_[i]; }
  CsrView view(std::size_t i) const { return chunks_[i].view(n_features_); }
  const std::vector<CsrChunk>& chunks() const { return chunks_; }

  // All labels in row order.
  std::vector<double> labels() const;
  // The distinct labels, sorted ascending.
  std::vector<double> distinct_labels() const;
  // One chunk holding every row (copies); what a solver that wants a single
  // resident view of an in-memory dataset uses.
  Dataset merged() const;
  // Which rows these are (ChunkSource::identity, chunk_source.h): a number drawn
  // when the dataset is made, which a copy or a move carries with the rows and no
  // other dataset of the process is given.
  std::uint64_t identity() const { return identity_; }

 private:
  void recount();

  std::vector<CsrChunk> chunks_;
  std::int32_t n_features_ = 0;
  std::int64_t n_rows_ = 0;
  std::int64_t nnz_ = 0;
  std::uint64_t identity_ = detail::new_rows_identity();
};

}  // namespace snapml
