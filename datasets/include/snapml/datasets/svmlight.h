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
Dataset read_svmlight(const std::string& path, const SvmlightOptions& options = {});
// The same from an input already opened (format.h's open()).
Dataset read_svmlight(InputFile input, const SvmlightOptions& options = {});

// Parses text already in memory; `name` is used in error messages.
Dataset parse_svmlight(const char* data, std::size_t size, const std::string& name,
                       const SvmlightOptions& options = {});

// Writes one-based indices (LIBLINEAR's convention) unless zero_based; values
// with the shortest decimal form that reads back to the same float. The file
// appears atomically: written to a temporary file, synced, renamed.
void write_svmlight(const Dataset& data, const std::string& path, bool zero_based = false);

}  // namespace snapml::datasets
