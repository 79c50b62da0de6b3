// Internal: the line-and-token reader and number formatting shared by the two
// model file formats (model.cpp, model_liblinear.cpp). Every parse error is an
// InputError naming the file, line and column.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace snapml::detail {

// Appends the shortest decimal text that reads back to exactly `value`.
void append_number(std::string& out, double value);

class ModelText {
 public:
  // A model file's text, read once by Model::read_text; `path` names it in messages.
  ModelText(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}

  // Moves to the next non-empty line; false at the end of the file.
  bool next_line();
  // The next whitespace-separated token of the current line; "" at its end.
  std::string_view token();
  // The next token as a finite number or an integer, or an InputError saying what
  // was expected (NaN and infinities are refused).
  double number(const char* what);
  std::int64_t integer(const char* what);
  // The next line, which must exist, for `what`.
  void require_line(const char* what);
  // Fails unless the current line has no more tokens.
  void expect_line_end();
  // How many of `announced` numbers to reserve room for: no more than the rest of
  // the file can hold (each takes at least two bytes, a digit and a separator).
  // A header's count is not trusted with an allocation: "n_features 2000000000"
  // in a 300-byte file asked for 16 GB before the file was found too short
  // (shown by the fuzzers' memory limit).
  std::size_t reservable_numbers(std::uint64_t announced) const;
  [[noreturn]] void fail(const std::string& problem) const;
  // The same naming the current line only, for a problem of the line as a whole.
  [[noreturn]] void fail_line(const std::string& problem) const;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string text_;
  std::size_t next_line_start_ = 0;
  std::int64_t line_number_ = 0;
  std::string_view line_;
  std::size_t line_start_ = 0;  // offset of line_ in text_
  std::size_t column_ = 0;      // offset in line_ of the next token
  std::size_t token_column_ = 0;  // offset of the last token, for messages
};

}  // namespace snapml::detail
