// Numpy arrays as the core's data view. CsrData holds references to the arrays
// (so they outlive the view) and a CsrView pointing into them: no copy when the
// arrays already have the core's dtypes (int64 indptr, int32 indices, float32
// data, float64 labels, float32 weights) and are contiguous; otherwise exactly one
// conversion per array.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>

#include "snapml/csr_view.h"

namespace snapml::python {

template <typename T>
using Array = pybind11::array_t<T, pybind11::array::c_style | pybind11::array::forcecast>;

// A row's columns may come in any order: the core's sums over a row do not
// depend on it (the svmlight reader, whose format asks for ascending indices,
// checks that itself). A column named twice in a row does matter (scipy keeps such
// duplicates until sum_duplicates): the core would take them as two features, and
// the row's squared norm, which every dual step divides by, would be wrong.
// _data.py asks rows_have_duplicate_columns (data.cpp) of an unsorted matrix and
// sums the duplicates only where there are some, so an unsorted matrix without
// them is used as it is, neither copied nor sorted.
class CsrData {
 public:
  // Checks the CSR structure (monotonic indptr starting at 0, indices within
  // [0, n_features)) and, when given, that labels and weights have one entry a row;
  // throws InvalidArgument saying what is wrong.
  CsrData(const pybind11::object& indptr, const pybind11::object& indices,
          const pybind11::object& data, std::int64_t n_features,
          const pybind11::object& labels, const pybind11::object& weights);

  const CsrView& view() const { return view_; }
  const Array<std::int64_t>& indptr() const { return indptr_; }
  const Array<std::int32_t>& indices() const { return indices_; }
  const Array<float>& data() const { return data_; }
  const std::optional<Array<double>>& labels() const { return labels_; }
  const std::optional<Array<float>>& weights() const { return weights_; }

 private:
  Array<std::int64_t> indptr_;
  Array<std::int32_t> indices_;
  Array<float> data_;
  std::optional<Array<double>> labels_;
  std::optional<Array<float>> weights_;
  CsrView view_;
};

}  // namespace snapml::python
