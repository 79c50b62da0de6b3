#include "snapml/impl/rows_identity.h"

#include "snapml/dataset.h"
#include "snapml/impl/rank_agreement.h"

namespace snapml {

RowsContentKey rows_content_key(const CsrView& rows) {
  RowsContentKey key;
  key.n_rows = rows.n_rows;
  key.n_features = rows.n_features;
  const std::int64_t first = rows.row_offsets != nullptr ? rows.row_offsets[0] : 0;
  key.nnz = rows.n_rows > 0 ? rows.row_offsets[rows.n_rows] - first : 0;
  // The second checksum starts elsewhere: Checksum64's fixed seed, changed by a
  // first word the first one never sees.
  Checksum64 sum, second;
  const std::uint64_t salt = 0x13198A2E03707344ULL;
  second.add(&salt, sizeof salt);
  auto add = [&](const void* data, std::size_t bytes) {
    sum.add(data, bytes);
    second.add(data, bytes);
  };
  for (std::int64_t r = 1; r <= rows.n_rows; ++r) {
    const std::int64_t offset = rows.row_offsets[r] - first;
    add(&offset, sizeof offset);
  }
  if (key.nnz > 0) {
    add(rows.col_indices + first, sizeof(std::int32_t) * static_cast<std::size_t>(key.nnz));
    add(rows.values + first, sizeof(float) * static_cast<std::size_t>(key.nnz));
  }
  key.sum = sum.value();
  key.second_sum = second.value();
  return key;
}

std::uint64_t RowsIdentities::identity_of(const CsrView& rows) { return identity_of(rows_content_key(rows)); }

std::uint64_t RowsIdentities::identity_of(const RowsContentKey& key) {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (!(it->key == key)) continue;
    const Entry found = *it;
    entries_.erase(it);
    entries_.push_front(found);
    return found.identity;
  }
  entries_.push_front({key, detail::new_rows_identity()});
  if (entries_.size() > remembered_) entries_.pop_back();
  return entries_.front().identity;
}

}  // namespace snapml
