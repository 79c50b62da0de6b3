// snap-train -v: n-fold cross-validation as LIBLINEAR's cross_validation does it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "snapml/dataset.h"
#include "snapml/train.h"

namespace snapml::cli {

// Shuffles the rows (seeded, so a run is repeatable), cuts them into `folds`
// contiguous parts of the shuffled order and, for each part, trains on the other
// rows and predicts this one. Returns every row's held-out prediction in the
// data's row order. Like LIBLINEAR's, the folds are not stratified. `on_fold`
// (may be empty) is told each fold's 0-based index before it trains.
std::vector<double> cross_validation_predictions(const Dataset& data, const TrainParameters& parameters,
                                                 int folds, std::uint64_t seed,
                                                 const std::function<void(int fold)>& on_fold);
// The same, warm-started: `models` is empty (cold starts) or holds one model per
// fold, each fold's training starting from its model; on return it holds the
// models just trained.
std::vector<double> cross_validation_predictions(const Dataset& data, const TrainParameters& parameters,
                                                 int folds, std::uint64_t seed,
                                                 const std::function<void(int fold)>& on_fold,
                                                 std::vector<Model>& models);

// snap-train -C: LIBLINEAR's search for the best C (its find_parameter_C). From
// `start_C` (<= 0: LIBLINEAR's calc_start_C, the power of two at or below
// 1 / (l max_i ||x_i||^2) for the logistic loss, half that for the others, the
// bias's value in the norm) C doubles up to `max_C`; at each C every fold trains
// from its model of the previous C (warm start) and the held-out predictions
// are scored: accuracy (higher is better) or, for regression, mean squared error
// (lower). Stops early when no fold's weights changed (<= 1e-15 in norm) for
// five C in a row. `on_C` is told each C and its score as they come. On a GPU
// (use_gpu) the search keeps one session (TrainParameters::session) and each
// fold's training rows for its whole path, so every fold's rows are uploaded
// once, not once per C; the host and the device then hold every fold's training
// rows at once ((k - 1) times the data).
struct BestC {
  double C = 0.0;
  double score = 0.0;
  bool reached_max = false;  // the search stopped at max_C, not early
};
double search_start_C(const Dataset& data, const TrainParameters& parameters);
BestC find_best_C(const Dataset& data, const TrainParameters& parameters, int folds, std::uint64_t seed,
                  double start_C, double max_C, const std::function<void(double C, double score)>& on_C);

}  // namespace snapml::cli
