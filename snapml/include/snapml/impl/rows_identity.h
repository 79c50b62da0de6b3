// Identities of rows a caller hands over again and again as new arrays: Python's
// estimators convert their input into a fresh CSR view at every fit, so the view
// has no identity of its own that a kept GPU session (solver_factory.h) could
// recognise, and the address of a Python array can be reused by another one, or
// its contents changed in place, without any sign of it (numpy keeps no write
// counter). So the identity is drawn from the rows' contents: equal contents
// (offsets, column indices, values, the feature count) get the identity they got
// before; any change, in place or in a new array, gets a new one and the session
// uploads again. Labels and weights are not part of it: a session keeps only the
// rows, and every problem reads its labels and weights from the source
// (ChunkSource::identity's contract).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

#include "snapml/csr_view.h"

namespace snapml {

// What tells one row set from another: two 64-bit checksums of the bytes
// (Checksum64, rank_agreement.h, from two seeds; taken over fixed 1 MiB blocks,
// then over the blocks' sums in order) and the shape. Different rows of the same
// shape share a key with a probability of about 2^-128 for unrelated contents
// (not an adversarial bound: the checksums are not cryptographic). A change
// within one 8-byte word always changes the key: each step of Checksum64 is a
// bijection of its state, so equal words after a difference keep it, in the
// block's sums and then in the sums over the blocks.
struct RowsContentKey {
  std::uint64_t sum = 0;
  std::uint64_t second_sum = 0;
  std::int64_t n_rows = 0;
  std::int64_t nnz = 0;
  std::int32_t n_features = 0;
  bool operator==(const RowsContentKey& o) const {
    return sum == o.sum && second_sum == o.second_sum && n_rows == o.n_rows && nnz == o.nnz &&
           n_features == o.n_features;
  }
};

// The key of `rows` (one pass over its offsets, indices and values, on up to
// `threads` threads; the same key for any count; the offsets taken relative to
// the first, so a view into the middle of a larger array keys as the same rows
// copied out).
RowsContentKey rows_content_key(const CsrView& rows, int threads = 1);

// The identities handed out for row contents, the last `remembered` of them: a
// content seen again gets its earlier identity (so a kept session finds its
// uploaded rows); a new one, or one forgotten, a new identity from
// detail::new_rows_identity() (never one a Dataset or another source holds).
// Forgetting only costs an upload. Thread-safe.
class RowsIdentities {
 public:
  explicit RowsIdentities(std::size_t remembered = 64) : remembered_(remembered < 1 ? 1 : remembered) {}
  std::uint64_t identity_of(const CsrView& rows, int threads = 1);
  std::uint64_t identity_of(const RowsContentKey& key);

 private:
  struct Entry {
    RowsContentKey key;
    std::uint64_t identity;
  };
  std::size_t remembered_;
  std::mutex mutex_;
  std::deque<Entry> entries_;  // most recently used first
};

}  // namespace snapml
