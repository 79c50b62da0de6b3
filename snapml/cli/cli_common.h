// What every command-line tool shares: its exit codes and how exceptions map to
// them, so that snap-convert, snap-train and snap-predict answer a script alike.
//
//   0  success
//   1  usage: bad option or argument (CLI11), snapml::InvalidArgument, or a request
//      this build cannot serve (snapml::Unsupported, e.g. --gpu without CUDA)
//   2  bad input: snapml::InputError (the message names file, line and column)
//   3  I/O: snapml::IoError (missing file, disk full, ...) or out of memory
//   4  anything else: an internal error, a bug to report
//   5  the fit diverged (snapml::FitDiverged): no model was written; the message
//      says what diverged and what to train with instead
//
// Errors are printed to stderr as "program: message".
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <limits>
#include <string>

namespace snapml::cli {

enum ExitCode : int { kExitOk = 0, kExitUsage = 1, kExitBadInput = 2, kExitIo = 3, kExitInternal = 4, kExitDiverged = 5 };

// Thrown to end a tool early with `code` once the reason has been printed.
struct Exit {
  int code;
};

// Parses the command line into `app`. On --help, prints the help and throws
// Exit{0}; on a usage error, prints CLI11's message and throws Exit{kExitUsage}.
void parse_command_line(CLI::App& app, int argc, char** argv);

// A -n / --threads count as the library runs it: at most thread_limit()
// (snapml/threads.h); a larger one is lowered, with a note on stderr unless `quiet`.
int usable_threads(const std::string& program, int requested, bool quiet);

// A validator for a numeric option: a finite number in [low, high], or in
// (low, high] when `low_open`. Its message gives the value and the range in the
// shortest form ("-c: 0 is not in (0, 1e+100]"), where CLI11's Range printed the
// bound DBL_MAX with 300 digits, and refuses nan and inf, which CLI11 accepts.
CLI::Validator number_in(double low, double high, bool low_open = false);
// (0, high] and [0, high], high the largest double by default.
CLI::Validator positive_number(double high = std::numeric_limits<double>::max());
CLI::Validator non_negative_number(double high = std::numeric_limits<double>::max());

// An integer option: a whole number in [low, high], as digits or in exponent form
// ("1e9", which CLI11's integer conversion refused with "Could not convert"),
// rewritten as digits before the conversion (so add it with ->transform, which
// passes the rewrite on; ->check does not); the message gives the range
// ("--max-iter: 1e10 is not in [1, 2147483647]").
CLI::Validator integer_in(long long low, long long high);
// An unsigned 64-bit option (a seed): digits only, at most 2^64 - 1; CLI11 took
// 2^64 and more without a word.
CLI::Validator unsigned_64_bit();

// Runs a tool's main body and returns its exit code, mapping exceptions to the
// codes above.
int run_tool(const std::string& program, const std::function<int()>& body);

}  // namespace snapml::cli
