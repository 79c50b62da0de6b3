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
