// libFuzzer harness: the svmlight reader behind the Python loader
// (snap_ml.datasets.load_svmlight_file: read_svmlight_arrays), with scikit-learn's
// defaults and with every option on. Properties: every failure is a snapml::Error;
// the arrays form a valid CSR matrix (what Python builds a scipy matrix from).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"

namespace {

using snapml::fuzz::check;

void check_arrays(const snapml::datasets::SvmlightArrays& a, const snapml::datasets::SvmlightArraysOptions& options) {
  check(!a.indptr.empty() && a.indptr.front() == 0, "indptr does not start at 0");
  const std::size_t rows = a.indptr.size() - 1;
  for (std::size_t i = 0; i < rows; ++i) check(a.indptr[i] <= a.indptr[i + 1], "indptr decreases");
  const auto nnz = static_cast<std::size_t>(a.indptr.back());
  check(a.indices.size() == nnz, "indices disagree with indptr");
  check((options.float32 ? a.float_values.size() : a.values.size()) == nnz, "values disagree with indptr");
  std::int64_t max_index = -1;
  for (std::int64_t index : a.indices) {
    check(index >= 0, "a negative index");
    if (!options.allow_index_zero) check(index > 0, "index 0 where it is refused");
    max_index = std::max(max_index, index);
  }
  check(max_index == a.max_index, "max_index is not the largest index");
  for (double v : a.values) check(std::isfinite(v), "a value is not finite");
  for (float v : a.float_values) check(std::isfinite(v), "a value is not finite");
  for (double v : a.labels) check(std::isfinite(v), "a label is not finite");
  if (options.multilabel) {
    check(a.label_offsets.size() == rows + 1, "label_offsets disagree with the rows");
    check(a.label_offsets.back() == static_cast<std::int64_t>(a.labels.size()), "label_offsets disagree with labels");
  } else {
    check(a.labels.size() == rows, "one label a row");
  }
  if (options.query_ids) check(a.query_ids.size() <= rows, "more query ids than rows");
}

void read(const std::string& path, const snapml::datasets::SvmlightArraysOptions& options) {
  try {
    check_arrays(snapml::datasets::read_svmlight_arrays(path, options), options);
  } catch (const snapml::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = snapml::fuzz::write_input(data, size);
  snapml::datasets::SvmlightArraysOptions defaults;
  defaults.threads = 2;
  read(path, defaults);
  snapml::datasets::SvmlightArraysOptions all = defaults;
  all.float32 = all.multilabel = all.query_ids = true;
  all.allow_index_zero = false;
  // A segment that starts and ends inside the input, as load_svmlight_file's
  // offset and length cut a file for parallel loading.
  all.offset = size / 3;
  all.length = static_cast<std::int64_t>(size / 3);
  read(path, all);
  return 0;
}
