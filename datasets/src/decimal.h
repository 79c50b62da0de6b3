// Decimal number parsing for the text readers: strtod's result, faster.
#pragma once

#include <fast_float/fast_float.h>

#include <cstddef>
#include <cstdint>
#include <system_error>

namespace snapml::datasets::detail {

inline bool is_digit(char c) { return static_cast<unsigned>(c - '0') < 10; }

// Powers of ten that are exact doubles (10^22 is the last one).
constexpr double kExactPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Parses a decimal number at p as strtod would; returns the end of the number,
// or nullptr when there is none. Plain decimals (`-12.345`, most svmlight values)
// take Clinger's fast path (1990): with at most 19 digits, read as an integer
// w <= 2^53, f of them after the point, both w and 10^f are exact doubles, so
// w / 10^f is one correctly rounded division: the double a full parser returns.
// Exponents, longer mantissas, inf and nan go to fast_float (which does not take
// a leading '+', so it is skipped here).
inline const char* parse_decimal(const char* p, const char* end, double& out) {
  const char* start = p;
  const bool negative = p < end && *p == '-';
  if (p < end && (*p == '-' || *p == '+')) ++p;
  const char* digits = p;
  std::uint64_t mantissa = 0;
  while (p < end && is_digit(*p)) mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p++ - '0');
  std::ptrdiff_t n_digits = p - digits;
  std::ptrdiff_t n_fraction = 0;
  if (p < end && *p == '.') {
    const char* fraction = ++p;
    while (p < end && is_digit(*p)) mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p++ - '0');
    n_fraction = p - fraction;
    n_digits += n_fraction;
  }
  const bool exponent = p < end && (*p == 'e' || *p == 'E');
  if (n_digits > 0 && n_digits <= 19 && mantissa <= (std::uint64_t{1} << 53) && !exponent) {
    double value = static_cast<double>(mantissa) / kExactPowersOfTen[n_fraction];
    out = negative ? -value : value;
    return p;
  }
  p = start;
  if (end - p >= 2 && *p == '+' && p[1] != '-' && p[1] != '+') ++p;
  auto parsed = fast_float::from_chars(p, end, out);
  return parsed.ec == std::errc() ? parsed.ptr : nullptr;
}

}  // namespace snapml::datasets::detail
