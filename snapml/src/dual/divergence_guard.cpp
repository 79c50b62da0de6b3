#include "divergence_guard.h"

#include <algorithm>
#include <cmath>

#include "snapml/error.h"

namespace snapml::detail {

std::string DivergenceGuard::check(const Objectives& objectives) {
  if (!std::isfinite(objectives.primal) || !std::isfinite(objectives.dual))
    return "the objectives are not finite (primal " + number_text(objectives.primal) + ", dual " +
           number_text(objectives.dual) + ")";
  std::string verdict;
  stalled_ = false;
  ++certificates_;
  if (certificates_ > 1) {
    const double rounding = kRoundingShare * std::max(std::fabs(objectives.primal), std::fabs(objectives.dual));
    const double fall = last_dual_ - objectives.dual;
    if (fall > std::max(kDualFallShare * last_gap_, rounding))
      verdict = "the dual objective fell from " + number_text(last_dual_) + " to " + number_text(objectives.dual) +
                " (the duality gap was " + number_text(last_gap_) + ")";
    above_best_ = objectives.gap > kGapGrowth * best_gap_ ? above_best_ + 1 : 0;
    if (verdict.empty() && watch_gap_ && above_best_ >= kGrowthWindow)
      verdict = "the duality gap rose from " + number_text(best_gap_) + " to " + number_text(objectives.gap) +
                " and stayed above " + number_text(kGapGrowth) + " times its smallest value for " +
                std::to_string(kGrowthWindow) + " certificates";
    best_gap_ = std::min(best_gap_, objectives.gap);
    if (verdict.empty() && watch_gap_ && certificates_ == kStallWindow + 1 && best_gap_ > kStallShare * first_gap_) {
      verdict = "the duality gap stayed at " + number_text(best_gap_) + " or above for " +
                std::to_string(kStallWindow) + " certificates after its first, " + number_text(first_gap_);
      stalled_ = true;
    }
  } else {
    best_gap_ = objectives.gap;
    first_gap_ = objectives.gap;
  }
  last_dual_ = objectives.dual;
  last_gap_ = objectives.gap;
  return verdict;
}

}  // namespace snapml::detail
