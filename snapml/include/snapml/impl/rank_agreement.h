// Before a distributed fit (more than one rank): the ranks must train the same
// problem on different rows, or the job is wrong without a sign of it. Two ways
// that happened (docs/distributed.md, "Nothing silent"):
//  - an MPMD launch, or a script reading its options per rank, with different
//    parameters: the ranks ran one CoCoA+ fit and rank 0 reported its own C, or
//    ran different numbers of rounds and the job hung in a collective;
//  - an unmodified script in which every rank loads all the data: K copies of the
//    rows train as one fit at C*K.
// Both are checked here, collectively, so that every rank throws the same
// InvalidArgument naming the difference.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"
#include "snapml/train.h"

namespace snapml {

// The parameters that define the fit, as (name, value) pairs; resources a rank
// may choose for itself (threads, memory budgets, devices) are left out, and so
// is the seed: it orders a rank's own coordinates only, and the ranks reach the
// same optimum whatever their seeds (scikit-learn's random_state=None draws one
// per process).
std::vector<std::pair<std::string, std::string>> fit_defining_parameters(const TrainParameters& p);

// A 64-bit checksum of bytes (data rows, a checkpoint's payload): equal bytes give
// equal sums; it only needs to tell copies apart from different shares, and a
// damaged file from the one written, not to resist an adversary.
class Checksum64 {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (; bytes >= 8; bytes -= 8, p += 8) {
      std::uint64_t word;
      std::memcpy(&word, p, 8);
      mix(word);
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p, bytes);
    mix(tail ^ (static_cast<std::uint64_t>(bytes) << 56));
  }
  std::uint64_t value() const { return state_; }

 private:
  void mix(std::uint64_t word) {
    state_ = (state_ ^ word) * 0x9E3779B97F4A7C15ULL;
    state_ ^= state_ >> 29;
  }
  std::uint64_t state_ = 0x243F6A8885A308D3ULL;
};


// Collective: throws the same InvalidArgument on every rank, naming `what` and
// each rank's `shown` (a file name) and `mine` where it differs from rank 0's,
// then `fix`, unless every rank passed the same `mine`. Called before the collectives whose count depends on
// it: ranks given different files (issue 36, case 6) each read a share of their
// own and trained one mixed model, and a text file on one rank and a .snap file
// on another would have waited in different collectives.
void check_same_on_every_rank(Communicator& communicator, const std::string& what, const std::string& mine,
                              const std::string& shown, const std::string& fix);

// The checksum of a source's rows (labels, weights, structure and values), never
// 0, the same however the rows are cut into chunks; a streamed source is read
// once for it (reset() and next()).
std::uint64_t rows_checksum(ChunkSource& source);
// The same of the rows as a multiset: equal for the same rows in any order (a
// rank that shuffled its copy of the data still holds the same rows), never 0.
// The ranks' "same rows" check compares it; a checkpoint, whose alpha follows the
// rows' order, compares rows_checksum.
std::uint64_t rows_multiset_checksum(ChunkSource& source);

// Throws InvalidArgument on every rank when the ranks' fit-defining parameters
// differ (each difference named, with the ranks' values) or when two ranks hold
// the same non-empty rows (a checksum of a resident source's rows; a streamed
// source is not read for it). A no-op in one process.
void check_ranks_agree(ChunkSource& source, Communicator& communicator, const TrainParameters& p);

}  // namespace snapml
