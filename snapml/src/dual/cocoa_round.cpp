#include "snapml/impl/cocoa_round.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "divergence_guard.h"
#include "free_intercept.h"
#include "snapml/impl/certificate_schedule.h"
#include "snapml/impl/cocoa.h"
#include "snapml/error.h"
#include "snapml/losses/dispatch.h"

namespace snapml {
namespace {

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 'a' + 'A');
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

double add_local_change(const double* v, const double* w, std::size_t size, double sigma, double* change) {
  double own_square = 0.0;
  for (std::size_t j = 0; j < size; ++j) {
    const double dw = (v[j] - w[j]) / sigma;
    change[j] += dw;
    own_square += dw * dw;
  }
  return own_square;
}

FitResult run_cocoa_rounds(RoundBackend& backend, Communicator& communicator, int workers,
                           const SolverParameters& parameters, std::chrono::steady_clock::time_point started) {
  CocoaAggregation aggregation(workers, parameters.adaptive_sigma,
                               detail::has_free_intercept(parameters) ? kFreeInterceptHeadroom : 1.0);
  const int local_epochs = workers > 1 ? parameters.local_epochs : 1;
  std::vector<double> change;  // the round's sum of dw_k, then sum_k ||dw_k||^2; several workers only
  FitResult result;
  result.epochs = parameters.first_epoch;  // a resumed fit goes on counting
  // The certificate's pass visits every row, so it follows the epochs once they
  // have visited as many rows as the data holds: after the epochs the schedule
  // names (certificate_schedule.h), and in a shrunk fit, whose epochs visit a few
  // of the rows each, not before they add up to every row (one worker only, so
  // every rank computes the gap in the same rounds). Stopping late costs at most
  // about one gap pass of training, never the certificate.
  std::int64_t visited_since_gap = 0;
  double rows = static_cast<double>(backend.n_rows());
  communicator.allreduce_sum(&rows, 1);
  CertificateSchedule schedule(parameters.tol, rows, parameters.C, parameters.max_epochs,
                               loss_is_non_smooth(parameters.loss));

  // One process whose backend merges its workers in place: no dense change vector.
  const bool in_place = communicator.size() == 1 && backend.merges_in_place();
  // A round: every worker's local work from v_k = w, then the merge (Lemma 3's
  // gamma and the next sigma', cocoa.h).
  auto round = [&](const auto& local_work) {
    const double sigma = aggregation.sigma();
    if (workers > 1) backend.begin_round();
    local_work(sigma);
    if (workers == 1) return;
    ++result.rounds;
    if (in_place) {
      const RoundSums sums = backend.sum_change(sigma);
      const double gamma = aggregation.accept(sums.sum_of_squares, sums.square_of_sum);
      backend.apply_summed(gamma);
      if (gamma < 1.0) backend.scale_alpha(gamma);
      return;
    }
    const std::size_t size = backend.weight_count();
    change.assign(size + 1, 0.0);
    backend.local_change(sigma, change.data());
    communicator.allreduce_sum(change.data(), change.size());
    double square_of_sum = 0.0;
    for (std::size_t j = 0; j < size; ++j) square_of_sum += change[j] * change[j];
    // Every rank applies the same gamma, so w stays identical on all of them
    // and w = w(alpha) holds with alpha scaled alike.
    const double gamma = aggregation.accept(change[size], square_of_sum);
    backend.apply_change(gamma, change.data());
    if (gamma < 1.0) backend.scale_alpha(gamma);
  };
  auto count = [&](std::int64_t visited) {
    result.rows_visited += visited;
    visited_since_gap += visited;
  };
  // Several rounds an epoch (each on its share of the epoch's rows) where the
  // backend asks for them; with H local epochs a round spans H epochs instead.
  const int parts = workers > 1 && local_epochs == 1 ? std::max(backend.rounds_per_epoch(), 1) : 1;
  // Whether every rank's backend says yes (a collective: every rank asks alike).
  auto every_rank = [&](bool yes) {
    double without = yes ? 0.0 : 1.0;
    communicator.allreduce_sum(&without, 1);
    return without == 0.0;
  };
  // A non-smooth loss: the average of the iterates after every round too
  // (IterateAverage), certified beside the last iterate; where every rank's
  // backend keeps one (each certificate of the average is a reduction).
  const bool averaging = loss_is_non_smooth(parameters.loss) && every_rank(backend.keeps_average());
  int averaged = 0;  // rounds in the average
  // A smooth loss: the best certified iterate (cocoa_round.h, "The best certified
  // iterate"), where every rank's backend keeps one; the largest dual value
  // certified so far, whatever the loss.
  const bool keeping_best = !loss_is_non_smooth(parameters.loss) && every_rank(backend.keeps_best());
  double best_primal = HUGE_VAL;
  int best_epoch = 0;
  double largest_dual = -HUGE_VAL;
  detail::DivergenceGuard guard(!loss_is_non_smooth(parameters.loss));
  auto certify = [&] {
    ObjectiveSums sums = backend.objective_sums(result.epochs);
    double partial[2] = {sums.loss, sums.dual};
    communicator.allreduce_sum(partial, 2);
    sums.loss = partial[0];
    sums.dual = partial[1];
    return combine(sums, backend.squared_weight_norm());
  };

  // certify_every_epoch's record between the schedule's certificates: for the
  // history only, so the fit's path and stop are those without it.
  auto observe = [&](const Objectives& objectives) {
    EpochRecord record{result.epochs, seconds_since(started), objectives.primal, objectives.dual, objectives.gap};
    record.observed = true;
    result.history.push_back(record);
    if (parameters.on_epoch) parameters.on_epoch(record);
  };

  while (result.epochs < parameters.max_epochs) {
    if (parts > 1 && in_place && backend.runs_rounds_in_team()) {
      count(backend.epoch_in_team(result.epochs, parts, aggregation, schedule.newton_tolerance(result.epochs)));
      result.rounds += parts;
      ++result.epochs;
    } else if (parts > 1) {
      const double newton_tolerance = schedule.newton_tolerance(result.epochs);
      for (int part = 0; part < parts; ++part)
        round([&](double sigma) { count(backend.epoch(result.epochs, {part, parts}, sigma, newton_tolerance)); });
      ++result.epochs;
    } else {
      round([&](double sigma) {
        for (int h = 0; h < local_epochs && result.epochs < parameters.max_epochs; ++h) {
          count(backend.epoch(result.epochs, EpochShare{}, sigma, schedule.newton_tolerance(result.epochs)));
          ++result.epochs;
        }
      });
    }
    // After every round w = w(alpha) holds on every rank: alpha is a valid start.
    if (parameters.on_progress)
      parameters.on_progress(result.epochs, [&backend] {
        SolverState state;
        state.alpha = backend.copy_alpha();
        state.weights = backend.copy_weights();
        return state;
      });
    if (averaging) backend.add_to_average(IterateAverage::weight(++averaged));

    if (!schedule.due(result.epochs) ||
        (workers == 1 && visited_since_gap < backend.n_rows() && result.epochs < parameters.max_epochs)) {
      if (parameters.certify_every_epoch) observe(certify());
      continue;
    }
    visited_since_gap = 0;
    Objectives objectives = certify();
    backend.keep_certified();  // the iterate is the point the certificate measured
    // The average: the pair with the smaller primal objective is the fit's
    // result (the same on every rank: reduced sums), certified by the larger
    // dual value of the two (weak duality: any feasible alpha's D bounds P*
    // from below, so P(w) - max D bounds P(w) - P*). The dual rises epoch after
    // epoch and the average's lags behind it; its primal is the better one. Its
    // pass is taken where it can end the fit: at the last epoch, or where the
    // iterate's gap is within IterateAverage::kCertifyWithin of the target.
    bool on_average = false;
    const bool ending = result.epochs >= parameters.max_epochs ||
                        objectives.gap <= IterateAverage::kCertifyWithin * parameters.tol * objectives.primal;
    if (averaging && averaged > 1 && ending) {
      backend.swap_average();
      const Objectives average = certify();
      on_average = average.primal < objectives.primal;
      if (!on_average) backend.swap_average();
      objectives.primal = std::min(objectives.primal, average.primal);
      objectives.dual = std::max(objectives.dual, average.dual);
      objectives.gap = objectives.primal - objectives.dual;
    }
    result.averaged = on_average;
    // The fit's certificate: the smallest primal certified (the iterate's, or the
    // kept best's) against the largest dual value (weak duality: every feasible
    // alpha's D bounds P* from below, so P(w) - max D bounds P(w) - P*).
    // (A dual that is not finite, a diverged iterate's, is this certificate's:
    // never passed over for an earlier value that would make the gap look finite,
    // nor kept as the largest.)
    const bool finite_dual = std::isfinite(objectives.dual);
    if (finite_dual && objectives.dual > largest_dual) largest_dual = objectives.dual;
    const bool iterate_best = !keeping_best || objectives.primal < best_primal;
    Objectives fit = objectives;
    if (!iterate_best) fit.primal = best_primal;
    fit.dual = finite_dual ? largest_dual : objectives.dual;
    fit.gap = fit.primal - fit.dual;
    // Where the fit ends, it ends on the point its certificate measured.
    auto end_on_best = [&] {
      if (iterate_best) return;
      backend.end_on_best();
      result.best_epoch = best_epoch;
    };
    if (record_round(result, fit, seconds_since(started), parameters)) {
      end_on_best();
      break;
    }
    // Not met: does the certificate say the fit diverges? Every rank sees the
    // same reduced objectives, so every rank decides alike; each backend is asked
    // to step more carefully, and if one cannot, the fit fails on all of them.
    // The iterate's own objectives: a kept best's would hide its rise.
    const std::string diverged = guard.check(objectives);
    if (!diverged.empty()) {
      double cannot = backend.reduce_concurrency() ? 0.0 : 1.0;
      communicator.allreduce_sum(&cannot, 1);
      if (cannot > 0.0 && !guard.stalled())
        throw FitDiverged("the dual coordinate ascent fit diverged after " + std::to_string(result.epochs) +
                          " epochs: " + diverged + "; no model is returned. " + capitalised(backend.divergence_remedy()));
      // A stall where some rank has nothing left to lower: a slow fit goes on.
      if (cannot == 0.0) {
        ++result.concurrency_reductions;
        result.history.back().concurrency_reduced = true;
        guard.reset();
      }
    }
    if (result.epochs >= parameters.max_epochs) {
      end_on_best();
      break;
    }
    if (keeping_best && iterate_best) {
      backend.keep_best();
      best_primal = objectives.primal;
      best_epoch = result.epochs;
    }
    if (on_average) backend.swap_average();  // the iterate goes on
    result.averaged = false;
    // The schedule reads the iterate's own objectives, as the guard does: a kept
    // best's would change when the certificates fall, and with them what the
    // guard sees of a swinging iterate.
    schedule.record(result.epochs, objectives);
  }
  return result;
}

}  // namespace snapml
