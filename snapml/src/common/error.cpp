#include "snapml/error.h"

#include <cerrno>
#include <charconv>
#include <cstring>

namespace snapml {

namespace {

// The length of the UTF-8 sequence of a printable character (U+00A0 and above)
// starting at text[i], or 0 when there is none.
std::size_t printable_utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  std::uint32_t code = lead & (0x7f >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};  // overlong encodings are not UTF-8
  if (code < smallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return code >= 0xa0 ? length : 0;  // U+0080 to U+009F are the C1 controls
}

std::string located(const std::string& file, std::int64_t line, std::int64_t column,
                    const std::string& problem) {
  std::string where = file.empty() ? std::string("<input>") : printable(file);
  if (line > 0) where += ":" + std::to_string(line);
  if (line > 0 && column > 0) where += ":" + std::to_string(column);
  return where + ": " + printable(problem);
}
}  // namespace

std::string printable(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (const std::size_t length = c >= 0x80 ? printable_utf8_length(text, i) : 0) {
      out.append(text, i, length);
      i += length;
    } else {
      if (c == '\n') out += "\\n";
      else if (c == '\t') out += "\\t";
      else if (c == '\r') out += "\\r";
      else out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
      ++i;
    }
  }
  return out;
}

RanksDisagree::RanksDisagree(std::string_view message) : InvalidArgument(printable(message)) {}

InputError::InputError(std::string file, std::int64_t line, std::int64_t column,
                       const std::string& problem)
    : Error(located(file, line, column, problem)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      problem_(printable(problem)) {}

std::string number_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string errno_message() { return std::strerror(errno); }

}  // namespace snapml
