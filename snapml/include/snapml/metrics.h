// Evaluation metrics: what snap-train --test, snap-train -v, snap-predict and the
// Python package report. One definition of each, so every surface agrees.
//
// Arrays are plain pointers and a row count so that callers holding std::vector,
// numpy buffers or model outputs use them without a copy. Every function throws
// InvalidArgument on input it cannot score (no rows, a label outside `classes`,
// a single class for AUC) rather than returning a meaningless number.
#pragma once

#include <cstddef>

namespace snapml {

// Fraction of rows where predicted == truth (exact comparison: labels are the
// training labels that Model::predict returns unchanged).
double accuracy(const double* truth, const double* predicted, std::size_t n);

// Number of rows where predicted == truth.
std::size_t correct_count(const double* truth, const double* predicted, std::size_t n);

// Mean negative log-likelihood of the true class. `probabilities` is n x n_classes,
// row-major, columns in `classes` order, which is sorted ascending (Model::classes
// and Model::predict_proba). The probability of
// the true class is clipped to [clip, 1 - clip] so that one confident mistake gives
// a large finite loss, not infinity (scikit-learn's log_loss clips the same way).
double log_loss(const double* truth, const double* probabilities, std::size_t n, const double* classes,
                std::size_t n_classes, double clip = 1e-15);

// Area under the ROC curve of `scores` for the rows whose truth equals
// `positive_label` against all others: the Mann-Whitney statistic, the probability
// that a random positive scores above a random negative, ties counting one half
// (equal scores share their average rank). Needs both kinds of rows and finite
// scores.
double roc_auc(const double* truth, const double* scores, std::size_t n, double positive_label);

double mean_squared_error(const double* truth, const double* predicted, std::size_t n);

// Coefficient of determination 1 - SS_res / SS_tot. A constant truth has SS_tot = 0:
// the score is then 1 for a perfect prediction and 0 otherwise (scikit-learn's r2_score).
double r2_score(const double* truth, const double* predicted, std::size_t n);

// Squared Pearson correlation of truth and prediction: what LIBLINEAR reports as
// "Squared correlation coefficient". The one metric that can be NaN: when truth or
// prediction is constant the correlation is undefined (LIBLINEAR prints nan too),
// and a script reading the number should see that rather than a made-up value.
double squared_correlation(const double* truth, const double* predicted, std::size_t n);

}  // namespace snapml
