#include "snapml/impl/rows_identity.h"

#include <algorithm>
#include <array>
#include <vector>

#include "snapml/dataset.h"
#include "snapml/impl/rank_agreement.h"
#include "snapml/threads.h"

namespace snapml {
namespace {

// The rows are summed in blocks of a fixed size, each block on its own (in
// parallel), then the blocks' sums in order: the key does not depend on the
// thread count. One pass at memory speed per team: a GPU fit's rows are keyed
// at every fit (the upload it may save costs more).
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kOffsetsPerBlock = kBlockBytes / sizeof(std::int64_t);

// One block of one array: which array (0 offsets, 1 indices, 2 values) and where.
struct Block {
  int array;
  std::size_t begin, end;  // entries of that array
};

// Two Checksum64 sums from different seeds (the second starts by a word the
// first never sees).
struct SumPair {
  Checksum64 first, second;
  SumPair() {
    const std::uint64_t salt = 0x13198A2E03707344ULL;
    second.add(&salt, sizeof salt);
  }
  void add(const void* data, std::size_t bytes) {
    first.add(data, bytes);
    second.add(data, bytes);
  }
};

}  // namespace

RowsContentKey rows_content_key(const CsrView& rows, int threads) {
  RowsContentKey key;
  key.n_rows = rows.n_rows;
  key.n_features = rows.n_features;
  const std::int64_t first = rows.row_offsets != nullptr ? rows.row_offsets[0] : 0;
  key.nnz = rows.n_rows > 0 ? rows.row_offsets[rows.n_rows] - first : 0;
  const auto n_rows = static_cast<std::size_t>(std::max<std::int64_t>(rows.n_rows, 0));
  const auto nnz = static_cast<std::size_t>(std::max<std::int64_t>(key.nnz, 0));

  std::vector<Block> blocks;
  auto cut = [&blocks](int array, std::size_t entries, std::size_t per_block) {
    for (std::size_t begin = 0; begin < entries; begin += per_block)
      blocks.push_back({array, begin, std::min(entries, begin + per_block)});
  };
  cut(0, n_rows, kOffsetsPerBlock);  // offsets 1..n_rows, relative to the first
  cut(1, nnz, kBlockBytes / sizeof(std::int32_t));
  cut(2, nnz, kBlockBytes / sizeof(float));
  std::vector<std::array<std::uint64_t, 2>> sums(blocks.size());

  const int team = std::max(1, std::min(clamp_threads(threads), static_cast<int>(blocks.size())));
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::vector<std::int64_t> offsets;  // a block of offsets made relative to the first
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(blocks.size()); ++b) {
      const Block& block = blocks[static_cast<std::size_t>(b)];
      SumPair pair;
      const std::size_t count = block.end - block.begin;
      if (block.array == 0) {
        offsets.resize(count);
        for (std::size_t r = 0; r < count; ++r) offsets[r] = rows.row_offsets[block.begin + r + 1] - first;
        pair.add(offsets.data(), sizeof(std::int64_t) * count);
      } else if (block.array == 1) {
        pair.add(rows.col_indices + first + static_cast<std::int64_t>(block.begin), sizeof(std::int32_t) * count);
      } else {
        pair.add(rows.values + first + static_cast<std::int64_t>(block.begin), sizeof(float) * count);
      }
      sums[static_cast<std::size_t>(b)] = {pair.first.value(), pair.second.value()};
    }
  }
  SumPair total;
  for (const auto& block : sums) {
    total.first.add(&block[0], sizeof block[0]);
    total.second.add(&block[1], sizeof block[1]);
  }
  key.sum = total.first.value();
  key.second_sum = total.second.value();
  return key;
}

std::uint64_t RowsIdentities::identity_of(const CsrView& rows, int threads) {
  return identity_of(rows_content_key(rows, threads));
}

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
