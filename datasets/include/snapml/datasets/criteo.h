// Criteo display-advertising TSV: reader into hashed sparse rows.
//
// Input: one example a line, 40 tab-separated fields, any of them but the label
// may be empty:
//   label (0 or 1) | I1..I13: decimal integers | C1..C26: hexadecimal strings
// (8 hex digits in the real log). A trailing '\r' is ignored; an empty line is
// skipped. `.gz` files are decompressed on the fly (by their magic bytes).
//
// Feature mapping (docs/datasets.md), for integer column j = 0..12:
//   index 3j     log(1 + x)  when x > 0. x == 0 gives log(1) = 0, which a sparse
//                row does not store: zero is the reference level of the column;
//   index 3j + 1 1.0 when the field is empty (missing);
//   index 3j + 2 1.0 when x < 0 (only I2 of the real log has negatives, mostly -1).
// So a row uses at most one of the three slots of each integer column, and the
// model can tell "missing", "negative" and "zero" apart.
// Categorical column c = 0..25 with value v (read as a hexadecimal number, so
// letter case and leading zeros do not matter):
//   index 39 + (XXH3_64(key, seed) mod 2^hash_bits)
// where key is the 16 bytes (uint64 c, uint64 v), each little-endian. An empty
// categorical field adds nothing (missing is the reference level). When two
// columns of one row hash to the same bucket the values add up (the row holds the
// bucket once, with value 2.0, ...). Indices are sorted and unique in every row;
// n_features is 39 + 2^hash_bits whatever the data. Labels are kept as 0.0 / 1.0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "snapml/dataset.h"
#include "snapml/datasets/input_file.h"

namespace snapml::datasets {

inline constexpr int kCriteoIntegerColumns = 13;
inline constexpr int kCriteoCategoricalColumns = 26;
inline constexpr int kCriteoFields = 1 + kCriteoIntegerColumns + kCriteoCategoricalColumns;
// Three slots per integer column (value, missing, negative) come first.
inline constexpr std::int32_t kCriteoIntegerFeatures = 3 * kCriteoIntegerColumns;

struct CriteoOptions {
  // Categorical values hash into 2^hash_bits buckets; 1..30. 20 is what the
  // Snap ML Criteo runs used.
  int hash_bits = 20;
  // Seed of the categorical hash: another seed, another assignment of collisions.
  std::uint64_t seed = 0;
  // false: the first malformed line throws InputError(file:line:column).
  // true: malformed lines are dropped and counted in CriteoData::skipped_lines.
  bool skip_bad_lines = false;
  // 0: all threads OpenMP offers.
  int threads = 0;
  // Rows per chunk of the returned dataset.
  std::int64_t chunk_rows = 1 << 16;
};

struct CriteoData {
  Dataset dataset;
  // Malformed lines dropped under skip_bad_lines (always 0 otherwise).
  std::int64_t skipped_lines = 0;
  // The message ("file:line:column: problem") of the first dropped line, or "".
  std::string first_skipped;
};

// Reads a whole file (plain or gzip). Throws InputError on a malformed line (unless
// skip_bad_lines) or when no example is left, IoError when the file cannot be read.
CriteoData read_criteo(const std::string& path, const CriteoOptions& options = {});
// The same from an input already opened (format.h's open()).
CriteoData read_criteo(InputFile input, const CriteoOptions& options = {});

// Parses text already in memory; `name` is used in error messages.
CriteoData parse_criteo(const char* data, std::size_t size, const std::string& name,
                        const CriteoOptions& options = {});

// The feature index of categorical column `column` (0..25) holding hexadecimal
// value `value`: what the reader emits, for tests and for users who build rows.
std::int32_t criteo_categorical_index(int column, std::uint64_t value, const CriteoOptions& options = {});

// 39 + 2^hash_bits.
std::int32_t criteo_n_features(const CriteoOptions& options = {});

}  // namespace snapml::datasets
