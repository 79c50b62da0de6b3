// Internal to train(): regression targets shifted and scaled before the fit, and
// the model mapped back after it (issue 36, case 8).
//
// The squared loss (and its epsilon-insensitive form) depends on the residual
// r_i = y_i - w.x_i - b only, so two changes of the targets leave the optimum
// where it was, exactly:
//  - a shift y' = y - c, with a free (unpenalised) intercept: b = b' + c. The
//    shift is the targets' weighted mean, scikit-learn's centring: Ridge(alpha =
//    1e20) gives C = 5e-21, and the intercept's curvature 2 C n (1e-18 on
//    heart_scale) was too small for the Newton step, which left the intercept at
//    0 where the optimum is the mean of y (-0.111);
//  - a scale y' = y / s with penalty l2 or none: every term of the objective
//    scales by s^2 (0.5 ||w||^2 with w = s w', C (y - w.x - b)^2, the insensitive
//    zone epsilon' = epsilon / s), so w = s w', b = s b'. Applied where the
//    targets' magnitude passes kLargeTarget: their squares (1e600 for targets
//    near 1e300) overflowed and the fit returned an all-zero model.
// Penalty l1 is not scale-equivariant (||w||_1 scales by s, the loss by s^2), and
// its solvers penalise the intercept: no transform there, and targets whose
// squares overflow are refused instead.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "snapml/chunk_source.h"
#include "snapml/communicator.h"

namespace snapml::detail {

// Targets above this magnitude are scaled: C (at most 1e100) times their square
// and the row count stays far inside the double range.
inline constexpr double kLargeTarget = 1e50;

struct TargetTransform {
  double shift = 0.0;    // c
  double scale = 1.0;    // s
  double largest = 0.0;  // the shifted targets' largest magnitude
  bool identity() const { return shift == 0.0 && scale == 1.0; }
  double apply(double y) const { return (y - shift) / scale; }
};

// What the transform needs from one pass over the targets (every rank's).
struct TargetStats {
  double weighted_sum = 0.0;
  double weight_sum = 0.0;
  double low = HUGE_VAL;    // smallest target (none: +inf)
  double high = -HUGE_VAL;  // largest target (none: -inf)
  void add(double y, double weight) {
    weighted_sum += weight * y;
    weight_sum += weight;
    low = std::min(low, y);
    high = std::max(high, y);
  }
};

// Agrees the stats over the ranks (collective) and decides the transform: the
// shift where `free_intercept`, the scale where `scalable` and the shifted
// targets pass kLargeTarget.
TargetTransform decide_target_transform(TargetStats local, Communicator& communicator, bool free_intercept,
                                        bool scalable);

// `inner`'s chunks with every label transformed; the rest as `inner` gives it.
// Resident: one transformed copy of the labels (8 bytes a row); streamed: a
// buffer per view the inner source can hold at once.
class TransformedTargets final : public ChunkSource {
 public:
  TransformedTargets(ChunkSource& inner, TargetTransform transform);
  bool next(CsrView& chunk) override;
  void reset() override;
  bool reset_in_order(const std::vector<std::size_t>& order) override;
  std::size_t max_held() const override { return inner_.max_held(); }
  void hold(std::size_t count) override { inner_.hold(count); }
  std::int32_t n_features() const override { return inner_.n_features(); }
  std::int64_t n_rows() const override { return inner_.n_rows(); }
  std::int64_t nnz() const override { return inner_.nnz(); }
  std::size_t n_chunks() const override { return inner_.n_chunks(); }
  bool resident() const override { return inner_.resident(); }
  CsrView chunk(std::size_t index) const override;
  std::uint64_t identity() const override { return inner_.identity(); }  // the same rows, other targets

 private:
  const double* transformed(const CsrView& chunk, std::vector<double>& into) const;

  ChunkSource& inner_;
  TargetTransform transform_;
  std::vector<std::vector<double>> labels_;  // resident: per chunk; streamed: a ring of held views
  std::size_t position_ = 0;                 // resident: next()'s chunk
  std::size_t slot_ = 0;                     // streamed: the ring's next buffer
};

}  // namespace snapml::detail
