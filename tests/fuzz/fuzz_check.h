// Properties the fuzz harnesses check on what a reader accepted. A violation
// aborts, which libFuzzer reports as a crash and saves the input for.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "snapml/csr_view.h"
#include "snapml/dataset.h"
#include "snapml/error.h"

namespace snapml::fuzz {

[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what.c_str());
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) violated(what);
}

// Runs `read`: "" when it returns, the message of the snapml::Error it throws
// otherwise. Any other exception goes on to libFuzzer, which reports it.
template <class Read>
std::string error_of(Read&& read) {
  try {
    read();
    return "";
  } catch (const Error& e) {
    const std::string message = e.what();
    return message.empty() ? "(empty message)" : message;
  }
}

// The readers promise the same result whatever the thread count, errors included.
inline void check_same_error(const std::string& one_thread, const std::string& three_threads) {
  if (one_thread != three_threads)
    violated("1 and 3 threads: '" + one_thread + "' vs '" + three_threads + "'");
}

// What a solver relies on to stay in bounds (csr_view.h): offsets from 0, never
// decreasing, column indices in [0, n_features), finite labels and values.
// `sorted`: indices strictly increasing within a row (the text readers promise it).
inline void check_view(const CsrView& v, bool sorted) {
  check(v.n_rows >= 0 && v.n_features >= 0, "negative shape");
  if (v.n_rows == 0) return;
  check(v.row_offsets[0] == 0, "row_offsets[0] != 0");
  for (std::int64_t i = 0; i < v.n_rows; ++i) {
    check(v.row_offsets[i] <= v.row_offsets[i + 1], "row_offsets decrease");
    check(std::isfinite(v.labels[i]), "a label is not finite");
    if (v.weights) check(std::isfinite(v.weights[i]), "a weight is not finite");
    for (std::int64_t k = v.row_offsets[i]; k < v.row_offsets[i + 1]; ++k) {
      check(v.col_indices[k] >= 0 && v.col_indices[k] < v.n_features, "a column index is out of range");
      check(std::isfinite(v.values[k]), "a value is not finite");
      if (sorted && k > v.row_offsets[i]) check(v.col_indices[k - 1] < v.col_indices[k], "a row's indices are not increasing");
    }
  }
}

inline void check_dataset(const Dataset& data, bool sorted) {
  std::int64_t rows = 0;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView v = data.view(c);
    check(v.first_row == rows, "chunks are not consecutive");
    check_view(v, sorted);
    rows += v.n_rows;
  }
  check(rows == data.n_rows(), "n_rows disagrees with the chunks");
}

template <typename T>
bool same_bytes(const T* a, const T* b, std::int64_t n) {
  return n == 0 || std::memcmp(a, b, static_cast<std::size_t>(n) * sizeof(T)) == 0;
}

// Bit-identical rows (0.0 and -0.0 differ) in the same place.
inline bool same_view(const CsrView& a, const CsrView& b) {
  if (a.n_rows != b.n_rows || a.n_features != b.n_features || a.first_row != b.first_row) return false;
  if ((a.weights == nullptr) != (b.weights == nullptr)) return false;
  const std::int64_t nnz = a.n_rows ? a.row_offsets[a.n_rows] : 0;
  return same_bytes(a.row_offsets, b.row_offsets, a.n_rows ? a.n_rows + 1 : 0) &&
         same_bytes(a.labels, b.labels, a.n_rows) && (!a.weights || same_bytes(a.weights, b.weights, a.n_rows)) &&
         same_bytes(a.col_indices, b.col_indices, nnz) && same_bytes(a.values, b.values, nnz);
}

// The same chunks, each bit-identical.
inline bool same_dataset(const Dataset& a, const Dataset& b) {
  if (a.n_chunks() != b.n_chunks() || a.n_features() != b.n_features()) return false;
  for (std::size_t c = 0; c < a.n_chunks(); ++c)
    if (!same_view(a.view(c), b.view(c))) return false;
  return true;
}

}  // namespace snapml::fuzz
