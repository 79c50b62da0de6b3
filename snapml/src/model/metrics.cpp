#include "snapml/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "snapml/error.h"

namespace snapml {
namespace {

void require_rows(std::size_t n, const char* metric) {
  require(n > 0, std::string(metric) + " needs at least one row");
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

}  // namespace

std::size_t correct_count(const double* truth, const double* predicted, std::size_t n) {
  std::size_t correct = 0;
  for (std::size_t i = 0; i < n; ++i) correct += truth[i] == predicted[i] ? 1 : 0;
  return correct;
}

double accuracy(const double* truth, const double* predicted, std::size_t n) {
  require_rows(n, "accuracy");
  return static_cast<double>(correct_count(truth, predicted, n)) / static_cast<double>(n);
}

double log_loss(const double* truth, const double* probabilities, std::size_t n, const double* classes,
                std::size_t n_classes, double clip) {
  require_rows(n, "log_loss");
  require(clip >= 0.0 && clip < 0.5, "log_loss: clip must be in [0, 0.5), got " + number(clip));
  const double* classes_end = classes + n_classes;
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* found = std::lower_bound(classes, classes_end, truth[i]);
    require(found != classes_end && *found == truth[i], [&] {
      return "log_loss: label " + number(truth[i]) + " of row " + std::to_string(i) +
             " is not one of the model's classes";
    });
    const double p = probabilities[i * n_classes + static_cast<std::size_t>(found - classes)];
    total -= std::log(std::clamp(p, clip, 1.0 - clip));
  }
  return total / static_cast<double>(n);
}

double roc_auc(const double* truth, const double* scores, std::size_t n, double positive_label) {
  require_rows(n, "roc_auc");
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    require(std::isfinite(scores[i]), [&] { return "roc_auc: the score of row " + std::to_string(i) + " is not finite"; });
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  // Sum of the positives' 1-based ranks, each group of equal scores sharing the
  // average of its ranks; then U = rank_sum - P(P+1)/2 counts the (positive,
  // negative) pairs ordered correctly, ties as one half.
  double positive_rank_sum = 0.0;
  double positives = 0.0;
  for (std::size_t begin = 0; begin < n;) {
    std::size_t end = begin;
    double group_positives = 0.0;
    for (; end < n && scores[order[end]] == scores[order[begin]]; ++end)
      group_positives += truth[order[end]] == positive_label ? 1.0 : 0.0;
    const double average_rank = 0.5 * static_cast<double>(begin + 1 + end);
    positive_rank_sum += group_positives * average_rank;
    positives += group_positives;
    begin = end;
  }
  const double negatives = static_cast<double>(n) - positives;
  require(positives > 0.0 && negatives > 0.0,
          "roc_auc needs rows of both the positive class " + number(positive_label) + " and the others");
  return (positive_rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives);
}

double mean_squared_error(const double* truth, const double* predicted, std::size_t n) {
  require_rows(n, "mean_squared_error");
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) total += (predicted[i] - truth[i]) * (predicted[i] - truth[i]);
  return total / static_cast<double>(n);
}

double r2_score(const double* truth, const double* predicted, std::size_t n) {
  require_rows(n, "r2_score");
  double mean = 0.0;
  for (std::size_t i = 0; i < n; ++i) mean += truth[i];
  mean /= static_cast<double>(n);
  double residual = 0.0;
  double spread = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    residual += (truth[i] - predicted[i]) * (truth[i] - predicted[i]);
    spread += (truth[i] - mean) * (truth[i] - mean);
  }
  if (spread == 0.0) return residual == 0.0 ? 1.0 : 0.0;
  return 1.0 - residual / spread;
}

double squared_correlation(const double* truth, const double* predicted, std::size_t n) {
  require_rows(n, "squared_correlation");
  // Centred sums (two passes) rather than LIBLINEAR's raw-moment formula, which
  // cancels catastrophically when the targets have a large mean.
  double mean_truth = 0.0;
  double mean_predicted = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_truth += truth[i];
    mean_predicted += predicted[i];
  }
  mean_truth /= static_cast<double>(n);
  mean_predicted /= static_cast<double>(n);
  double cross = 0.0;
  double truth_spread = 0.0;
  double predicted_spread = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = truth[i] - mean_truth;
    const double p = predicted[i] - mean_predicted;
    cross += t * p;
    truth_spread += t * t;
    predicted_spread += p * p;
  }
  if (truth_spread == 0.0 || predicted_spread == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return cross * cross / (truth_spread * predicted_spread);
}

}  // namespace snapml
