// The library's exceptions. Library code never calls exit(); the command-line
// tools map these types to their exit codes (docs/cli.md).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace snapml {

// Base of everything the library throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A caller passed an invalid argument or combination of parameters.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// The ranks of a distributed fit disagree (their parameters, training files or
// rows: snapml/impl/rank_agreement.h). The checks are collective and throw it on
// every rank alike, so no rank is left waiting in a collective: Python raises it
// as a ValueError a script may catch (snap_ml.RanksDisagreeError), where another
// error under mpirun ends every rank. Its text is printable() already.
class RanksDisagree : public InvalidArgument {
 public:
  explicit RanksDisagree(std::string_view message);
};

// The input data is malformed. Carries where: file, 1-based line and column
// (0 when not known) so the message reads "file:line:column: problem".
class InputError : public Error {
 public:
  InputError(std::string file, std::int64_t line, std::int64_t column, const std::string& problem);
  const std::string& file() const { return file_; }
  std::int64_t line() const { return line_; }
  std::int64_t column() const { return column_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::int64_t line_;
  std::int64_t column_;
  std::string problem_;
};

// The operating system refused a read or write (missing file, disk full, ...).
class IoError : public Error {
 public:
  using Error::Error;
};

// A build without a backend (CUDA, MPI) was asked to use it.
class Unsupported : public Error {
 public:
  using Error::Error;
};

// A fit whose certificate diverged (the dual fell, or the duality gap grew over a
// window of certificates, or an objective turned non-finite) and that could not
// recover: no model is returned. The message says what diverged and what to train
// with instead (snapml/src/dual/divergence_guard.h). A fit that merely ran out of
// max_epochs while converging is not this: it returns with converged = false.
class FitDiverged : public Error {
 public:
  using Error::Error;
};

// Throws InvalidArgument with `message` unless `condition` holds.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw InvalidArgument(message);
}

// The same with the message built only on failure, for checks inside loops over
// rows or non-zeros: require(ok, [&] { return "row " + std::to_string(i) + ...; }).
// Formatting a message per element costs about 100 ns each, more than the check.
template <typename Message, typename = decltype(std::string(std::declval<Message>()()))>
inline void require(bool condition, Message&& message) {
  if (!condition) throw InvalidArgument(message());
}

// `text` safe to print in a message: control bytes (NUL, ESC and the other C0
// and C1 controls, DEL) and bytes that are not UTF-8 become \n, \t, \r or \xNN,
// a backslash stays one. Input files and paths reach messages verbatim otherwise:
// a NUL cut the message short, an escape sequence drove the terminal. InputError
// applies it to its file and problem; the CLI tools to everything they print.
std::string printable(std::string_view text);

// A number for a message: the shortest text that reads back to it ("1e+100",
// "0.1", "3"), where std::to_string printed 1e308 with 300 digits.
std::string number_text(double value);

// "strerror(errno)" of the current errno, for IoError messages.
std::string errno_message();

}  // namespace snapml
