// Test helpers for the dataset readers: exact comparison of two datasets and
// parsing of text held in a string.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "snapml/datasets/svmlight.h"
#include "snapml/dataset.h"

namespace snapml::testing {

// Bit patterns, so that "equal" means bit-exact (it tells 0.0 from -0.0).
template <typename T>
std::vector<unsigned char> bytes_of(const std::vector<T>& v) {
  std::vector<unsigned char> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Same shape, same rows, bit-identical labels and values (chunking may differ).
inline void expect_same_rows(const Dataset& expected, const Dataset& actual) {
  ASSERT_EQ(expected.n_rows(), actual.n_rows());
  ASSERT_EQ(expected.nnz(), actual.nnz());
  EXPECT_EQ(expected.n_features(), actual.n_features());
  Dataset a = expected.merged();
  Dataset b = actual.merged();
  const CsrChunk& x = a.chunk(0);
  const CsrChunk& y = b.chunk(0);
  EXPECT_EQ(x.row_offsets, y.row_offsets);
  EXPECT_EQ(x.col_indices, y.col_indices);
  EXPECT_TRUE(bytes_of(x.values) == bytes_of(y.values)) << "values differ";
  EXPECT_TRUE(bytes_of(x.labels) == bytes_of(y.labels)) << "labels differ";
}

// Same rows and the same cut into chunks.
inline void expect_same_dataset(const Dataset& expected, const Dataset& actual) {
  expect_same_rows(expected, actual);
  ASSERT_EQ(expected.n_chunks(), actual.n_chunks());
  for (std::size_t c = 0; c < expected.n_chunks(); ++c) {
    EXPECT_EQ(expected.chunk(c).n_rows(), actual.chunk(c).n_rows()) << "chunk " << c;
    EXPECT_EQ(expected.chunk(c).first_row, actual.chunk(c).first_row) << "chunk " << c;
  }
}

inline Dataset parse_text(const std::string& text, const datasets::SvmlightOptions& options = {}) {
  return datasets::parse_svmlight(text.data(), text.size(), "input.svm", options);
}

}  // namespace snapml::testing
