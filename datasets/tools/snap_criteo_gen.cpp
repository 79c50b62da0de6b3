// snap-criteo-gen: writes Criteo-schema TSV with a planted logistic model
// (snapml/datasets/criteo_generator.h) and prints what a model should reach on it.
//
//   snap-criteo-gen --rows N --seed S --output FILE|-  [--first-row R] [--threads T]
//
// The summary (rows, click rate, the planted model's logloss and the Bayes
// logloss) goes to stderr, so `--output -` can feed a pipe. Exit codes: cli_common.h.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "snapml/datasets/criteo_generator.h"
#include "snapml/error.h"

int main(int argc, char** argv) {
  return snapml::cli::run_tool("snap-criteo-gen", [&] {
    snapml::datasets::CriteoGeneratorOptions options;
    std::string output;
    CLI::App app{"Writes Criteo-like TSV rows with a planted logistic model."};
    app.add_option("--rows", options.rows, "number of rows")->required();
    app.add_option("--seed", options.seed, "seed of the world: vocabulary, distributions, planted model")
        ->capture_default_str();
    app.add_option("--output", output, "output file, or - for stdout")->required();
    app.add_option("--first-row", options.first_row,
                   "first row of the seed's row stream (a test set: the rows after the training set's)")
        ->capture_default_str();
    app.add_option("--click-rate", options.click_rate, "mean click probability")->capture_default_str();
    app.add_option("--threads", options.threads, "threads (0: all)")->capture_default_str();
    snapml::cli::parse_command_line(app, argc, argv);
    options.threads = snapml::cli::usable_threads("snap-criteo-gen", options.threads, false);

    const auto stats = output == "-" ? snapml::datasets::generate_criteo(options, stdout)
                                     : snapml::datasets::generate_criteo_file(options, output);
    if (output == "-" && std::fflush(stdout) != 0) throw snapml::IoError("cannot write to stdout");
    std::fprintf(stderr,
                 "rows %" PRId64 "  clicks %" PRId64 " (click rate %.4f)  planted-model logloss %.5f"
                 "  Bayes logloss (expected) %.5f +- %.5f\n",
                 stats.rows, stats.clicks, stats.click_rate(), stats.logloss, stats.bayes_logloss,
                 stats.logloss_standard_error);
    return snapml::cli::kExitOk;
  });
}
