// The chunk-source seam: a dataset cut into row chunks, visited in order.
//
// Solvers loop `reset(); while (next(chunk)) ...` and never know whether the rows
// are in memory, memory-mapped from a binary file, or parsed as they stream. A view
// returned by next() stays valid until the following next() or reset() call.
//
// Resident sources (in memory, memory-mapped) also hand out any chunk by index,
// valid for the source's lifetime. Solvers use that to visit the rows of all
// chunks in one random permutation: a permutation cut into chunk-sized blocks
// visited one after another converges several times slower per epoch (dual
// coordinate ascent on a9a, 2,000-row blocks: a relative duality gap of 0.045
// after 10 epochs against 0.0045 for one permutation; docs/algorithms.md).
// Streamed sources cannot: the solver shuffles the order of their chunks each
// epoch instead (reset_in_order), which recovers part of the difference, and
// where the source can keep several chunks' views valid at once (hold) it visits
// the rows of a window of chunks in one permutation (snapml/src/dual/rows/stream_window.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "snapml/csr_view.h"
#include "snapml/dataset.h"

namespace snapml {

class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  // Fills `chunk` with the next chunk and returns true, or returns false at the end.
  virtual bool next(CsrView& chunk) = 0;
  // Starts again from the first chunk.
  virtual void reset() = 0;
  // Starts a pass that returns the chunks in `order` (a permutation of
  // 0 .. n_chunks() - 1, indices in next()'s default order) and returns true. A
  // source that can only go forward returns false after reset(): the pass then
  // comes in the default order. Streamed sources with random access to their
  // chunks (StreamedBinarySource) use it for the per-epoch chunk shuffle of SDCA.
  virtual bool reset_in_order(const std::vector<std::size_t>& order);
  // The most views hold() can keep valid at once: 1 unless the source says more.
  virtual std::size_t max_held() const { return 1; }
  // From now on the views of the last `count` chunks next() returned stay valid
  // together (1 <= count <= max_held()): next() gives up the oldest only when
  // `count` are held, and reset()/reset_in_order() give up all of them. 1, the
  // default, is the contract above. Throws InvalidArgument outside that range.
  virtual void hold(std::size_t count);
  virtual std::int32_t n_features() const = 0;
  virtual std::int64_t n_rows() const = 0;
  virtual std::int64_t nnz() const = 0;
  virtual std::size_t n_chunks() const = 0;
  // True when chunk(i) may be called; the views it returns outlive next()/reset().
  virtual bool resident() const { return false; }
  // Chunk i (0 <= i < n_chunks()) of a resident source, in next()'s order.
  virtual CsrView chunk(std::size_t index) const;
  // Which rows these are, for the rows a session keeps on a device between fits
  // (solver_factory.h, SolverSession): a number drawn when the source is made,
  // which no other source of the process is given, so a session never mistakes
  // a later source for the one whose rows it holds, as an address could (a
  // source made where a freed one lived). A source that wraps another over the
  // same rows (other labels) answers the inner one's. The caller keeps the rows
  // unchanged while a session may hold them.
  virtual std::uint64_t identity() const { return identity_; }

 protected:
  ChunkSource();
  ChunkSource(const ChunkSource&) = default;  // a copy is the same rows
  ChunkSource& operator=(const ChunkSource&) = default;

 private:
  std::uint64_t identity_;
};

// The cursor of every resident source: next() hands out chunk(0), chunk(1), ...
// from a position of its own. A resident source implements chunk() and the
// counts, and inherits the rest.
class ResidentSource : public ChunkSource {
 public:
  bool next(CsrView& chunk) override {
    if (position_ >= n_chunks()) return false;
    chunk = this->chunk(position_++);
    return true;
  }
  void reset() override { position_ = 0; }
  bool resident() const final { return true; }
  // Every view of a resident source stays valid.
  std::size_t max_held() const final { return n_chunks() > 0 ? n_chunks() : 1; }
  void hold(std::size_t) final {}
  CsrView chunk(std::size_t index) const override = 0;

 protected:
  // The index of the chunk the next next() returns.
  std::size_t position() const { return position_; }

 private:
  std::size_t position_ = 0;
};

// Chunks of a Dataset held in memory. Does not own the dataset.
class InMemorySource final : public ResidentSource {
 public:
  explicit InMemorySource(const Dataset& data) : data_(data) {}
  std::int32_t n_features() const override { return data_.n_features(); }
  std::int64_t n_rows() const override { return data_.n_rows(); }
  std::int64_t nnz() const override { return data_.nnz(); }
  std::size_t n_chunks() const override { return data_.n_chunks(); }
  CsrView chunk(std::size_t index) const override { return data_.view(index); }
  std::uint64_t identity() const override { return data_.identity(); }  // the dataset's rows

 private:
  const Dataset& data_;
};

// Another reader of a resident source: the same chunks (chunk(i) views outlive
// next() and reset()) with a position of its own, so that several threads (the
// one-vs-rest problems of train()) can each pass over the data.
class ResidentReader final : public ResidentSource {
 public:
  explicit ResidentReader(const ChunkSource& source) : source_(source) {}
  std::int32_t n_features() const override { return source_.n_features(); }
  std::int64_t n_rows() const override { return source_.n_rows(); }
  std::int64_t nnz() const override { return source_.nnz(); }
  std::size_t n_chunks() const override { return source_.n_chunks(); }
  CsrView chunk(std::size_t index) const override { return source_.chunk(index); }
  std::uint64_t identity() const override { return source_.identity(); }

 private:
  const ChunkSource& source_;
};

}  // namespace snapml
