// snap-train: trains a linear model from a data file, as LIBLINEAR's `train`.
//
//   snap-train [options] training_file [model_file]
//
// Options: train_options.cpp (and `snap-train --help`, docs/cli.md). Output: a
// progress line on a terminal, a summary line, the model file; with -v the
// cross-validation result instead of a model. Exit codes: cli_common.h.
// `mpirun -n K snap-train ...` trains on K ranks (distributed_train.h).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli_common.h"
#include "openmp_wait.h"
#include "cross_validation.h"
#include "input_files.h"
#include "snapml/communicator.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/error.h"
#include "snapml/metrics.h"
#include "snapml/model.h"
#include "snapml/output_path.h"
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

// -C: prints each C's line and the best as LIBLINEAR's train -C does.
int search_C(const TrainOptions& o, const Dataset& data, ProgressLine& progress) {
  constexpr double kMaxC = 1024.0;  // LIBLINEAR's
  const bool classification = is_classification(o.parameters.loss);
  const BestC best = find_best_C(data, o.parameters, o.folds, o.parameters.seed, o.start_C, kMaxC,
                                 [&](double C, double score) {
                                   progress.clear();
                                   std::cout << printf_string(classification ? "log2c= %7.2f\trate=%g\n"
                                                                             : "log2c= %7.2f\tmse=%g\n",
                                                              std::log2(C), classification ? 100.0 * score : score)
                                             << std::flush;
                                   progress.set_stage("C " + printf_string("%g", 2.0 * C));
                                 });
  progress.clear();
  if (best.reached_max && !o.quiet) std::cerr << "warning: maximum C reached.\n";
  if (classification)
    std::cout << printf_string("Best C = %g  CV accuracy = %g%%\n", best.C, 100.0 * best.score);
  else
    std::cout << printf_string("Best C = %g  CV MSE = %g\n", best.C, best.score);
  return kExitOk;
}

// --report-memory: the peak resident set (VmHWM) the kernel recorded for this
// process, in bytes; 0 where /proc does not say.
std::uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // "VmHWM:   1234 kB"
  return 0;
}

// Prints the peak resident memory on every way out of snap_train (errors too), so
// that a test can compare it with the budget.
struct MemoryReport {
  bool active;
  ~MemoryReport() {
    if (active) std::cerr << "peak resident memory: " << peak_resident_bytes() << " bytes\n";
  }
};

// With --max-memory: the streamed source the budget needs for the training file,
// or nullptr when the file is read into memory as without a budget.
std::unique_ptr<datasets::StreamedBinarySource> streamed_training_source(const TrainOptions& o,
                                                                         const datasets::InputFile& input,
                                                                         DataFormat format) {
  if (o.max_memory == 0) return nullptr;
  if (format != DataFormat::Binary) {
    // Text can only be parsed whole; its in-memory size is of the order of its
    // file size, the only estimate available before parsing.
    if (input.size() > o.max_memory)
      throw InvalidArgument("--max-memory " + std::to_string(o.max_memory) + ": " + o.training_file + " (" +
                            std::to_string(input.size()) +
                            " bytes of text) does not fit the budget and only the binary format streams; "
                            "convert it first (snap-convert " + o.training_file + " DATA.snap) and train on the .snap file");
    return nullptr;
  }
  datasets::BinaryFileLayout layout = datasets::read_binary_layout(input);
  const datasets::BinarySourcePlan plan = datasets::plan_binary_source(layout, o.max_memory);
  if (!plan.stream) return nullptr;
  require(o.folds == 0, "-v cross-validation needs the data in memory, and " + o.training_file +
                            " does not fit --max-memory; raise the budget or drop -v");
  if (!o.quiet)
    std::cerr << "snap-train: " << o.training_file << " (" << layout.header.file_size
              << " bytes) exceeds --max-memory; streaming it through " << plan.buffers << " buffers of "
              << layout.largest_chunk_bytes() << " bytes\n";
  return std::make_unique<datasets::StreamedBinarySource>(std::move(layout), plan.buffers);
}

// --model-format liblinear: what would refuse the model (Model::liblinear_refusal),
// found before the fit rather than after it. One pass over the labels.
void check_liblinear_model(const TrainParameters& p, ChunkSource& source, int index_base) {
  std::set<double> labels;
  if (is_classification(p.loss)) {
    CsrView chunk;
    for (source.reset(); source.next(chunk);) labels.insert(chunk.labels, chunk.labels + chunk.n_rows);
  }
  const std::string refusal =
      Model::liblinear_refusal(p.loss, p.penalty, std::vector<double>(labels.begin(), labels.end()), index_base);
  require(refusal.empty(), "--model-format liblinear: " + refusal);
}

int snap_train(int argc, char** argv) {
  TrainOptions o = parse_train_options(argc, argv);
  const MemoryReport memory_report{o.report_memory};
  // Before any work, on every rank under mpirun too: an output that cannot be
  // written, or that is an input or another output, fails now, not after the fit
  // (output_path.h).
  std::vector<NamedPath> inputs{{"training file", o.training_file}}, outputs;
  if (!o.test_file.empty()) inputs.push_back({"--test file", o.test_file});
  if (o.folds == 0) outputs.push_back({"model file", o.model_file});
  if (!o.history_file.empty()) outputs.push_back({"--history file", o.history_file});
  if (!o.parameters.checkpoint.empty()) outputs.push_back({"--checkpoint file", o.parameters.checkpoint, true});
  check_outputs(inputs, outputs);
#if defined(SNAPML_WITH_MPI)
  // Under mpirun every process is one CoCoA+ rank (docs/distributed.md).
  if (launched_as_mpi_rank()) return train_as_mpi_rank(o, &argc, &argv);
#endif
  // The training file is opened once, here: a pipe or FIFO can be read only once.
  datasets::InputFile input(o.training_file, o.max_memory);
  const DataFormat format = datasets::sniff_format(input, o.format);
  const std::unique_ptr<datasets::StreamedBinarySource> streamed = streamed_training_source(o, input, format);
  int index_base = -1;  // the training text's; a .snap file holds columns
  const Dataset data =
      streamed ? Dataset() : read_dataset(std::move(input), format, o.parameters.threads, {}, &index_base);
  if (o.liblinear_model) {
    InMemorySource in_memory(data);
    check_liblinear_model(o.parameters, streamed ? static_cast<ChunkSource&>(*streamed) : in_memory, index_base);
  }
  ProgressLine progress(!o.quiet);
  if (progress.active())
    o.parameters.on_epoch = [&progress](int problem, const EpochRecord& record) { progress.update(problem, record); };
  if (o.find_C) return train_naming_file(o, [&] { return search_C(o, data, progress); });
  if (o.folds > 0) return train_naming_file(o, [&] { return cross_validate(o, data, progress); });

  // The test file is read before training, so that a wrong path fails at once
  // rather than after a long run.
  // With the training file's index base, so that its indices name the same
  // features (input_files.h).
  const Dataset test = o.test_file.empty() ? Dataset()
                                           : read_dataset(o.test_file, o.format, o.parameters.threads,
                                                          {index_base, "the training file " + o.training_file});
  const Clock::time_point started = Clock::now();
  LocalCommunicator local;
  // A streamed source solves the one-vs-rest problems one after another (a
  // single reader); in memory they run in parallel.
  TrainResult result = train_naming_file(
      o, [&] { return streamed ? train(*streamed, local, o.parameters) : train(data, o.parameters); });
  result.model.index_base = index_base;
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  progress.clear();

  // The history before the model: an output that fails (a full device) then
  // leaves the model as it was, not a new model beside exit 3.
  if (!o.history_file.empty()) write_history(o.history_file, result);
  if (o.liblinear_model)
    result.model.save_liblinear(o.model_file, result.plan.algorithm == SolverPlan::Algorithm::Newton);
  else
    result.model.save(o.model_file);
  // The model is safe: a later run with this --checkpoint starts afresh.
  remove_checkpoint(o.parameters, local);
  if (!o.quiet) print_summary(result, o.parameters, seconds, o.model_file, std::cout, std::cerr);
  // Test metrics are the result the user asked for, so -q does not hide them
  // (as LIBLINEAR's -q does not hide its cross-validation result).
  if (!o.test_file.empty()) report_test(result.model, test, o.parameters.threads, std::cout);
  return kExitOk;
}

}  // namespace
}  // namespace snapml::cli

int main(int argc, char** argv) {
  snapml::cli::sleep_idle_openmp_threads(argv);
  return snapml::cli::run_tool("snap-train", [&] { return snapml::cli::snap_train(argc, argv); });
}
