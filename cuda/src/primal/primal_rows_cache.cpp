#include "primal_rows_cache.h"

#include <utility>

#include "primal_rows.h"
#include "snapml/error.h"
#include "staging_ring.h"

namespace snapml::cuda::detail {

std::shared_ptr<primal::PrimalRows> PrimalRowsCache::rows_for(ChunkSource& source, const primal::RowsKey& key,
                                                              int threads, bool* uploaded) {
  if (uploaded) *uploaded = false;
  for (std::size_t k = 0; k < sets_.size(); ++k) {
    if (!(sets_[k]->key() == key)) continue;
    std::rotate(sets_.begin(), sets_.begin() + static_cast<std::ptrdiff_t>(k),
                sets_.begin() + static_cast<std::ptrdiff_t>(k) + 1);  // to the front
    return sets_.front();
  }
  // Freed before the upload, not after: the device holds at most row_sets_ sets.
  while (sets_.size() >= row_sets_) sets_.pop_back();
  if (!staging) staging = std::make_shared<primal::StagingRings>();
  std::shared_ptr<primal::PrimalRows> rows;
  try {
    rows = primal::PrimalRows::upload(source, key, threads, staging);
  } catch (const Unsupported&) {
    if (sets_.empty()) throw;
    sets_.clear();  // the other folds' rows make room: they upload again when asked for
    rows = primal::PrimalRows::upload(source, key, threads, staging);
  }
  ++uploads_;
  if (uploaded) *uploaded = true;
  sets_.insert(sets_.begin(), rows);
  return rows;
}

const std::shared_ptr<primal::PrimalRows>& PrimalRowsCache::current() const {
  static const std::shared_ptr<primal::PrimalRows> none;
  return sets_.empty() ? none : sets_.front();
}

}  // namespace snapml::cuda::detail
