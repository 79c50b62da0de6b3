#include "snapml/impl/certificate_schedule.h"

#include <algorithm>
#include <cmath>

namespace snapml {

CertificateSchedule::CertificateSchedule(double tol, double rows, double cost, int max_epochs, bool non_smooth)
    : tol_(tol),
      rows_(rows),
      cost_(cost),
      max_epochs_(max_epochs),
      share_(non_smooth ? kNonSmoothShareOfPrediction : kSmoothShareOfPrediction) {}

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
  // Else k epochs more at the rate since the certificate before the last (the
  // last one's while there is no earlier): gap * q^k = tol. Over two intervals,
  // since one flat step predicts far too many epochs: a9a's gap went 5.4e-4,
  // 2.70e-4, 2.66e-4 after epochs 15, 16 and 17; the last two alone predicted 65
  // more epochs and skipped 8, to 25, where the rate since 15 predicts 3 and the
  // fit stops at 19, its first epoch under 1e-4. On 28 recorded fits (a9a, w8a,
  // mushrooms, news20 binary, a click log; logistic and hinge; 1, 2 and 16
  // threads) this rule cost the fewest epochs plus certificates of the rates from
  // the last one, two or three certificates, their fastest and their mean.
  double log_rate = 0.0;
  if (kept_ > 0 && relative_gap > tol_ && relative_gap > 0.0 && relative_gap < kept_gaps_[0]) {
    const int c = kept_ > 1 && relative_gap < kept_gaps_[1] ? 1 : 0;
    if (epochs_done > kept_epochs_[c])
      log_rate = std::log(relative_gap / kept_gaps_[c]) / (epochs_done - kept_epochs_[c]);
  }
  // The next certificate after share_ of them. Replayed on 33 recorded fits
  // (docs/benchmarks/cpu.md 10.1; logistic to 1e-4 and 1e-6, one and two
  // threads), certifying after all the predicted epochs took a fifth fewer
  // certificates than after half of them and stopped no later in total (a
  // certificate costs a third to 0.7 of an epoch). The hinge keeps half: the host
  // model of the GPU epoch on w8a without intercept (R = 4,224 rows in flight)
  // met 1e-3 after 79 epochs with half and not within 111 with all, its gap
  // hovering about tol for tens of epochs.
  if (log_rate < 0.0) {
    const double remaining = std::log(tol_ / relative_gap) / log_rate;
    if (std::isfinite(remaining))
      skip = static_cast<int>(std::clamp(std::floor(share_ * remaining), 1.0,
                                         static_cast<double>(std::min(kMaxSkip, std::max(1, epochs_done)))));
  }
  // Kept newest first.
  for (int c = std::min(kept_, kRateCertificates - 1); c > 0; --c) {
    kept_epochs_[c] = kept_epochs_[c - 1];
    kept_gaps_[c] = kept_gaps_[c - 1];
  }
  kept_epochs_[0] = epochs_done;
  kept_gaps_[0] = relative_gap;
  kept_ = std::min(kept_ + 1, kRateCertificates);
  skip_ = skip;
  next_ = epochs_done + skip;
}

double CertificateSchedule::newton_tolerance(int epoch) const {
  return std::max(floor_, 1e-2 * std::pow(0.1, epoch));
}

}  // namespace snapml
