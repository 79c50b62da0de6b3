// scikit-learn's load_svmlight_file as flat arrays (svmlight.h): the lines of the
// requested segment parsed in parallel (svmlight_range_parser.h), then the
// ranges laid end to end, each range copied on its own thread to the offsets a
// prefix sum gives it.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "line_ranges.h"
#include "parallel.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "svmlight_range_parser.h"
#include "text_input.h"

namespace snapml::datasets {

namespace {

struct Segment {
  std::size_t begin, end;
};

// Whether the line [p, end_of_line) holds an example: something other than
// blanks before any '#'. scikit-learn's length test counts only such lines.
bool holds_example(const char* p, const char* end_of_line) {
  for (; p < end_of_line && *p != '#'; ++p)
    if (!detail::is_blank(*p) && *p != '\n') return true;
  return false;
}

// The bytes scikit-learn's reader parses for offset and length: it seeks to
// `offset`, drops the rest of that line (when offset > 0), then reads lines and
// stops after the first example line whose end is past offset + length.
Segment segment(const char* data, std::size_t size, std::uint64_t offset, std::int64_t length) {
  Segment s{0, size};
  if (offset > 0) {
    if (offset >= size) return Segment{size, size};
    const char* newline = detail::line_end(data + offset, data + size);
    s.begin = newline == data + size ? size : static_cast<std::size_t>(newline - data) + 1;
  }
  if (length <= 0) return s;
  const std::uint64_t limit = offset + static_cast<std::uint64_t>(length);
  // Lines that end at or before `limit` are all read: start at the line holding it.
  std::size_t p = s.begin;
  if (limit >= size) return s;
  if (limit > p) {
    const void* before = memrchr(data + p, '\n', limit - p);
    if (before) p = static_cast<std::size_t>(static_cast<const char*>(before) - data) + 1;
  }
  while (p < size) {
    const char* end_of_line = detail::line_end(data + p, data + size);
    const std::size_t next = end_of_line == data + size ? size : static_cast<std::size_t>(end_of_line - data) + 1;
    if (next > limit && holds_example(data + p, end_of_line)) return Segment{s.begin, next};
    p = next;
  }
  return s;
}

template <class Value>
void concatenate(const std::vector<detail::RangeRows<Value>>& ranges, std::vector<Value>& values, bool multilabel,
                 int threads, SvmlightArrays& out) {
  const std::size_t n = ranges.size();
  std::vector<std::size_t> first_row(n + 1, 0), first_nnz(n + 1, 0), first_label(n + 1, 0), first_query(n + 1, 0);
  for (std::size_t t = 0; t < n; ++t) {
    first_row[t + 1] = first_row[t] + ranges[t].row_ends.size();
    first_nnz[t + 1] = first_nnz[t] + ranges[t].indices.size();
    first_label[t + 1] = first_label[t] + ranges[t].labels.size();
    first_query[t + 1] = first_query[t] + ranges[t].query_ids.size();
    out.saw_index_zero |= ranges[t].saw_index_zero;
    out.max_index = std::max(out.max_index, ranges[t].max_index);
  }
  out.indptr.assign(first_row[n] + 1, 0);
  out.indices.resize(first_nnz[n]);
  values.resize(first_nnz[n]);
  out.labels.resize(first_label[n]);
  if (multilabel) out.label_offsets.assign(first_row[n] + 1, 0);
  out.query_ids.resize(first_query[n]);
  SNAPML_OMP(parallel for schedule(dynamic, 1) num_threads(threads))
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
    const auto t = static_cast<std::size_t>(i);
    const detail::RangeRows<Value>& r = ranges[t];
    const auto nnz_base = static_cast<std::int64_t>(first_nnz[t]);
    for (std::size_t row = 0; row < r.row_ends.size(); ++row)
      out.indptr[first_row[t] + row + 1] = nnz_base + r.row_ends[row];
    std::copy(r.indices.begin(), r.indices.end(), out.indices.begin() + static_cast<std::ptrdiff_t>(first_nnz[t]));
    std::copy(r.values.begin(), r.values.end(), values.begin() + static_cast<std::ptrdiff_t>(first_nnz[t]));
    std::copy(r.labels.begin(), r.labels.end(), out.labels.begin() + static_cast<std::ptrdiff_t>(first_label[t]));
    std::copy(r.query_ids.begin(), r.query_ids.end(),
              out.query_ids.begin() + static_cast<std::ptrdiff_t>(first_query[t]));
    if (multilabel) {
      const auto label_base = static_cast<std::int64_t>(first_label[t]);
      for (std::size_t row = 0; row < r.label_ends.size(); ++row)
        out.label_offsets[first_row[t] + row + 1] = label_base + r.label_ends[row];
    }
  }
}

template <class Value>
void parse_into(const char* data, Segment s, const std::string& name, const detail::LineRules& rules, int threads,
                bool multilabel, std::vector<Value>& values, SvmlightArrays& out) {
  const auto ranges = detail::parse_rows<Value>(data, s.begin, s.end, name, rules, threads);
  concatenate(ranges, values, multilabel, threads, out);
}

}  // namespace

SvmlightArrays parse_svmlight_arrays(const char* data, std::size_t size, const std::string& name,
                                     const SvmlightArraysOptions& options) {
  detail::check_threads_and_chunk_rows("SvmlightArraysOptions", options.threads, 1);
  detail::LineRules rules;
  rules.base = options.allow_index_zero ? IndexBase::Auto : IndexBase::One;
  rules.multilabel = options.multilabel;
  rules.keep_query_ids = options.query_ids;
  const int threads = detail::resolve_threads(options.threads);
  const Segment s = segment(data, size, options.offset, options.length);
  SvmlightArrays out;
  if (options.float32)
    parse_into(data, s, name, rules, threads, options.multilabel, out.float_values, out);
  else
    parse_into(data, s, name, rules, threads, options.multilabel, out.values, out);
  return out;
}

SvmlightArrays read_svmlight_arrays(const std::string& path, const SvmlightArraysOptions& options) {
  const detail::TextInput text{InputFile(path)};
  return parse_svmlight_arrays(text.data(), text.size(), path, options);
}

}  // namespace snapml::datasets
