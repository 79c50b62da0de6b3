#include "snapml/error.h"

#include <cerrno>
#include <cstring>

namespace snapml {

namespace {
std::string located(const std::string& file, std::int64_t line, std::int64_t column,
                    const std::string& problem) {
  std::string where = file.empty() ? std::string("<input>") : file;
  if (line > 0) where += ":" + std::to_string(line);
  if (line > 0 && column > 0) where += ":" + std::to_string(column);
  return where + ": " + problem;
}
}  // namespace

InputError::InputError(std::string file, std::int64_t line, std::int64_t column,
                       const std::string& problem)
    : Error(located(file, line, column, problem)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      problem_(problem) {}

std::string errno_message() { return std::strerror(errno); }

}  // namespace snapml
