// A `.snap` file as the estimators read it (docs/python.md, "Out-of-core"): its
// validated layout, and the chunk source a host memory budget allows, chosen by
// plan_binary_source() exactly as `snap-train --max-memory` chooses it: the whole
// file memory-mapped when it fits the budget (or without one), otherwise streamed
// through a ring of pread buffers (docs/out-of-core.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "snapml/chunk_source.h"
#include "snapml/datasets/streamed_binary_source.h"

namespace snapml::python {

class SnapFile {
 public:
  // Reads and checks the header and chunk table (InputError on a foreign, corrupt
  // or truncated file, IoError when it cannot be read) and plans the source for
  // `max_memory` bytes (0: no budget; InvalidArgument when even streaming does
  // not fit). With ranks > 1 (a distributed fit under mpirun) the file is this
  // rank's share of the chunks (datasets::layout_share, as snap-train's), and the
  // budget and the plan are the share's.
  SnapFile(const std::string& path, std::uint64_t max_memory, int rank = 0, int ranks = 1);

  const datasets::BinaryFileLayout& layout() const { return layout_; }
  const datasets::BinarySourcePlan& plan() const { return plan_; }
  std::uint64_t max_memory() const { return max_memory_; }

  // A fresh source over the file, opened again (and so checked again: a file
  // replaced since the plan was made is refused rather than misread). Memory-mapped
  // sources advise random access, since a resident source lets the solver visit
  // the rows of all chunks in one permutation.
  std::unique_ptr<ChunkSource> open() const;

 private:
  datasets::BinaryFileLayout layout_;
  datasets::BinarySourcePlan plan_;
  std::uint64_t max_memory_ = 0;
  int rank_ = 0;
  int ranks_ = 1;
};

}  // namespace snapml::python
