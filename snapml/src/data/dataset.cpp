#include "snapml/dataset.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <set>
#include <string>

#include "snapml/error.h"

namespace snapml {

std::uint64_t detail::new_rows_identity() {
  static std::atomic<std::uint64_t> next{(std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void CsrChunk::add_row(double label, const std::int32_t* indices, const float* vals,
                       std::int64_t count) {
  col_indices.insert(col_indices.end(), indices, indices + count);
  values.insert(values.end(), vals, vals + count);
  labels.push_back(label);
  row_offsets.push_back(static_cast<std::int64_t>(values.size()));
}

CsrView CsrChunk::view(std::int32_t n_features) const {
  CsrView v;
  v.n_rows = n_rows();
  v.n_features = n_features;
  v.row_offsets = row_offsets.data();
  v.col_indices = col_indices.data();
  v.values = values.data();
  v.labels = labels.data();
  v.weights = weights.empty() ? nullptr : weights.data();
  v.first_row = first_row;
  return v;
}

Dataset::Dataset(std::vector<CsrChunk> chunks, std::int32_t n_features)
    : chunks_(std::move(chunks)), n_features_(n_features) {
  recount();
}

void Dataset::recount() {
  n_rows_ = 0;
  nnz_ = 0;
  for (auto& c : chunks_) {
    require(c.row_offsets.size() == c.labels.size() + 1,
            "chunk has " + std::to_string(c.row_offsets.size()) + " row offsets for " +
                std::to_string(c.labels.size()) + " rows");
    require(c.weights.empty() || c.weights.size() == c.labels.size(),
            "chunk weights must be empty or one per row");
    c.first_row = n_rows_;
    n_rows_ += c.n_rows();
    nnz_ += c.nnz();
  }
}

void Dataset::set_n_features(std::int32_t n_features) {
  require(n_features >= n_features_,
          "cannot lower n_features from " + std::to_string(n_features_) + " to " +
              std::to_string(n_features) + ": the data uses higher indices");
  n_features_ = n_features;
}

std::vector<double> Dataset::labels() const {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n_rows_));
  for (const auto& c : chunks_) out.insert(out.end(), c.labels.begin(), c.labels.end());
  return out;
}

std::vector<double> Dataset::distinct_labels() const {
  std::set<double> seen;
  for (const auto& c : chunks_) seen.insert(c.labels.begin(), c.labels.end());
  return {seen.begin(), seen.end()};
}

Dataset Dataset::merged() const {
  CsrChunk all;
  all.row_offsets.reserve(static_cast<std::size_t>(n_rows_) + 1);
  all.col_indices.reserve(static_cast<std::size_t>(nnz_));
  all.values.reserve(static_cast<std::size_t>(nnz_));
  all.labels.reserve(static_cast<std::size_t>(n_rows_));
  bool any_weights = std::any_of(chunks_.begin(), chunks_.end(),
                                 [](const CsrChunk& c) { return !c.weights.empty(); });
  for (const auto& c : chunks_) {
    std::int64_t base = static_cast<std::int64_t>(all.values.size());
    for (std::size_t r = 1; r < c.row_offsets.size(); ++r) all.row_offsets.push_back(base + c.row_offsets[r]);
    all.col_indices.insert(all.col_indices.end(), c.col_indices.begin(), c.col_indices.end());
    all.values.insert(all.values.end(), c.values.begin(), c.values.end());
    all.labels.insert(all.labels.end(), c.labels.begin(), c.labels.end());
    if (any_weights) {
      if (c.weights.empty()) all.weights.insert(all.weights.end(), c.labels.size(), 1.0f);
      else all.weights.insert(all.weights.end(), c.weights.begin(), c.weights.end());
    }
  }
  std::vector<CsrChunk> one;
  one.push_back(std::move(all));
  return Dataset(std::move(one), n_features_);
}

}  // namespace snapml
