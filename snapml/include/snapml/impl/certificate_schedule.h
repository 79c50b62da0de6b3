// What the duality-gap target asks of a dual fit's epochs: after which epochs to
// compute the certificate, and how exactly the logistic step must solve its 1-D
// sub-problem. Shared by every dual solver (run_cocoa_rounds, CPU and GPU) and by
// the host model of the GPU epoch (tests/support/gpu_epoch_model.cpp).
//
// When to certify. The certificate is a pass over every row (each row's margin at
// the final w, and for logistic regression three logarithms): about a third of a
// logistic epoch. The relative gap of SDCA falls roughly geometrically (linear
// convergence for smooth losses: Shalev-Shwartz & Zhang, JMLR 2013, Theorem 1),
// so the certificates predict how many more epochs the target needs, k: at the
// rate since the certificate before the last (certificate_schedule.cpp says why
// not the last two alone).
// For a smooth loss the next certificate comes after all of them (at least 1
// epoch, at most kMaxSkip and at most as many epochs as the fit has run): when
// the prediction holds, the fit certifies at the epoch whose gap first meets tol;
// when the rate slows, it certifies past it by the prediction's error
// (certificate_schedule.cpp says why that costs less than certifying more often).
// The hinge's gap falls sublinearly and rises and falls around its trend, so its
// certificates come after half the predicted epochs: more of them find the epochs
// whose gap dips under tol. A gap that did not fall (noise, or a CoCoA+ round with
// gamma < 1) gives no prediction: the next certificate comes after half the last
// skip (after every epoch while the gap stays flat).
// The fit's last epoch (max_epochs) always certifies. Skipping never changes
// what is certified: the certificate that stops the fit is exact.
//
// How exact a logistic step must be. The Newton iteration of the step
// (losses/logistic.h) stops when |f'(z)| <= newton_tolerance, f' in units of the
// margin (log-odds). LIBLINEAR's schedule (its innereps) starts at 1e-2 and
// tightens tenfold an epoch. Where it ends matters: at 1e-11 a step takes 3 to 4
// logarithms in every late epoch. A margin error delta in row i leaves at most
// C_i delta^2 / 8 of the logistic loss's curvature (<= 1/4) unresolved, so with
// sum_i C_i ~ n C the steps' inexactness costs at most n C delta^2 / 8 of the gap;
// the floor keeps that at kStepShareOfTarget of the target tol * P:
//   delta = sqrt(8 kStepShareOfTarget tol P / (n C)),
// never below 1e-11 (the schedule's old floor) and from the first certificate on
// (P is unknown before). The certificate itself is exact whatever the floor.
#pragma once

#include "snapml/impl/objectives.h"

namespace snapml {

class CertificateSchedule {
 public:
  static constexpr int kMaxSkip = 8;
  static constexpr double kStepShareOfTarget = 0.01;
  static constexpr double kNewtonToleranceFloor = 1e-11;

  // The share of the predicted epochs skipped, by the loss's smoothness.
  static constexpr double kSmoothShareOfPrediction = 1.0;
  static constexpr double kNonSmoothShareOfPrediction = 0.5;

  // tol: the relative gap target; rows: over all ranks; cost: C; max_epochs: the
  // fit's last epoch (counted from 0 like first_epoch); non_smooth: the hinge
  // (loss_is_non_smooth).
  CertificateSchedule(double tol, double rows, double cost, int max_epochs, bool non_smooth);

  // Whether the certificate follows the epoch that made `epochs_done` epochs.
  bool due(int epochs_done) const;
  // The certificate taken after `epochs_done` epochs.
  void record(int epochs_done, const Objectives& objectives);
  // The logistic step's Newton tolerance for epoch `epoch` (0-based).
  double newton_tolerance(int epoch) const;

 private:
  double tol_;
  double rows_;
  double cost_;
  int max_epochs_;
  double share_;  // of the predicted epochs, skipped
  int next_ = 0;  // the next epoch count that certifies; 0: any
  // The last kRateCertificates certificates, newest first: the rate's baselines.
  static constexpr int kRateCertificates = 2;
  int kept_epochs_[kRateCertificates] = {};
  double kept_gaps_[kRateCertificates] = {};
  int kept_ = 0;
  int skip_ = 1;  // the last skip
  double floor_ = kNewtonToleranceFloor;
};

}  // namespace snapml
