// svmlight / libsvm text reader: a parallel parse of line-aligned byte ranges.
//
// Three phases:
//  1. cut the input into one byte range per thread, each cut moved to just after
//     a '\n', so every line belongs to exactly one range;
//  2. each thread parses its range into arrays of its own (RangeRows), keeping
//     the indices as written, because with IndexBase::Auto the base is known only
//     once the whole file has been seen;
//  3. the ranges, in file order, are copied into chunks of chunk_rows rows with
//     the base subtracted. Chunks are cut by global row number, so the dataset is
//     the same whatever the number of threads.
// The hot loop keeps no line counter: an error records the byte offset of the
// offending token, and its line and column are counted only on that path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decimal.h"
#include "line_ranges.h"
#include "parallel.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "text_input.h"

namespace snapml::datasets {

namespace {

// The largest index accepted as written: even in a zero-based file its column
// plus one must fit n_features (an int32).
constexpr std::uint64_t kMaxRawIndex = std::numeric_limits<std::int32_t>::max() - 1;
constexpr std::uint64_t kNoIndex = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kNoOffset = std::numeric_limits<std::size_t>::max();

// The index checks of the hot loop, precomputed from the options.
struct IndexRules {
  IndexBase base = IndexBase::Auto;
  std::int64_t n_features = 0;      // 0: no limit
  std::uint64_t max_raw = kMaxRawIndex;
  // Auto base with n_features given: index n_features is valid one-based and out of
  // range zero-based, so its first occurrence is only noted (kNoIndex: no such case).
  std::uint64_t deferred_raw = kNoIndex;
};

IndexRules make_rules(const SvmlightOptions& options) {
  IndexRules rules;
  rules.base = options.index_base;
  rules.n_features = options.n_features;
  if (options.n_features > 0) {
    auto n = static_cast<std::uint64_t>(options.n_features);
    rules.max_raw = options.index_base == IndexBase::Zero ? n - 1 : n;
    if (options.index_base == IndexBase::Auto) rules.deferred_raw = n;
  }
  return rules;
}

std::string allowed_indices(const IndexRules& rules) {
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

// The rows of one byte range, before merging.
struct RangeRows {
  std::vector<double> labels;
  std::vector<std::int64_t> row_ends;  // this range's nnz after each of its rows
  std::vector<std::int32_t> indices;   // as written in the file (base not applied)
  std::vector<float> values;
  bool saw_index_zero = false;
  std::int64_t max_index = -1;  // as written
  std::size_t first_deferred = kNoOffset;  // offset of the first IndexRules::deferred_raw
  std::optional<Problem> problem;
  std::exception_ptr exception;  // anything else (bad_alloc), rethrown by the caller
};

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

const char* skip_blanks(const char* p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  return p;
}

// The '\n' ending the line that holds p, or `end`.
const char* line_end(const char* p, const char* end) {
  const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return newline ? static_cast<const char*>(newline) : end;
}

// A token ends at a blank, a line end, the end of input, or a '#' comment.
inline bool ends_token(const char* p, const char* end) {
  return p == end || is_blank(*p) || *p == '\n' || *p == '#';
}

class RangeParser {
 public:
  RangeParser(const char* input, std::size_t begin, std::size_t end, const IndexRules& rules,
              RangeRows& out)
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
    const char* token = p;
    double label;
    const char* parsed = detail::parse_decimal(p, end_, label);
    if (!parsed || !ends_token(parsed, end_)) {
      if (token_text(token).find(':') != std::string::npos)
        fail(token, "missing label: the line starts with the pair '" + token_text(token) + "'");
      fail(token, "bad label '" + token_text(token) + "': expected a number");
    }
    if (!std::isfinite(label)) fail(token, "label '" + token_text(token) + "' is NaN or infinite");
    p = parsed;

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
        p = skip_query_id(p);
        first_pair = false;
        continue;
      }
      first_pair = false;
      p = parse_pair(p, previous);
    }
    out_.labels.push_back(label);
    out_.row_ends.push_back(static_cast<std::int64_t>(out_.indices.size()));
    // Indices rise within a row, so its last one is its largest.
    if (previous != kNoIndex)
      out_.max_index = std::max(out_.max_index, static_cast<std::int64_t>(previous));
    return p;
  }

  // `qid:N` (svmlight's ranking groups) is accepted right after the label and ignored.
  const char* skip_query_id(const char* token) {
    const char* p = token + 4;
    const char* digits = p;
    while (p < end_ && detail::is_digit(*p)) ++p;
    if (p == digits || !ends_token(p, end_))
      fail(token, "bad query id '" + token_text(token) + "': expected qid:<non-negative integer>");
    return p;
  }

  // Parses one `index:value` pair; `previous` is the row's last index (kNoIndex: none).
  const char* parse_pair(const char* token, std::uint64_t& previous) {
    const char* p = token;
    std::uint64_t index = 0;
    while (p < end_ && detail::is_digit(*p)) {
      index = index * 10 + static_cast<std::uint64_t>(*p - '0');
      if (index > kMaxRawIndex)
        fail(token, "index " + index_text(token) + " is too large (the largest index allowed is " +
                        std::to_string(kMaxRawIndex) + ")");
      ++p;
    }
    if (p == token) {
      if (*p == '-' && p + 1 < end_ && detail::is_digit(p[1]))
        fail(token, "negative index " + index_text(token) + ": indices are non-negative integers");
      fail(token, "malformed pair '" + token_text(token) + "': expected index:value");
    }
    if (p == end_ || *p != ':')
      fail(token, "malformed pair '" + token_text(token) +
                      "': expected index:value with an integer index followed by ':'");
    const char* value_text = ++p;
    double value;
    const char* parsed = detail::parse_decimal(p, end_, value);
    if (!parsed || !ends_token(parsed, end_)) {
      if (ends_token(value_text, end_)) fail(token, "missing value after '" + token_text(token) + "'");
      fail(value_text, "bad value '" + token_text(value_text) + "' for index " + index_text(token) +
                           ": expected a number");
    }
    if (!std::isfinite(value))
      fail(value_text, "value '" + token_text(value_text) + "' for index " + index_text(token) +
                           " is NaN or infinite");
    // Parsed as double, then rounded once to float: what scikit-learn's float64
    // load followed by astype(float32) gives.
    float stored = static_cast<float>(value);
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
  const IndexRules& rules_;
  RangeRows& out_;
};

}  // namespace

Dataset parse_svmlight(const char* data, std::size_t size, const std::string& name,
                       const SvmlightOptions& options) {
  require(options.n_features >= 0,
          "SvmlightOptions.n_features must be 0 (from the data) or positive, got " +
              std::to_string(options.n_features));
  detail::check_threads_and_chunk_rows("SvmlightOptions", options.threads, options.chunk_rows);
  const IndexRules rules = make_rules(options);
  const int threads = detail::resolve_threads(options.threads);
  const std::vector<RangeRows> ranges = detail::parse_ranges<RangeRows>(
      data, size, threads, [&](RangeRows& rows, std::size_t begin, std::size_t end) {
        try {
          RangeParser(data, begin, end, rules, rows).parse();
        } catch (Problem& problem) {
          rows.problem = std::move(problem);
        }
      });
  // Each range stops at its first problem, so the first failed range holds the
  // earliest problem of the file, whatever the number of ranges.
  for (const RangeRows& r : ranges) {
    if (r.exception) std::rethrow_exception(r.exception);
    if (r.problem) throw detail::located(data, r.problem->offset, name, r.problem->text);
  }

  bool saw_zero = std::any_of(ranges.begin(), ranges.end(), [](const RangeRows& r) { return r.saw_index_zero; });
  // scikit-learn's zero_based="auto": one-based unless an index 0 appears.
  bool one_based = options.index_base == IndexBase::One || (options.index_base == IndexBase::Auto && !saw_zero);
  if (!one_based) {
    for (const RangeRows& r : ranges)
      if (r.first_deferred != kNoOffset)
        throw detail::located(data, r.first_deferred, name,
                              "index " + std::to_string(rules.n_features) + " is out of range for n_features=" +
                                  std::to_string(rules.n_features) + " (the file is zero-based: allowed 0.." +
                                  std::to_string(rules.n_features - 1) + ")");
  }

  const std::vector<std::int64_t> range_first_row = detail::range_first_rows(ranges);
  std::int64_t max_index = -1;
  for (const RangeRows& r : ranges) max_index = std::max(max_index, r.max_index);
  const std::int64_t n_rows = range_first_row.back();
  if (n_rows == 0)
    throw InputError(name, 0, 0, "no examples: the input is empty or holds only blank and comment lines");

  const std::int32_t shift = one_based ? 1 : 0;
  const auto n_features = static_cast<std::int32_t>(
      options.n_features > 0 ? options.n_features : std::max<std::int64_t>(max_index - shift + 1, 0));

  return Dataset(detail::fill_chunks(ranges, range_first_row, options.chunk_rows, threads, shift), n_features);
}

Dataset read_svmlight(const std::string& path, const SvmlightOptions& options) {
  return read_svmlight(InputFile(path), options);
}

Dataset read_svmlight(InputFile input, const SvmlightOptions& options) {
  const std::string path = input.path();
  const detail::TextInput text(std::move(input));
  return parse_svmlight(text.data(), text.size(), path, options);
}

}  // namespace snapml::datasets
