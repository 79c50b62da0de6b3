#include "snapml/impl/certificate_schedule.h"

#include <algorithm>
#include <cmath>

namespace snapml {

CertificateSchedule::CertificateSchedule(double tol, double rows, double cost, int max_epochs)
    : tol_(tol), rows_(rows), cost_(cost), max_epochs_(max_epochs) {}

bool CertificateSchedule::due(int epochs_done) const { return epochs_done >= next_ || epochs_done >= max_epochs_; }

void CertificateSchedule::record(int epochs_done, const Objectives& objectives) {
  const double primal = objectives.primal;
  const double relative_gap = primal > 0.0 ? objectives.gap / primal : objectives.gap;
  if (primal > 0.0 && rows_ > 0.0 && cost_ > 0.0) {
    const double delta = std::sqrt(8.0 * kStepShareOfTarget * tol_ * primal / (rows_ * cost_));
    floor_ = std::isfinite(delta) ? std::max(kNewtonToleranceFloor, delta) : kNewtonToleranceFloor;
  }
  // A gap that did not fall (the hinge's at several threads rises and falls by
  // tens of per cent from one certificate to the next) predicts nothing: half the
  // last skip, so that one rise does not cost a certificate after every epoch.
  int skip = std::max(1, skip_ / 2);
  // k epochs more at the rate of the last two certificates: gap * q^k = tol.
  if (last_epoch_ >= 0 && epochs_done > last_epoch_ && relative_gap > tol_ && relative_gap < last_gap_ &&
      relative_gap > 0.0) {
    const double log_rate = std::log(relative_gap / last_gap_) / (epochs_done - last_epoch_);
    const double remaining = std::log(tol_ / relative_gap) / log_rate;
    if (std::isfinite(remaining))
      skip = static_cast<int>(std::clamp(std::floor(0.5 * remaining), 1.0,
                                         static_cast<double>(std::min(kMaxSkip, std::max(1, epochs_done)))));
  }
  last_epoch_ = epochs_done;
  last_gap_ = relative_gap;
  skip_ = skip;
  next_ = epochs_done + skip;
}

double CertificateSchedule::newton_tolerance(int epoch) const {
  return std::max(floor_, 1e-2 * std::pow(0.1, epoch));
}

}  // namespace snapml
