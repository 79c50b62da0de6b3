// The CPU SDCA solver's shrinking (sdca_cpu.h): which rows a pass leaves out, and
// when they all come back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "sdca_cpu.h"

namespace snapml::detail {

// Shrinking (Hsieh et al. 2008, section 3.2; LIBLINEAR's solve_l2r_l1l2_svc): a row
// whose dual variable sits at a bound its gradient points beyond, by more than the
// previous pass's largest violation, is left out of the following passes. LIBLINEAR
// brings every row back when the passes over the rest have converged to its
// tolerance on the projected gradient; the certificate here is the duality gap over
// all rows (shrunk rows included; fit() takes it once the epochs since the last one
// have visited as many rows as the data holds), so the rows come back each time the projected gradient range of the rows still visited has fallen
// tenfold since the last time they did: a row left out wrongly is back within a
// factor ten of progress, and the gap, not the shrunk problem, decides when to stop.
void SdcaCpuSolver::start_shrinking(bool enabled) {
  shrinking_ = enabled;
  unshrink_below_ = -1.0;
  bring_every_row_back();
}

void SdcaCpuSolver::bring_every_row_back() {
  // Only a resident epoch orders rows by this list; a streamed one permutes each
  // chunk and must keep to the 16 bytes a row its memory budget counts.
  active_.resize(resident_.chunks.empty() ? 0 : static_cast<std::size_t>(n_rows_));
  for (std::size_t i = 0; i < active_.size(); ++i) active_[i] = static_cast<std::int64_t>(i);
  left_out_.assign(shrinking_ ? static_cast<std::size_t>(n_rows_) : 0, 0);
  pg_max_old_ = HUGE_VAL;
  pg_min_old_ = -HUGE_VAL;
}

void SdcaCpuSolver::after_shrinking_pass(double pg_max, double pg_min) {
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](std::int64_t i) { return left_out_[static_cast<std::size_t>(i)] != 0; }),
                active_.end());
  // No row with a projected gradient (every row left out): the range is 0.
  const double range = pg_max >= pg_min ? pg_max - pg_min : 0.0;
  if (unshrink_below_ < 0.0) {
    unshrink_below_ = 0.1 * range;
  } else if (range <= unshrink_below_) {
    unshrink_below_ = 0.1 * range;
    bring_every_row_back();
    return;
  }
  // As LIBLINEAR: a range on one side of 0 only does not bound the other side.
  pg_max_old_ = pg_max > 0.0 ? pg_max : HUGE_VAL;
  pg_min_old_ = pg_min < 0.0 ? pg_min : -HUGE_VAL;
}

}  // namespace snapml::detail
