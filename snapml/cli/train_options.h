// snap-train's command line: LIBLINEAR's `train` options plus snapml's long ones,
// parsed into TrainParameters and what the tool itself does (files, reports).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "input_files.h"
#include "snapml/error.h"
#include "snapml/feature_memory.h"
#include "snapml/train.h"

namespace snapml::cli {

// --local-epochs: CoCoA+'s H (Ma, Smith, Jaggi et al. 2015), local epochs per
// round under mpirun. 1, from the measurements in docs/distributed.md ("Choosing
// H"): on one machine an allreduce of the weights costs microseconds to a
// millisecond, and the rounds to a gap hardly drop with H on correlated data, so
// larger H only adds epochs; raise it when a round's allreduce is slow next to an
// epoch (wide data, slow network).
inline constexpr int kDefaultLocalEpochs = 1;

struct TrainOptions {
  TrainParameters parameters;
  std::string training_file;
  std::string model_file;  // default: the training file's name + ".model", in the current directory
  std::string test_file;     // --test: "" for none
  std::string history_file;  // --history: "" for none
  DataFormat format = DataFormat::Auto;
  bool liblinear_model = false;  // --model-format liblinear
  int folds = 0;                 // -v: 0 trains and saves a model
  bool find_C = false;           // -C: search C by cross-validation (-v folds, default 5); saves no model
  double start_C = 0.0;          // -C: the first C (-c given), 0: LIBLINEAR's automatic start
  bool quiet = false;
  // --max-memory in bytes, 0 for no budget: a binary training file larger than
  // the budget streams from disk (plan_binary_source, docs/out-of-core.md).
  std::uint64_t max_memory = 0;
  bool report_memory = false;  // --report-memory: peak resident memory at exit
};

// LIBLINEAR writes a class weight as `-wLABEL WEIGHT` (`-w1 2 -w-1 0.5`), an option
// whose name carries a number, which CLI11 cannot declare. Each such pair becomes
// `--weight LABEL:WEIGHT` before parsing; everything else passes unchanged. A
// trailing `-wLABEL` with no weight becomes `--weight LABEL:`, which the parser
// then rejects naming the label.
std::vector<std::string> rewrite_class_weights(int argc, char** argv);

// Parses and checks the command line. --help prints the help and throws Exit{0};
// a bad option throws Exit{1} (CLI11's message printed) or InvalidArgument /
// Unsupported (mapped to exit 1 by run_tool) with a message that names the fix.
TrainOptions parse_train_options(int argc, char** argv);

// fit() (a train() call, or cross-validation), with a FeatureMemoryError
// (snapml/feature_memory.h) turned into an InputError naming the training file
// (exit 2): its largest feature index is what must change.
template <typename Fit>
auto train_naming_file(const TrainOptions& o, Fit&& fit) -> decltype(fit()) {
  try {
    return fit();
  } catch (const FeatureMemoryError& e) {
    throw InputError(o.training_file, 0, 0, e.what());
  }
}

}  // namespace snapml::cli
