// snap-predict: predicts a data file with a saved model, as LIBLINEAR's `predict`.
//
//   snap-predict [options] test_file model_file output_file
//
// Reads models in snapml's format and in LIBLINEAR's. Writes one prediction a
// line (LIBLINEAR's %.17g) or, with -b 1, a `labels ...` header and the label and
// class probabilities of each row, exactly as LIBLINEAR's predict -b 1 lays them
// out; then prints LIBLINEAR's accuracy or regression lines. Exit codes: cli_common.h.
#include <algorithm>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "cli_common.h"
#include "openmp_wait.h"
#include "input_files.h"
#include "snapml/atomic_file.h"
#include "snapml/error.h"
#include "snapml/metrics.h"
#include "snapml/output_path.h"
#include "text_format.h"

namespace snapml::cli {
namespace {

struct Options {
  std::string test_file;
  std::string model_file;
  std::string output_file;
  int probability = 0;
  bool quiet = false;
  std::string format = "auto";
  int threads = 0;
};

// Output goes out in blocks of about this many bytes through AtomicFile, which
// throws on a failed write (disk full) and makes a regular file appear only
// complete.
constexpr std::size_t kBlockBytes = 1 << 20;

void write_labels(AtomicFile& file, const std::vector<double>& predicted) {
  std::string block;
  for (double label : predicted) {
    block += printf_string("%.17g\n", label);
    if (block.size() >= kBlockBytes) {
      file.write(block);
      block.clear();
    }
  }
  file.write(block);
}

// LIBLINEAR's -b 1 layout: "labels l_1 .. l_K", then per row the predicted label
// and the probability of each class in that order.
void write_probabilities(AtomicFile& file, const ModelFile& loaded, const Dataset& test,
                         const std::vector<double>& predicted, int threads) {
  const Model& model = loaded.model;
  const std::vector<double> probabilities = model.predict_proba(test, threads);
  std::vector<std::size_t> columns;  // model column of each output column
  std::string block = "labels";
  for (double label : loaded.label_order) {
    block += printf_string(" %d", static_cast<int>(label));
    columns.push_back(static_cast<std::size_t>(
        std::lower_bound(model.classes.begin(), model.classes.end(), label) - model.classes.begin()));
  }
  block += '\n';
  const std::size_t n_classes = model.classes.size();
  for (std::size_t row = 0; row < predicted.size(); ++row) {
    block += printf_string("%g", predicted[row]);
    for (std::size_t column : columns) block += printf_string(" %g", probabilities[row * n_classes + column]);
    block += '\n';
    if (block.size() >= kBlockBytes) {
      file.write(block);
      block.clear();
    }
  }
  file.write(block);
}

// LIBLINEAR's lines, to stdout.
void print_metrics(const Model& model, const std::vector<double>& truth, const std::vector<double>& predicted) {
  const std::size_t n = truth.size();
  if (model.is_classifier()) {
    const std::size_t correct = correct_count(truth.data(), predicted.data(), n);
    std::cout << printf_string("Accuracy = %g%% (%zu/%zu)\n",
                               100.0 * static_cast<double>(correct) / static_cast<double>(n), correct, n);
  } else {
    std::cout << printf_string("Mean squared error = %g (regression)\n",
                               mean_squared_error(truth.data(), predicted.data(), n));
    std::cout << printf_string("Squared correlation coefficient = %g (regression)\n",
                               squared_correlation(truth.data(), predicted.data(), n));
  }
}

int snap_predict(int argc, char** argv) {
  Options o;
  CLI::App app{"Predicts a data file with a model saved by snap-train or LIBLINEAR's train, as LIBLINEAR's "
               "predict does.",
               "snap-predict"};
  app.add_option("test_file", o.test_file, "data to predict (svmlight text, .gz, or .snap binary)")->required();
  app.add_option("model_file", o.model_file, "model in snapml's or LIBLINEAR's format (recognised by its first word)")
      ->required();
  app.add_option("output_file", o.output_file,
                 "predictions, one a line; a regular file is written atomically, a device such as /dev/stdout "
                 "in place")
      ->required();
  app.add_option("-b", o.probability,
                 "1: write class probabilities after a 'labels ...' header (logistic models only); 0: labels "
                 "(default)")
      ->check(CLI::IsMember({0, 1}));
  app.add_flag("-q", o.quiet, "quiet: no accuracy or error lines");
  app.add_option("--format", o.format, "test file format (default auto: binary for .snap or the binary magic)")
      ->check(CLI::IsMember(data_file_format_names()));
  app.add_option("-n,--threads", o.threads, "CPU threads (default 0: all)")
      ->transform(integer_in(0, std::numeric_limits<int>::max()));
  app.footer("Exit codes: 0 ok, 1 usage, 2 bad input, 3 I/O error. docs/cli.md has the details.");
  parse_command_line(app, argc, argv);
  o.threads = usable_threads("snap-predict", o.threads, o.quiet);
  // Before reading: predictions written over the test data or the model lost
  // them (output_path.h).
  check_outputs({{"test file", o.test_file}, {"model file", o.model_file}}, {{"output file", o.output_file}});

  const ModelFile loaded = load_any_model(o.model_file);
  const Model& model = loaded.model;
  if (o.probability == 1)
    require(loss_has_probabilities(model.loss),
            "-b 1: probability output is only supported for logistic regression; " + o.model_file + " uses the " +
                loss_name(model.loss) + " loss");
  // With the model's index base, so that an index names the feature it named in
  // the training data (Model::index_base).
  const Dataset test = read_dataset(o.test_file, datasets::data_format_from_name(o.format), o.threads,
                                    {model.index_base, "the model " + o.model_file + "'s training data"});
  const std::vector<double> predicted = model.predict(test, o.threads);

  AtomicFile file(o.output_file);
  if (o.probability == 1)
    write_probabilities(file, loaded, test, predicted, o.threads);
  else
    write_labels(file, predicted);
  file.commit();
  if (!o.quiet) print_metrics(model, test.labels(), predicted);
  return kExitOk;
}

}  // namespace
}  // namespace snapml::cli

int main(int argc, char** argv) {
  snapml::cli::sleep_idle_openmp_threads(argv);
  return snapml::cli::run_tool("snap-predict", [&] { return snapml::cli::snap_predict(argc, argv); });
}
