#include "model_text.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "snapml/error.h"
#include "snapml/model.h"

namespace snapml::detail {

void append_number(std::string& out, double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

bool ModelText::next_line() {
  while (next_line_start_ < text_.size()) {
    std::size_t end = text_.find('\n', next_line_start_);
    if (end == std::string::npos) end = text_.size();
    line_start_ = next_line_start_;
    line_ = std::string_view(text_).substr(line_start_, end - line_start_);
    if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
    next_line_start_ = end + 1;
    ++line_number_;
    column_ = 0;
    token_column_ = 0;
    if (line_.find_first_not_of(" \t") != std::string_view::npos) return true;
  }
  line_ = {};
  column_ = token_column_ = 0;
  ++line_number_;
  return false;
}

std::string_view ModelText::token() {
  while (column_ < line_.size() && (line_[column_] == ' ' || line_[column_] == '\t')) ++column_;
  const std::size_t begin = column_;
  while (column_ < line_.size() && line_[column_] != ' ' && line_[column_] != '\t') ++column_;
  token_column_ = begin;
  return line_.substr(begin, column_ - begin);
}

double ModelText::number(const char* what) {
  const std::string_view text = token();
  if (text.empty()) fail(std::string("expected ") + what + ", found the end of the line");
  double value = 0.0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size())
    fail(std::string("expected ") + what + " (a number), found '" + std::string(text) + "'");
  // from_chars reads "nan" and "inf"; no field of a model may hold one (a NaN
  // weight makes every prediction NaN, and the writers never write one).
  if (!std::isfinite(value))
    fail(std::string("expected ") + what + " (a finite number), found '" + std::string(text) + "'");
  return value;
}

std::int64_t ModelText::integer(const char* what) {
  const std::string_view text = token();
  if (text.empty()) fail(std::string("expected ") + what + ", found the end of the line");
  std::int64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size())
    fail(std::string("expected ") + what + " (an integer), found '" + std::string(text) + "'");
  return value;
}

std::size_t ModelText::reservable_numbers(std::uint64_t announced) const {
  const std::size_t left = next_line_start_ < text_.size() ? text_.size() - next_line_start_ : 0;
  return static_cast<std::size_t>(std::min<std::uint64_t>(announced, left / 2 + 1));
}

void ModelText::require_line(const char* what) {
  if (!next_line()) fail(std::string("the file ends where ") + what + " was expected");
}

void ModelText::expect_line_end() {
  const std::string_view extra = token();
  if (!extra.empty()) fail("unexpected '" + std::string(extra) + "' at the end of the line");
}

void ModelText::fail(const std::string& problem) const {
  throw InputError(path_, line_number_, static_cast<std::int64_t>(token_column_) + 1, problem);
}

void ModelText::fail_line(const std::string& problem) const { throw InputError(path_, line_number_, 0, problem); }

}  // namespace snapml::detail

namespace snapml {

std::string Model::read_text(const std::string& path) {
  // A directory opens and reads as an empty file: say what it is (an I/O error,
  // not a malformed model).
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw IoError("cannot read model file " + path + ": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open model file " + path + ": " + errno_message());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw IoError("cannot read model file " + path + ": " + errno_message());
  return buffer.str();
}

}  // namespace snapml
