// printf formatting into a std::string. The tools print numbers exactly as
// LIBLINEAR's train and predict do (%g, %.17g), so scripts that parse LIBLINEAR's
// output parse ours; iostreams cannot spell %g's rules compactly.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace snapml::cli {

__attribute__((format(printf, 1, 2))) inline std::string printf_string(const char* pattern, ...) {
  va_list arguments;
  va_start(arguments, pattern);
  va_list again;
  va_copy(again, arguments);
  const int size = std::vsnprintf(nullptr, 0, pattern, arguments);
  va_end(arguments);
  std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
  if (size > 0) std::vsnprintf(text.data(), text.size() + 1, pattern, again);
  va_end(again);
  return text;
}

}  // namespace snapml::cli
