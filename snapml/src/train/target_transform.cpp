#include "target_transform.h"

#include <algorithm>
#include <cmath>

namespace snapml::detail {

TargetTransform decide_target_transform(TargetStats local, Communicator& communicator, bool free_intercept,
                                        bool scalable) {
  double sums[2] = {local.weighted_sum, local.weight_sum};
  communicator.allreduce_sum(sums, 2);
  // The extremes over the ranks: each rank's pair in its own slot of a zeroed
  // array, gathered by one sum (exact: one non-zero term a slot), then the
  // largest. A rank without rows has -inf in both.
  const auto ranks = static_cast<std::size_t>(communicator.size());
  std::vector<double> slots(2 * ranks, 0.0);
  slots[2 * static_cast<std::size_t>(communicator.rank())] = local.high;
  slots[2 * static_cast<std::size_t>(communicator.rank()) + 1] = -local.low;
  communicator.allreduce_sum(slots.data(), slots.size());
  double extremes[2] = {-HUGE_VAL, -HUGE_VAL};
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t k = 0; k < 2; ++k) extremes[k] = std::max(extremes[k], slots[2 * r + k]);
  TargetTransform transform;
  if (free_intercept && sums[1] > 0.0 && std::isfinite(sums[0])) transform.shift = sums[0] / sums[1];
  // The shifted targets' largest magnitude (the shift lies between the extremes).
  const double largest = std::max(std::fabs(extremes[0] - transform.shift), std::fabs(-extremes[1] - transform.shift));
  transform.largest = std::isfinite(largest) ? largest : 0.0;  // no rows anywhere: 0
  if (scalable && transform.largest > kLargeTarget) transform.scale = transform.largest;
  return transform;
}

TransformedTargets::TransformedTargets(ChunkSource& inner, TargetTransform transform)
    : inner_(inner), transform_(transform) {
  if (inner_.resident()) {
    labels_.resize(inner_.n_chunks());
    for (std::size_t c = 0; c < labels_.size(); ++c) transformed(inner_.chunk(c), labels_[c]);
  } else {
    labels_.resize(inner_.max_held() + 1);  // the views held, and the one next() returns
  }
}

const double* TransformedTargets::transformed(const CsrView& chunk, std::vector<double>& into) const {
  into.resize(static_cast<std::size_t>(chunk.n_rows));
  for (std::int64_t row = 0; row < chunk.n_rows; ++row)
    into[static_cast<std::size_t>(row)] = transform_.apply(chunk.labels[row]);
  return into.data();
}

CsrView TransformedTargets::chunk(std::size_t index) const {
  CsrView view = inner_.chunk(index);
  view.labels = labels_[index].data();
  return view;
}

bool TransformedTargets::next(CsrView& chunk) {
  if (inner_.resident()) {
    if (position_ >= labels_.size()) return false;
    chunk = this->chunk(position_++);
    return true;
  }
  if (!inner_.next(chunk)) return false;
  chunk.labels = transformed(chunk, labels_[slot_]);
  slot_ = (slot_ + 1) % labels_.size();
  return true;
}

void TransformedTargets::reset() {
  position_ = 0;
  inner_.reset();
}

bool TransformedTargets::reset_in_order(const std::vector<std::size_t>& order) {
  position_ = 0;
  if (inner_.resident()) return ChunkSource::reset_in_order(order);  // chunk(i) serves any order
  return inner_.reset_in_order(order);
}

}  // namespace snapml::detail
