// Criteo TSV reader: a parallel parse of line-aligned byte ranges, as the
// svmlight reader does (svmlight_reader.cpp), with the feature mapping of
// snapml/datasets/criteo.h.
//
//  1. the input is cut into one byte range per thread at line ends;
//  2. each thread parses its range into arrays of its own (RangeRows); a row is
//     appended field by field and rolled back if the line turns out malformed;
//  3. the ranges, in file order, are copied into chunks of chunk_rows rows. Chunks
//     are cut by global row number, so the result does not depend on the threads.
// The hot loop keeps no line counter: a problem records the byte offset of the
// offending field, and line and column are counted only on that path.
#define XXH_INLINE_ALL  // 16-byte keys: an inlined XXH3 is several times faster than a call
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "line_ranges.h"
#include "parallel.h"
#include "snapml/datasets/criteo.h"
#include "snapml/error.h"
#include "text_input.h"

namespace snapml::datasets {

namespace {

constexpr std::uint8_t kNotHex = 0xff;
// Integer fields longer than this many digits could overflow uint64; the real log
// never comes close (its largest values have 7 digits).
constexpr std::ptrdiff_t kMaxIntegerDigits = 18;
constexpr std::ptrdiff_t kMaxHexDigits = 16;

std::array<std::uint8_t, 256> make_hex_table() {
  std::array<std::uint8_t, 256> table{};
  table.fill(kNotHex);
  for (int c = 0; c < 10; ++c) table['0' + c] = static_cast<std::uint8_t>(c);
  for (int c = 0; c < 6; ++c) {
    table['a' + c] = static_cast<std::uint8_t>(10 + c);
    table['A' + c] = static_cast<std::uint8_t>(10 + c);
  }
  return table;
}
const std::array<std::uint8_t, 256> kHexDigit = make_hex_table();

// log(1 + x) for the small counts that make up nearly all integer fields: a
// table lookup instead of a libm call in the per-field loop.
constexpr std::uint64_t kLogTableSize = 4096;
std::array<float, kLogTableSize> make_log_table() {
  std::array<float, kLogTableSize> table{};
  for (std::uint64_t x = 0; x < kLogTableSize; ++x) table[x] = static_cast<float>(std::log1p(static_cast<double>(x)));
  return table;
}
const std::array<float, kLogTableSize> kLog1p = make_log_table();

float log_scaled(std::uint64_t x) {
  return x < kLogTableSize ? kLog1p[x] : static_cast<float>(std::log1p(static_cast<double>(x)));
}

void store_le64(unsigned char* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

// The hash bucket of (column, value): the key bytes are fixed little-endian so
// that indices are the same on every platform (the tests pin golden values).
std::uint32_t hash_bucket(int column, std::uint64_t value, std::uint64_t seed, std::uint32_t mask) {
  unsigned char key[16];
  store_le64(key, static_cast<std::uint64_t>(column));
  store_le64(key + 8, value);
  return static_cast<std::uint32_t>(XXH3_64bits_withSeed(key, sizeof key, seed)) & mask;
}

std::string field_name(int field) {
  if (field == 0) return "label";
  if (field <= kCriteoIntegerColumns) return "I" + std::to_string(field);
  return "C" + std::to_string(field - kCriteoIntegerColumns);
}

struct Problem {
  std::size_t offset;  // byte offset in the input
  std::string text;
};

// What one thread parsed from its byte range.
struct RangeRows {
  std::vector<std::int64_t> row_ends;  // running nnz after each row
  std::vector<std::int32_t> indices;
  std::vector<float> values;
  std::vector<double> labels;
  std::int64_t skipped = 0;
  std::optional<Problem> problem;  // the first problem of the range
  std::exception_ptr exception;
};

class RangeParser {
 public:
  RangeParser(const char* input, const CriteoOptions& options, RangeRows& out)
      : input_(input),
        seed_(options.seed),
        mask_((std::uint32_t{1} << options.hash_bits) - 1),
        top_shift_(options.hash_bits > 5 ? options.hash_bits - 5 : 0),
        skip_(options.skip_bad_lines),
        out_(out) {}

  void parse(std::size_t begin, std::size_t end) {
    const char* p = input_ + begin;
    const char* const stop = input_ + end;
    while (p < stop) {
      const auto* newline = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(stop - p)));
      const char* line_end = newline ? newline : stop;
      const char* content_end = (line_end > p && line_end[-1] == '\r') ? line_end - 1 : line_end;
      if (content_end > p && !parse_line(p, content_end)) {
        if (!skip_) return;
        ++out_.skipped;
      }
      p = line_end + 1;
    }
  }

 private:
  // Parses the 8 hex digits at p (the real log's width) without a branch per
  // digit; false when one of them is not a hex digit.
  static bool hex8(const char* p, std::uint64_t& value) {
    std::uint64_t v = 0;
    std::uint8_t bad = 0;
    for (int i = 0; i < 8; ++i) {
      std::uint8_t d = kHexDigit[static_cast<unsigned char>(p[i])];
      bad |= d;
      v = (v << 4) | (d & 15u);
    }
    value = v;
    return (bad & 0xf0) == 0;  // kNotHex has the high bits set
  }

  // Appends the row of [line, end) (no newline); false, with the problem noted,
  // when the line is malformed. The row is built in local arrays and appended
  // only when the whole line is good.
  bool parse_line(const char* line, const char* end) {
    std::int32_t indices[kCriteoIntegerColumns + kCriteoCategoricalColumns];
    float values[kCriteoIntegerColumns + kCriteoCategoricalColumns];
    int n = 0;
    const char* p = line;
    if (!(end - p >= 1 && (*p == '0' || *p == '1') && (end - p == 1 || p[1] == '\t')))
      return reject(line, end, line, 0, "label must be 0 or 1, got '" + field_text(line, end) + "'");
    const double label = *p == '1' ? 1.0 : 0.0;
    ++p;

    for (int j = 0; j < kCriteoIntegerColumns; ++j) {
      if (p == end) return reject(line, end, end, -1, "");
      ++p;  // the tab that ends the previous field
      const char* start = p;
      const bool negative = p < end && *p == '-';
      p += negative;
      const char* digits = p;
      std::uint64_t x = 0;
      while (p < end) {
        unsigned d = static_cast<unsigned char>(*p) - unsigned{'0'};
        if (d > 9) break;
        x = x * 10 + d;
        ++p;
      }
      if ((p < end && *p != '\t') || (negative && p == digits) || p - digits > kMaxIntegerDigits)
        return reject(line, end, start, 1 + j, "'" + field_text(start, end) + "' is not an integer of at most 18 digits");
      const std::int32_t slot = 3 * j;
      if (p == start) {
        indices[n] = slot + 1;  // missing
        values[n++] = 1.0f;
      } else if (x != 0) {
        indices[n] = negative ? slot + 2 : slot;
        values[n++] = negative ? 1.0f : log_scaled(x);
      }  // zero: log(1) = 0, not stored
    }

    std::uint32_t buckets[kCriteoCategoricalColumns];
    int n_buckets = 0;
    for (int c = 0; c < kCriteoCategoricalColumns; ++c) {
      if (p == end) return reject(line, end, end, -1, "");
      ++p;
      const char* start = p;
      std::uint64_t v = 0;
      if (end - p >= 8 && (end - p == 8 || p[8] == '\t') && hex8(p, v)) {
        p += 8;
      } else {
        for (; p < end && *p != '\t'; ++p) {
          std::uint8_t d = kHexDigit[static_cast<unsigned char>(*p)];
          if (d == kNotHex)
            return reject(line, end, start, 1 + kCriteoIntegerColumns + c,
                          "'" + field_text(start, end) + "' is not a hexadecimal value");
          v = (v << 4) | d;
        }
        if (p - start > kMaxHexDigits)
          return reject(line, end, start, 1 + kCriteoIntegerColumns + c,
                        "'" + field_text(start, end) + "' has more than 16 hexadecimal digits");
        if (p == start) continue;  // missing: no feature
      }
      buckets[n_buckets++] = hash_bucket(c, v, seed_, mask_);
    }
    if (p != end) return reject(line, end, end, -1, "");

    sort_buckets(buckets, n_buckets);
    for (int i = 0; i < n_buckets; ++i) {
      if (i > 0 && buckets[i] == buckets[i - 1]) {
        values[n - 1] += 1.0f;  // a collision within the row: values add up
      } else {
        indices[n] = static_cast<std::int32_t>(kCriteoIntegerFeatures + buckets[i]);
        values[n++] = 1.0f;
      }
    }
    out_.indices.insert(out_.indices.end(), indices, indices + n);
    out_.values.insert(out_.values.end(), values, values + n);
    out_.labels.push_back(label);
    out_.row_ends.push_back(static_cast<std::int64_t>(out_.indices.size()));
    return true;
  }

  // Sorts a row's buckets. An insertion sort of random values mispredicts a
  // branch per element; a counting pass on the top 5 bits first leaves them
  // nearly sorted, so the insertion sort after it rarely moves anything.
  void sort_buckets(std::uint32_t* buckets, int n) const {
    std::uint8_t starts[33] = {};
    for (int i = 0; i < n; ++i) ++starts[(buckets[i] >> top_shift_) + 1];
    for (int k = 1; k < 33; ++k) starts[k] = static_cast<std::uint8_t>(starts[k] + starts[k - 1]);
    std::uint32_t binned[kCriteoCategoricalColumns];
    for (int i = 0; i < n; ++i) binned[starts[buckets[i] >> top_shift_]++] = buckets[i];
    for (int i = 0; i < n; ++i) {
      std::uint32_t b = binned[i];
      int k = i;
      for (; k > 0 && buckets[k - 1] > b; --k) buckets[k] = buckets[k - 1];
      buckets[k] = b;
    }
  }

  // Notes the problem (if it is the range's first) and returns false. A line with the wrong number of fields is reported as such, whatever
  // field failed first: a missing or extra tab shifts every later field.
  bool reject(const char* line, const char* end, const char* at, int field, const std::string& what) {
    if (out_.problem) return false;
    const auto fields = 1 + std::count(line, end, '\t');
    if (fields != kCriteoFields) {
      // Too few: point at the line end; too many: at the tab that opens field 41.
      at = end;
      if (fields > kCriteoFields) {
        at = line;
        for (int tabs = 0; tabs < kCriteoFields; ++at) tabs += *at == '\t';
        --at;
      }
      note(at, "expected " + std::to_string(kCriteoFields) + " tab-separated fields, found " +
                   std::to_string(fields));
    } else {
      note(at, "field " + field_name(field) + ": " + what);
    }
    return false;
  }

  void note(const char* at, std::string text) {
    out_.problem = Problem{static_cast<std::size_t>(at - input_), std::move(text)};
  }

  // The field starting at `start`, cut short for messages.
  static std::string field_text(const char* start, const char* end) {
    const char* stop = start;
    while (stop < end && *stop != '\t') ++stop;
    std::string text(start, std::min<std::ptrdiff_t>(stop - start, 40));
    if (stop - start > 40) text += "...";
    return text;
  }

  const char* input_;
  std::uint64_t seed_;
  std::uint32_t mask_;
  int top_shift_;  // buckets >> top_shift_ < 32
  bool skip_;
  RangeRows& out_;
};

void validate(const CriteoOptions& options) {
  require(options.hash_bits >= 1 && options.hash_bits <= 30,
          "CriteoOptions.hash_bits must be in 1..30 (39 + 2^hash_bits features must fit an int32), got " +
              std::to_string(options.hash_bits));
  detail::check_threads_and_chunk_rows("CriteoOptions", options.threads, options.chunk_rows);
}

}  // namespace

std::int32_t criteo_n_features(const CriteoOptions& options) {
  validate(options);
  return kCriteoIntegerFeatures + (std::int32_t{1} << options.hash_bits);
}

std::int32_t criteo_categorical_index(int column, std::uint64_t value, const CriteoOptions& options) {
  validate(options);
  require(column >= 0 && column < kCriteoCategoricalColumns,
          "categorical column must be in 0..25, got " + std::to_string(column));
  const std::uint32_t mask = (std::uint32_t{1} << options.hash_bits) - 1;
  return kCriteoIntegerFeatures + static_cast<std::int32_t>(hash_bucket(column, value, options.seed, mask));
}

CriteoData parse_criteo(const char* data, std::size_t size, const std::string& name, const CriteoOptions& options) {
  const std::int32_t n_features = criteo_n_features(options);  // validates
  const int threads = detail::resolve_threads(options.threads);
  const std::vector<RangeRows> ranges = detail::parse_ranges<RangeRows>(
      data, size, threads, [&](RangeRows& rows, std::size_t begin, std::size_t end) {
        // ~250 bytes and ~33 non-zeros a row in the real log: reserve to avoid regrowth.
        const std::size_t rows_guess = (end - begin) / 200 + 1;
        rows.row_ends.reserve(rows_guess);
        rows.labels.reserve(rows_guess);
        rows.indices.reserve(rows_guess * 36);
        rows.values.reserve(rows_guess * 36);
        RangeParser(data, options, rows).parse(begin, end);
      });

  CriteoData result;
  // Without skipping each range stops at its first problem, so the first range
  // with one holds the earliest problem of the input, whatever the thread count.
  for (const RangeRows& r : ranges) {
    if (r.exception) std::rethrow_exception(r.exception);
    if (r.problem && !options.skip_bad_lines)
      throw detail::located(data, r.problem->offset, name, r.problem->text);
    if (r.problem && result.first_skipped.empty())
      result.first_skipped = detail::located(data, r.problem->offset, name, r.problem->text).what();
    result.skipped_lines += r.skipped;
  }

  const std::vector<std::int64_t> range_first_row = detail::range_first_rows(ranges);
  const std::int64_t n_rows = range_first_row.back();
  if (n_rows == 0)
    throw InputError(name, 0, 0,
                     result.skipped_lines ? "no examples: every line was malformed and skipped (first: " +
                                                result.first_skipped + ")"
                                          : std::string("no examples: the input is empty"));

  result.dataset = Dataset(detail::fill_chunks(ranges, range_first_row, options.chunk_rows, threads), n_features);
  return result;
}

CriteoData read_criteo(const std::string& path, const CriteoOptions& options) {
  validate(options);  // before touching the file
  return read_criteo(InputFile(path), options);
}

CriteoData read_criteo(InputFile input, const CriteoOptions& options) {
  validate(options);
  const std::string path = input.path();
  const detail::TextInput text(std::move(input));
  return parse_criteo(text.data(), text.size(), path, options);
}

}  // namespace snapml::datasets
