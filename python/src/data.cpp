// CsrData: numpy/scipy CSR arrays -> snapml::CsrView (see data.h).
#include "data.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "bindings.h"
#include "snapml/error.h"

namespace py = pybind11;

namespace snapml::python {
namespace {

// The array as T, converted once when its dtype or layout differs. Refuses
// integer conversions that would wrap (int64 indices past int32's range).
template <typename T>
Array<T> as_array(const py::object& object, const char* name) {
  if (object.is_none()) throw InvalidArgument(std::string(name) + " is missing");
  Array<T> array = Array<T>::ensure(object);
  if (!array) {
    PyErr_Clear();
    throw InvalidArgument(std::string(name) + " cannot be converted to a numeric array");
  }
  if (array.ndim() != 1)
    throw InvalidArgument(std::string(name) + " must be one-dimensional, got " +
                          std::to_string(array.ndim()) + " dimensions");
  return array;
}

void check_indices_fit_int32(const py::object& indices) {
  py::array array = py::array::ensure(indices);
  if (!array || array.dtype().kind() != 'i' || array.itemsize() <= 4 || array.size() == 0) return;
  py::object largest = array.attr("max")();
  py::object smallest = array.attr("min")();
  require(largest.cast<std::int64_t>() <= std::numeric_limits<std::int32_t>::max() &&
              smallest.cast<std::int64_t>() >= 0,
          "column indices must lie in [0, 2^31); got an index outside it");
}

// Whether an unsorted row names a column twice, by a stamp per column: the last
// row that named it, plus 1, in 4 bytes (0: none yet), each fetched some entries
// ahead: the stamps are random accesses into an array as wide as the columns,
// and waiting on each in turn took 37 ms of a 0.5 s fit over 8M entries. Past
// 2^32 - 1 rows the stamps wrap, and a row may meet its own stamp from 2^32 rows
// before: a duplicate reported where there is none, which costs the caller a
// sorted copy (sum_duplicates), never a duplicate missed.
class ColumnStamps {
  using Stamp = std::uint32_t;

 public:
  explicit ColumnStamps(std::int64_t n_features) : last_(static_cast<std::size_t>(n_features), 0) {}
  bool named_twice(const std::int32_t* columns, std::int64_t begin, std::int64_t end, std::int64_t row,
                   std::int64_t n_features) {
    constexpr std::int64_t kAhead = 16;
    const auto stamp = static_cast<Stamp>(row + 1);
    for (std::int64_t k = begin; k < end; ++k) {
      if (k + kAhead < end) {
        const std::int32_t ahead = columns[k + kAhead];
        if (ahead >= 0 && ahead < n_features) __builtin_prefetch(&last_[static_cast<std::size_t>(ahead)], 1);
      }
      const std::int32_t j = columns[k];
      require(j >= 0 && j < n_features, [&] {
        return "column index " + std::to_string(j) + " lies outside [0, " + std::to_string(n_features) + ")";
      });
      Stamp& last = last_[static_cast<std::size_t>(j)];
      if (last == stamp) return true;
      last = stamp;
    }
    return false;
  }

 private:
  std::vector<Stamp> last_;
};

// Whether a row of the CSR arrays names a column twice (see data.h). A row in
// ascending order shows it by that; an unsorted row by its columns' stamps
// (ColumnStamps) where there are no more columns than non-zeros, so that the
// stamps take no more memory than the values, else by sorting a copy of it.
bool rows_name_a_column_twice(const std::int64_t* offsets, std::int64_t n_rows, const std::int32_t* columns,
                              std::int64_t n_indices, std::int64_t n_features, ColumnStamps* stamps) {
  std::vector<std::int32_t> row_copy;
  for (std::int64_t row = 0; row < n_rows; ++row) {
    const std::int64_t begin = offsets[row], end = offsets[row + 1];
    require(begin <= end && end <= n_indices, "indptr must not decrease");
    bool ascending = true;
    for (std::int64_t k = begin + 1; k < end && ascending; ++k) ascending = columns[k - 1] < columns[k];
    if (ascending) continue;
    if (stamps) {
      if (stamps->named_twice(columns, begin, end, row, n_features)) return true;
    } else {
      row_copy.assign(columns + begin, columns + end);
      std::sort(row_copy.begin(), row_copy.end());
      if (std::adjacent_find(row_copy.begin(), row_copy.end()) != row_copy.end()) return true;
    }
  }
  return false;
}

bool rows_have_duplicate_columns(const py::object& indptr_object, const py::object& indices_object,
                                 std::int64_t n_features) {
  check_indices_fit_int32(indices_object);
  const Array<std::int64_t> indptr = as_array<std::int64_t>(indptr_object, "indptr");
  const Array<std::int32_t> indices = as_array<std::int32_t>(indices_object, "indices");
  require(indptr.size() >= 1 && indptr.data()[0] == 0 && indptr.data()[indptr.size() - 1] == indices.size(),
          "indptr must start at 0 and end at the number of indices");
  const std::int64_t n_rows = indptr.size() - 1;
  if (n_features <= indices.size()) {
    ColumnStamps stamps(std::max<std::int64_t>(n_features, 0));
    return rows_name_a_column_twice(indptr.data(), n_rows, indices.data(), indices.size(), n_features, &stamps);
  }
  return rows_name_a_column_twice(indptr.data(), n_rows, indices.data(), indices.size(), n_features, nullptr);
}

}  // namespace

CsrData::CsrData(const py::object& indptr, const py::object& indices, const py::object& data,
                 std::int64_t n_features, const py::object& labels, const py::object& weights) {
  check_indices_fit_int32(indices);
  indptr_ = as_array<std::int64_t>(indptr, "indptr");
  indices_ = as_array<std::int32_t>(indices, "indices");
  data_ = as_array<float>(data, "data");
  require(n_features >= 0 && n_features < std::numeric_limits<std::int32_t>::max(),
          "n_features must lie in [0, 2^31 - 1), got " + std::to_string(n_features));
  require(indptr_.size() >= 1, "indptr must have n_rows + 1 entries, got an empty array");
  const std::int64_t n_rows = indptr_.size() - 1;
  const std::int64_t* offsets = indptr_.data();
  require(offsets[0] == 0, "indptr must start at 0, got " + std::to_string(offsets[0]));
  // Messages built only on failure (the lazy require): one formatted per row and
  // per non-zero cost most of a small fit.
  for (std::int64_t row = 0; row < n_rows; ++row)
    require(offsets[row] <= offsets[row + 1],
            [&] { return "indptr must not decrease; it does at row " + std::to_string(row); });
  const std::int64_t nnz = offsets[n_rows];
  require(indices_.size() == nnz && data_.size() == nnz,
          "indices and data must have indptr[-1] = " + std::to_string(nnz) + " entries, got " +
              std::to_string(indices_.size()) + " and " + std::to_string(data_.size()));
  const std::int32_t* columns = indices_.data();
  for (std::int64_t k = 0; k < nnz; ++k)
    require(columns[k] >= 0 && columns[k] < n_features, [&] {
      return "column index " + std::to_string(columns[k]) + " lies outside [0, " + std::to_string(n_features) + ")";
    });

  view_.n_rows = n_rows;
  view_.n_features = static_cast<std::int32_t>(n_features);
  view_.row_offsets = offsets;
  view_.col_indices = columns;
  view_.values = data_.data();
  if (!labels.is_none()) {
    labels_ = as_array<double>(labels, "labels");
    require(labels_->size() == n_rows, "labels must have one entry per row (" +
                                           std::to_string(n_rows) + "), got " +
                                           std::to_string(labels_->size()));
    view_.labels = labels_->data();
  }
  if (!weights.is_none()) {
    weights_ = as_array<float>(weights, "sample_weight");
    require(weights_->size() == n_rows, "sample_weight must have one entry per row (" +
                                            std::to_string(n_rows) + "), got " +
                                            std::to_string(weights_->size()));
    view_.weights = weights_->data();
  }
}

void bind_data(py::module_& m) {
  m.def("rows_have_duplicate_columns", &rows_have_duplicate_columns, py::arg("indptr"), py::arg("indices"),
        py::arg("n_features"),
        "Whether a row of the CSR arrays names a column twice (a row's columns may be in any order)");
  py::class_<CsrData>(m, "CsrData",
                      "CSR arrays (and labels, weights) as the core's data view; shares "
                      "memory with the arrays when their dtypes already match")
      .def(py::init<const py::object&, const py::object&, const py::object&, std::int64_t,
                    const py::object&, const py::object&>(),
           py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("n_features"),
           py::arg("labels") = py::none(), py::arg("weights") = py::none())
      .def_property_readonly("n_rows", [](const CsrData& d) { return d.view().n_rows; })
      .def_property_readonly("n_features", [](const CsrData& d) { return d.view().n_features; })
      .def_property_readonly("indptr", &CsrData::indptr)
      .def_property_readonly("indices", &CsrData::indices)
      .def_property_readonly("data", &CsrData::data)
      .def_property_readonly("labels", [](const CsrData& d) -> py::object {
        return d.labels() ? py::object(*d.labels()) : py::none();
      })
      .def_property_readonly("weights", [](const CsrData& d) -> py::object {
        return d.weights() ? py::object(*d.weights()) : py::none();
      });
}

}  // namespace snapml::python
