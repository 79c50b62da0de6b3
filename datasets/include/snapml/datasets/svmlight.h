// svmlight / libsvm text format: reader and writer.
//
// Dialect (docs/formats.md): `label [qid:N] idx:val idx:val ... [# comment]`, one
// example a line; blank and comment-only lines are skipped; indices strictly
// increasing within a line (unsorted or duplicate indices are rejected, as
// LIBLINEAR and scikit-learn do); NaN and infinite labels or values are rejected;
// one- or zero-based indices, auto-detected as scikit-learn's zero_based="auto";
// gzip files (recognised by their magic bytes) are decompressed on the fly.
// Values are parsed as double and rounded once to float, so they equal
// scikit-learn's float64 load cast to float32. Every error names file, line and
// column. The result, chunking included, does not depend on the thread count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "snapml/dataset.h"
#include "snapml/datasets/input_file.h"

namespace snapml::datasets {

enum class IndexBase { Auto, Zero, One };

struct SvmlightOptions {
  IndexBase index_base = IndexBase::Auto;
  // 0: one more than the largest index seen. Otherwise the feature count to use;
  // an index at or past it is an error (a test set may use fewer features).
  std::int32_t n_features = 0;
  // 0: all threads OpenMP offers.
  int threads = 0;
  // Rows per chunk of the returned dataset (the unit of the binary format and of
  // out-of-core streaming).
  std::int64_t chunk_rows = 1 << 16;
};

// Reads a whole file (plain or .gz). Throws InputError (file:line:column) on
// malformed content or an empty file, IoError when the file cannot be read.
// `base_read`, when given, receives the base the indices were read with (Zero or
// One; with IndexBase::Auto what the file decided), which the files read with
// it must share (format.h's OpenedData::index_base).
Dataset read_svmlight(const std::string& path, const SvmlightOptions& options = {}, IndexBase* base_read = nullptr);
// The same from an input already opened (format.h's open()).
Dataset read_svmlight(InputFile input, const SvmlightOptions& options = {}, IndexBase* base_read = nullptr);

// Parses text already in memory; `name` is used in error messages.
Dataset parse_svmlight(const char* data, std::size_t size, const std::string& name,
                       const SvmlightOptions& options = {}, IndexBase* base_read = nullptr);

// scikit-learn's load_svmlight_file, array for array: what the Python loader
// (snap_ml.datasets) returns. Values are the parsed doubles (or those rounded
// once to float), indices as written (the caller applies the base, which
// scikit-learn decides over all the files of load_svmlight_files). Unlike
// scikit-learn, NaN and infinite labels and values are refused (InputError).
struct SvmlightArraysOptions {
  bool float32 = false;     // values as float (scikit-learn's dtype=np.float32)
  bool multilabel = false;  // `l1,l2,... idx:val ...` lines; labels sorted within a row
  bool query_ids = false;   // keep the `qid:N` values
  bool allow_index_zero = true;  // false (zero_based=False): index 0 is an error
  // scikit-learn's offset and length: offset > 0 starts just after the first
  // '\n' at or after byte `offset`; length > 0 stops after the first example line
  // that ends past byte offset + length (so a line straddling the boundary
  // belongs to the earlier segment).
  std::uint64_t offset = 0;
  std::int64_t length = -1;
  int threads = 0;  // 0: all threads OpenMP offers
};

struct SvmlightArrays {
  std::vector<std::int64_t> indptr;    // n_rows + 1
  std::vector<std::int64_t> indices;   // as written
  std::vector<double> values;          // unless float32
  std::vector<float> float_values;     // float32
  std::vector<double> labels;          // one a row, or multilabel: all the rows' sets, in order
  std::vector<std::int64_t> label_offsets;  // multilabel: row i's labels are [offsets[i], offsets[i+1])
  std::vector<std::int64_t> query_ids; // query_ids: one per row that has a qid
  bool saw_index_zero = false;
  std::int64_t max_index = -1;         // as written; -1 without any index
};

// No examples is not an error here (scikit-learn returns zero rows).
SvmlightArrays read_svmlight_arrays(const std::string& path, const SvmlightArraysOptions& options = {});
SvmlightArrays parse_svmlight_arrays(const char* data, std::size_t size, const std::string& name,
                                     const SvmlightArraysOptions& options = {});

// Writes one-based indices (LIBLINEAR's convention) unless zero_based; values
// with the shortest decimal form that reads back to the same float. The file
// appears atomically: written to a temporary file, synced, renamed.
void write_svmlight(const Dataset& data, const std::string& path, bool zero_based = false);

}  // namespace snapml::datasets
