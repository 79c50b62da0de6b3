// The svmlight line parser shared by the two svmlight readers: the Dataset one
// (svmlight_reader.cpp, float values for training) and the array one
// (svmlight_arrays.cpp, scikit-learn's load_svmlight_file: doubles or floats,
// multilabel, query ids). Each thread parses one line-aligned byte range into a
// RangeRows of its own (line_ranges.h); indices are kept as written, because
// with IndexBase::Auto the base is known only once the whole input has been seen.
// The hot loop keeps no line counter: an error records the byte offset of the
// offending token, and its line and column are counted only on that path.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "decimal.h"
#include "line_ranges.h"
#include "snapml/datasets/svmlight.h"

namespace snapml::datasets::detail {

// The largest index accepted as written: even in a zero-based file its column
// plus one must fit n_features (an int32).
constexpr std::uint64_t kMaxRawIndex = std::numeric_limits<std::int32_t>::max() - 1;
constexpr std::uint64_t kNoIndex = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kNoOffset = std::numeric_limits<std::size_t>::max();

// What a line may hold and the index checks of the hot loop, precomputed from
// the options.
struct LineRules {
  IndexBase base = IndexBase::Auto;
  std::int64_t n_features = 0;      // 0: no limit
  std::uint64_t max_raw = kMaxRawIndex;
  // Auto base with n_features given: index n_features is valid one-based and out of
  // range zero-based, so its first occurrence is only noted (kNoIndex: no such case).
  std::uint64_t deferred_raw = kNoIndex;
  // Multilabel lines (LIBSVM's multilabel sets): `l1,l2,... idx:val ...`, or no
  // label at all when the line starts with a pair.
  bool multilabel = false;
  // Keep the `qid:N` values (else they are checked and dropped).
  bool keep_query_ids = false;
};

inline std::string allowed_indices(const LineRules& rules) {
  std::string n = std::to_string(rules.n_features);
  std::string n_minus_1 = std::to_string(rules.n_features - 1);
  switch (rules.base) {
    case IndexBase::Zero: return "0.." + n_minus_1;
    case IndexBase::One: return "1.." + n;
    case IndexBase::Auto: break;
  }
  return "1.." + n + ", or 0.." + n_minus_1 + " in a zero-based file";
}

// A malformed token found by a parser thread: its byte offset in the input and
// what is wrong. Thrown and caught inside the thread, turned into an InputError
// (with line and column) on the calling thread.
struct Problem {
  std::size_t offset;
  std::string text;
};

// The rows of one byte range, before merging. Value is float (rounded once from
// the parsed double) or double.
template <class Value>
struct RangeRows {
  std::vector<double> labels;
  std::vector<std::int64_t> label_ends;  // multilabel: this range's label count after each row
  std::vector<std::int64_t> row_ends;    // this range's nnz after each of its rows
  std::vector<std::int32_t> indices;     // as written in the file (base not applied)
  std::vector<Value> values;
  std::vector<std::int64_t> query_ids;   // LineRules::keep_query_ids: one per row that has one
  bool saw_index_zero = false;
  std::int64_t max_index = -1;  // as written
  std::size_t first_deferred = kNoOffset;  // offset of the first LineRules::deferred_raw
  std::optional<Problem> problem;
  std::exception_ptr exception;  // anything else (bad_alloc), rethrown by the caller
};

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline const char* skip_blanks(const char* p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  return p;
}

// The '\n' ending the line that holds p, or `end`.
inline const char* line_end(const char* p, const char* end) {
  const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return newline ? static_cast<const char*>(newline) : end;
}

// A token ends at a blank, a line end, the end of input, or a '#' comment.
inline bool ends_token(const char* p, const char* end) {
  return p == end || is_blank(*p) || *p == '\n' || *p == '#';
}

template <class Value>
class RangeParser {
  static_assert(std::is_same_v<Value, float> || std::is_same_v<Value, double>);

 public:
  RangeParser(const char* input, std::size_t begin, std::size_t end, const LineRules& rules,
              RangeRows<Value>& out)
      : input_(input), begin_(input + begin), end_(input + end), rules_(rules), out_(out) {}

  void parse() {
    reserve_from_sample();
    const char* p = begin_;
    while (p < end_) {
      p = skip_blanks(p, end_);
      if (p == end_) break;
      if (*p == '\n') {
        ++p;
      } else if (*p == '#') {
        p = line_end(p, end_);
      } else {
        p = parse_example(p);
      }
    }
  }

 private:
  // Parses `label [qid:N] idx:val ...` up to (not past) the line end.
  const char* parse_example(const char* p) {
    if (rules_.multilabel) {
      p = parse_label_set(p);
    } else {
      p = parse_label(p);
    }

    std::uint64_t previous = kNoIndex;
    bool first_pair = true;
    for (;;) {
      p = skip_blanks(p, end_);
      if (p == end_ || *p == '\n') break;
      if (*p == '#') {
        p = line_end(p, end_);
        break;
      }
      if (first_pair && end_ - p >= 4 && std::memcmp(p, "qid:", 4) == 0) {
        p = parse_query_id(p);
        first_pair = false;
        continue;
      }
      first_pair = false;
      p = parse_pair(p, previous);
    }
    out_.row_ends.push_back(static_cast<std::int64_t>(out_.indices.size()));
    if (rules_.multilabel) out_.label_ends.push_back(static_cast<std::int64_t>(out_.labels.size()));
    // Indices rise within a row, so its last one is its largest.
    if (previous != kNoIndex)
      out_.max_index = std::max(out_.max_index, static_cast<std::int64_t>(previous));
    return p;
  }

  const char* parse_label(const char* token) {
    double label;
    const char* parsed = parse_decimal(token, end_, label);
    if (!parsed || !ends_token(parsed, end_)) {
      if (token_text(token).find(':') != std::string::npos)
        fail(token, "missing label: the line starts with the pair '" + token_text(token) + "'");
      fail(token, "bad label '" + token_text(token) + "': expected a number");
    }
    if (!std::isfinite(label)) fail(token, "label '" + token_text(token) + "' is NaN or infinite");
    out_.labels.push_back(label);
    return parsed;
  }

  // `l1,l2,...`: the row's labels, stored sorted (scikit-learn's tuples are). A
  // first token holding ':' is a pair: the row has no label.
  const char* parse_label_set(const char* token) {
    if (token_text(token).find(':') != std::string::npos) return token;
    const std::size_t first = out_.labels.size();
    const char* p = token;
    for (;;) {
      double label;
      const char* parsed = parse_decimal(p, end_, label);
      if (!parsed || !(ends_token(parsed, end_) || *parsed == ',') || !std::isfinite(label))
        fail(token, "bad label set '" + token_text(token) + "': expected finite numbers separated by ','");
      out_.labels.push_back(label);
      // parsed may be end_ (a label set that ends the input): test it before reading *parsed.
      if (parsed == end_ || *parsed != ',') {
        std::sort(out_.labels.begin() + static_cast<std::ptrdiff_t>(first), out_.labels.end());
        return parsed;
      }
      p = parsed + 1;
    }
  }

  // `qid:N` (svmlight's ranking groups), right after the label: a signed integer,
  // kept when LineRules::keep_query_ids.
  const char* parse_query_id(const char* token) {
    const char* p = token + 4;
    const bool negative = p < end_ && *p == '-';
    if (p < end_ && (*p == '-' || *p == '+')) ++p;
    const char* digits = p;
    std::uint64_t value = 0;
    while (p < end_ && is_digit(*p)) {
      value = value * 10 + static_cast<std::uint64_t>(*p - '0');
      if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(token, "query id '" + token_text(token) + "' does not fit a 64-bit integer");
      ++p;
    }
    if (p == digits || !ends_token(p, end_))
      fail(token, "bad query id '" + token_text(token) + "': expected qid:<integer>");
    if (rules_.keep_query_ids) {
      const auto id = static_cast<std::int64_t>(value);
      out_.query_ids.push_back(negative ? -id : id);
    }
    return p;
  }

  // Parses one `index:value` pair; `previous` is the row's last index (kNoIndex: none).
  const char* parse_pair(const char* token, std::uint64_t& previous) {
    const char* p = token;
    std::uint64_t index = 0;
    while (p < end_ && is_digit(*p)) {
      index = index * 10 + static_cast<std::uint64_t>(*p - '0');
      if (index > kMaxRawIndex)
        fail(token, "index " + index_text(token) + " is too large (the largest index allowed is " +
                        std::to_string(kMaxRawIndex) + ")");
      ++p;
    }
    if (p == token) {
      if (*p == '-' && p + 1 < end_ && is_digit(p[1]))
        fail(token, "negative index " + index_text(token) + ": indices are non-negative integers");
      fail(token, "malformed pair '" + token_text(token) + "': expected index:value");
    }
    if (p == end_ || *p != ':')
      fail(token, "malformed pair '" + token_text(token) +
                      "': expected index:value with an integer index followed by ':'");
    const char* value_text = ++p;
    double value;
    const char* parsed = parse_decimal(p, end_, value);
    if (!parsed || !ends_token(parsed, end_)) {
      if (ends_token(value_text, end_)) fail(token, "missing value after '" + token_text(token) + "'");
      fail(value_text, "bad value '" + token_text(value_text) + "' for index " + index_text(token) +
                           ": expected a number");
    }
    if (!std::isfinite(value))
      fail(value_text, "value '" + token_text(value_text) + "' for index " + index_text(token) +
                           " is NaN or infinite");
    // Parsed as double; a float is that double rounded once: what scikit-learn's
    // float64 load followed by astype(float32) gives, and its dtype=float32 load.
    const auto stored = static_cast<Value>(value);
    if (!std::isfinite(stored))
      fail(value_text, "value '" + token_text(value_text) + "' for index " + index_text(token) +
                           " is out of the float32 range");

    if (previous != kNoIndex && index <= previous) {
      fail(token, (index == previous ? "duplicate index " + index_text(token)
                                     : "index " + index_text(token) + " after index " +
                                           std::to_string(previous)) +
                      ": indices must be strictly increasing");
    }
    if (index == 0) {
      if (rules_.base == IndexBase::One) fail(token, "index 0 in a file read as one-based");
      out_.saw_index_zero = true;
    }
    if (index > rules_.max_raw)
      fail(token, "index " + index_text(token) + " is out of range for n_features=" +
                      std::to_string(rules_.n_features) + " (allowed: " + allowed_indices(rules_) + ")");
    if (index == rules_.deferred_raw && out_.first_deferred == kNoOffset)
      out_.first_deferred = static_cast<std::size_t>(token - input_);

    out_.indices.push_back(static_cast<std::int32_t>(index));
    out_.values.push_back(stored);
    previous = index;
    return parsed;
  }

  // Sizes the arrays from the first 256 KiB of the range (one ':' per pair, one
  // '\n' per line), so that they rarely grow and copy while parsing. An
  // underestimate only means a late reallocation.
  void reserve_from_sample() {
    const std::size_t size = static_cast<std::size_t>(end_ - begin_);
    const std::size_t sample = std::min<std::size_t>(size, 256 * 1024);
    if (sample == 0) return;
    const double scale = 1.05 * static_cast<double>(size) / static_cast<double>(sample);
    auto pairs = static_cast<std::size_t>(scale * static_cast<double>(std::count(begin_, begin_ + sample, ':')));
    auto lines = static_cast<std::size_t>(scale * static_cast<double>(std::count(begin_, begin_ + sample, '\n')));
    out_.indices.reserve(pairs + 16);
    out_.values.reserve(pairs + 16);
    out_.labels.reserve(lines + 16);
    out_.row_ends.reserve(lines + 16);
  }

  [[noreturn]] void fail(const char* at, std::string text) const {
    throw Problem{static_cast<std::size_t>(at - input_), std::move(text)};
  }

  // The token starting at p (up to a blank or line end), shortened for messages.
  std::string token_text(const char* p) const {
    const char* q = p;
    while (q < end_ && !is_blank(*q) && *q != '\n' && q - p < 40) ++q;
    std::string text(p, q);
    if (q < end_ && !is_blank(*q) && *q != '\n') text += "...";
    return text;
  }

  // The index part of an `index:value` token.
  std::string index_text(const char* token) const {
    std::string text = token_text(token);
    return text.substr(0, text.find(':'));
  }

  const char* input_;
  const char* begin_;
  const char* end_;
  const LineRules& rules_;
  RangeRows<Value>& out_;
};

// Parses bytes [begin, end) of `text` (whose cut points are line starts) on
// `threads` threads (line_ranges.h's parse_ranges) and throws the earliest
// problem as an InputError naming `name`, and line and column within `text`.
template <class Value>
std::vector<RangeRows<Value>> parse_rows(const char* text, std::size_t begin, std::size_t end,
                                         const std::string& name, const LineRules& rules, int threads) {
  std::vector<RangeRows<Value>> ranges = parse_ranges<RangeRows<Value>>(
      text + begin, end - begin, threads, [&](RangeRows<Value>& rows, std::size_t from, std::size_t to) {
        try {
          RangeParser<Value>(text, begin + from, begin + to, rules, rows).parse();
        } catch (Problem& problem) {
          rows.problem = std::move(problem);
        }
      });
  // Each range stops at its first problem, so the first failed range holds the
  // earliest problem of the file, whatever the number of ranges.
  for (const RangeRows<Value>& r : ranges) {
    if (r.exception) std::rethrow_exception(r.exception);
    if (r.problem) throw located(text, r.problem->offset, name, r.problem->text);
  }
  return ranges;
}

}  // namespace snapml::datasets::detail
