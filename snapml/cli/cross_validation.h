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

}  // namespace snapml::cli
