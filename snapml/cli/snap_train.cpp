// snap-train: trains a linear model from a data file, as LIBLINEAR's `train`.
//
//   snap-train [options] training_file [model_file]
//
// Options: train_options.cpp (and `snap-train --help`, docs/cli.md). Output: a
// progress line on a terminal, a summary line, the model file; with -v the
// cross-validation result instead of a model. Exit codes: cli_common.h.
// `mpirun -n K snap-train ...` trains on K ranks (distributed_train.h).
#include <chrono>
#include <iostream>

#include "cli_common.h"
#include "cross_validation.h"
#include "input_files.h"
#include "snapml/error.h"
#include "snapml/metrics.h"
#include "snapml/train.h"
#include "text_format.h"
#include "train_options.h"
#include "train_report.h"
#if defined(SNAPML_WITH_MPI)
#include "distributed_train.h"
#endif

namespace snapml::cli {
namespace {

using Clock = std::chrono::steady_clock;

// -v: prints the cross-validation line(s) exactly as LIBLINEAR's train does.
int cross_validate(const TrainOptions& o, const Dataset& data, ProgressLine& progress) {
  const std::vector<double> predicted =
      cross_validation_predictions(data, o.parameters, o.folds, o.parameters.seed, [&](int fold) {
        progress.set_stage("fold " + std::to_string(fold + 1) + "/" + std::to_string(o.folds));
      });
  progress.clear();
  const std::vector<double> truth = data.labels();
  if (is_classification(o.parameters.loss)) {
    std::cout << printf_string("Cross Validation Accuracy = %g%%\n",
                               100.0 * accuracy(truth.data(), predicted.data(), truth.size()));
  } else {
    std::cout << printf_string("Cross Validation Mean squared error = %g\n",
                               mean_squared_error(truth.data(), predicted.data(), truth.size()));
    std::cout << printf_string("Cross Validation Squared correlation coefficient = %g\n",
                               squared_correlation(truth.data(), predicted.data(), truth.size()));
  }
  return kExitOk;
}

int snap_train(int argc, char** argv) {
  TrainOptions o = parse_train_options(argc, argv);
#if defined(SNAPML_WITH_MPI)
  // Under mpirun every process is one CoCoA+ rank (docs/distributed.md).
  if (launched_as_mpi_rank()) return train_as_mpi_rank(o, &argc, &argv);
#endif
  const Dataset data = read_dataset(o.training_file, o.format, o.parameters.threads);
  ProgressLine progress(!o.quiet);
  if (progress.active())
    o.parameters.on_epoch = [&progress](int problem, const EpochRecord& record) { progress.update(problem, record); };
  if (o.folds > 0) return cross_validate(o, data, progress);

  // The test file is read before training, so that a wrong path fails at once
  // rather than after a long run.
  const Dataset test = o.test_file.empty() ? Dataset() : read_dataset(o.test_file, o.format, o.parameters.threads);
  const Clock::time_point started = Clock::now();
  const TrainResult result = train(data, o.parameters);
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  progress.clear();

  if (o.liblinear_model)
    result.model.save_liblinear(o.model_file);
  else
    result.model.save(o.model_file);
  if (!o.history_file.empty()) write_history(o.history_file, result);
  if (!o.quiet) print_summary(result, o.parameters, seconds, o.model_file, std::cout, std::cerr);
  // Test metrics are the result the user asked for, so -q does not hide them
  // (as LIBLINEAR's -q does not hide its cross-validation result).
  if (!o.test_file.empty()) report_test(result.model, test, o.parameters.threads, std::cout);
  return kExitOk;
}

}  // namespace
}  // namespace snapml::cli

int main(int argc, char** argv) {
  return snapml::cli::run_tool("snap-train", [&] { return snapml::cli::snap_train(argc, argv); });
}
