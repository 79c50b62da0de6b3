// svmlight / libsvm text reader: a parallel parse of line-aligned byte ranges.
//
// Three phases:
//  1. cut the input into one byte range per thread, each cut moved to just after
//     a '\n', so every line belongs to exactly one range;
//  2. each thread parses its range into arrays of its own (RangeRows of
//     svmlight_range_parser.h), keeping the indices as written, because with
//     IndexBase::Auto the base is known only once the whole file has been seen;
//  3. the ranges, in file order, are copied into chunks of chunk_rows rows with
//     the base subtracted. Chunks are cut by global row number, so the dataset is
//     the same whatever the number of threads.
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

#include "line_ranges.h"
#include "parallel.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "svmlight_range_parser.h"
#include "text_input.h"

namespace snapml::datasets {

namespace {

using detail::LineRules;

LineRules make_rules(const SvmlightOptions& options) {
  LineRules rules;
  rules.base = options.index_base;
  rules.n_features = options.n_features;
  if (options.n_features > 0) {
    auto n = static_cast<std::uint64_t>(options.n_features);
    rules.max_raw = options.index_base == IndexBase::Zero ? n - 1 : n;
    if (options.index_base == IndexBase::Auto) rules.deferred_raw = n;
  }
  return rules;
}

}  // namespace

Dataset parse_svmlight(const char* data, std::size_t size, const std::string& name,
                       const SvmlightOptions& options, IndexBase* base_read) {
  require(options.n_features >= 0,
          "SvmlightOptions.n_features must be 0 (from the data) or positive, got " +
              std::to_string(options.n_features));
  detail::check_threads_and_chunk_rows("SvmlightOptions", options.threads, options.chunk_rows);
  const LineRules rules = make_rules(options);
  const int threads = detail::resolve_threads(options.threads);
  const auto ranges = detail::parse_rows<float>(data, 0, size, name, rules, threads);

  bool saw_zero = std::any_of(ranges.begin(), ranges.end(), [](const auto& r) { return r.saw_index_zero; });
  // scikit-learn's zero_based="auto": one-based unless an index 0 appears.
  bool one_based = options.index_base == IndexBase::One || (options.index_base == IndexBase::Auto && !saw_zero);
  if (!one_based) {
    for (const auto& r : ranges)
      if (r.first_deferred != detail::kNoOffset)
        throw detail::located(data, r.first_deferred, name,
                              "index " + std::to_string(rules.n_features) + " is out of range for n_features=" +
                                  std::to_string(rules.n_features) + " (the file is zero-based: allowed 0.." +
                                  std::to_string(rules.n_features - 1) + ")");
  }

  const std::vector<std::int64_t> range_first_row = detail::range_first_rows(ranges);
  std::int64_t max_index = -1;
  for (const auto& r : ranges) max_index = std::max(max_index, r.max_index);
  const std::int64_t n_rows = range_first_row.back();
  if (n_rows == 0)
    throw InputError(name, 0, 0, "no examples: the input is empty or holds only blank and comment lines");

  const std::int32_t shift = one_based ? 1 : 0;
  if (base_read) *base_read = one_based ? IndexBase::One : IndexBase::Zero;
  const auto n_features = static_cast<std::int32_t>(
      options.n_features > 0 ? options.n_features : std::max<std::int64_t>(max_index - shift + 1, 0));

  return Dataset(detail::fill_chunks(ranges, range_first_row, options.chunk_rows, threads, shift), n_features);
}

Dataset read_svmlight(const std::string& path, const SvmlightOptions& options, IndexBase* base_read) {
  return read_svmlight(InputFile(path), options, base_read);
}

Dataset read_svmlight(InputFile input, const SvmlightOptions& options, IndexBase* base_read) {
  const std::string path = input.path();
  const detail::TextInput text(std::move(input));
  return parse_svmlight(text.data(), text.size(), path, options, base_read);
}

}  // namespace snapml::datasets
