// The dataset readers and writers: svmlight text (parsed in parallel by the C++
// reader) and the binary chunked format, to and from flat CSR numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings.h"
#include "data.h"
#include "snapml/dataset.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/input_file.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"

namespace py = pybind11;

namespace snapml::python {
namespace {

datasets::IndexBase index_base(const std::string& zero_based) {
  if (zero_based == "auto") return datasets::IndexBase::Auto;
  if (zero_based == "zero") return datasets::IndexBase::Zero;
  if (zero_based == "one") return datasets::IndexBase::One;
  throw InvalidArgument("zero_based must be \"auto\", \"zero\" or \"one\", got \"" + zero_based + "\"");
}

// A Dataset's chunks laid end to end as one CSR: (indptr, indices, data, labels,
// weights or None, n_features). Weights are returned only when a chunk has them.
py::tuple flatten(const Dataset& dataset) {
  const auto n_rows = static_cast<py::ssize_t>(dataset.n_rows());
  const auto nnz = static_cast<py::ssize_t>(dataset.nnz());
  bool has_weights = false;
  for (const CsrChunk& chunk : dataset.chunks()) has_weights |= !chunk.weights.empty();
  py::array_t<std::int64_t> indptr(n_rows + 1);
  py::array_t<std::int32_t> indices(nnz);
  py::array_t<float> data(nnz);
  py::array_t<double> labels(n_rows);
  py::array_t<float> weights(has_weights ? n_rows : 0);
  std::int64_t* offsets = indptr.mutable_data();
  std::int32_t* columns = indices.mutable_data();
  float* values = data.mutable_data();
  double* targets = labels.mutable_data();
  float* row_weights = weights.mutable_data();
  {
    py::gil_scoped_release release;
    std::int64_t row = 0, position = 0;
    offsets[0] = 0;
    for (const CsrChunk& chunk : dataset.chunks()) {
      for (std::int64_t r = 0; r < chunk.n_rows(); ++r)
        offsets[row + r + 1] = position + chunk.row_offsets[static_cast<std::size_t>(r) + 1];
      std::copy(chunk.col_indices.begin(), chunk.col_indices.end(), columns + position);
      std::copy(chunk.values.begin(), chunk.values.end(), values + position);
      std::copy(chunk.labels.begin(), chunk.labels.end(), targets + row);
      if (has_weights) {
        if (chunk.weights.empty())
          std::fill_n(row_weights + row, chunk.n_rows(), 1.0f);
        else
          std::copy(chunk.weights.begin(), chunk.weights.end(), row_weights + row);
      }
      row += chunk.n_rows();
      position += chunk.nnz();
    }
  }
  return py::make_tuple(indptr, indices, data, labels,
                        has_weights ? py::object(weights) : py::none(), dataset.n_features());
}

// One owned chunk copied from a CsrData with labels: what the writers take.
Dataset to_dataset(const CsrData& x) {
  const CsrView& v = x.view();
  require(v.labels != nullptr, "writing a dataset needs labels");
  CsrChunk chunk;
  chunk.row_offsets.assign(v.row_offsets, v.row_offsets + v.n_rows + 1);
  chunk.col_indices.assign(v.col_indices, v.col_indices + v.nnz());
  chunk.values.assign(v.values, v.values + v.nnz());
  chunk.labels.assign(v.labels, v.labels + v.n_rows);
  if (v.weights) chunk.weights.assign(v.weights, v.weights + v.n_rows);
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), v.n_features);
}

datasets::SvmlightOptions svmlight_options(std::int32_t n_features, const std::string& zero_based,
                                           int threads) {
  datasets::SvmlightOptions options;
  options.index_base = index_base(zero_based);
  options.n_features = n_features;
  options.threads = threads;
  return options;
}

// A vector handed to numpy without a copy: the array owns it through a capsule.
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), owner);
}

// scikit-learn's arrays: (indptr, indices, data, labels, label_offsets or None,
// query_ids, saw_index_zero, max_index), indices as written.
py::tuple to_python(datasets::SvmlightArrays&& a, bool float32, bool multilabel) {
  py::object data = float32 ? py::object(to_numpy(std::move(a.float_values))) : py::object(to_numpy(std::move(a.values)));
  py::object label_offsets = multilabel ? py::object(to_numpy(std::move(a.label_offsets))) : py::none();
  return py::make_tuple(to_numpy(std::move(a.indptr)), to_numpy(std::move(a.indices)), data,
                        to_numpy(std::move(a.labels)), label_offsets, to_numpy(std::move(a.query_ids)),
                        a.saw_index_zero, a.max_index);
}

datasets::SvmlightArraysOptions arrays_options(bool float32, bool multilabel, bool query_id, bool allow_index_zero,
                                               std::uint64_t offset, std::int64_t length, int threads) {
  datasets::SvmlightArraysOptions options;
  options.float32 = float32;
  options.multilabel = multilabel;
  options.query_ids = query_id;
  options.allow_index_zero = allow_index_zero;
  options.offset = offset;
  options.length = length;
  options.threads = threads;
  return options;
}

}  // namespace

void bind_datasets(py::module_& m) {
  m.def(
      "file_identity", [](const std::string& path) { return datasets::InputFile(path).identity(); },
      py::arg("path"),
      "a file's size and a checksum of its ends (InputFile::identity): what the ranks of one mpirun job compare "
      "when each reads its share of it");
  m.def(
      "read_svmlight",
      [](const std::string& path, std::int32_t n_features, const std::string& zero_based,
         int threads) {
        Dataset dataset;
        {
          py::gil_scoped_release release;
          dataset = datasets::read_svmlight(path, svmlight_options(n_features, zero_based, threads));
        }
        return flatten(dataset);
      },
      py::arg("path"), py::arg("n_features") = 0, py::arg("zero_based") = "auto",
      py::arg("threads") = 0,
      "Reads an svmlight file (.gz too): (indptr, indices, data, labels, None, n_features)");
  m.def(
      "parse_svmlight",
      [](const py::bytes& text, const std::string& name, std::int32_t n_features,
         const std::string& zero_based, int threads) {
        const std::string_view bytes = text;
        Dataset dataset;
        {
          py::gil_scoped_release release;
          dataset = datasets::parse_svmlight(bytes.data(), bytes.size(), name,
                                             svmlight_options(n_features, zero_based, threads));
        }
        return flatten(dataset);
      },
      py::arg("text"), py::arg("name"), py::arg("n_features") = 0, py::arg("zero_based") = "auto",
      py::arg("threads") = 0, "Parses svmlight text held in memory, as read_svmlight");
  m.def(
      "svmlight_arrays",
      [](const py::object& source, const std::string& name, bool float32, bool multilabel, bool query_id,
         bool allow_index_zero, std::uint64_t offset, std::int64_t length, int threads) {
        const auto options = arrays_options(float32, multilabel, query_id, allow_index_zero, offset, length, threads);
        datasets::SvmlightArrays arrays;
        if (py::isinstance<py::bytes>(source)) {
          const std::string_view bytes = source.cast<py::bytes>();
          py::gil_scoped_release release;
          arrays = datasets::parse_svmlight_arrays(bytes.data(), bytes.size(), name, options);
        } else {
          py::gil_scoped_release release;
          arrays = datasets::read_svmlight_arrays(name, options);
        }
        return to_python(std::move(arrays), float32, multilabel);
      },
      py::arg("source"), py::arg("name"), py::arg("float32"), py::arg("multilabel"), py::arg("query_id"),
      py::arg("allow_index_zero"), py::arg("offset"), py::arg("length"), py::arg("threads"),
      "scikit-learn's load_svmlight_file arrays from bytes, or from the file `name` when source is None");
  m.def(
      "write_svmlight",
      [](const CsrData& x, const std::string& path, bool zero_based) {
        const Dataset dataset = to_dataset(x);
        py::gil_scoped_release release;
        datasets::write_svmlight(dataset, path, zero_based);
      },
      py::arg("x"), py::arg("path"), py::arg("zero_based") = false,
      "Writes a CsrData with labels as svmlight text, atomically");
  m.def(
      "load_binary",
      [](const std::string& path) {
        Dataset dataset;
        {
          py::gil_scoped_release release;
          dataset = datasets::load_binary(path);
        }
        return flatten(dataset);
      },
      py::arg("path"), "Reads a binary chunked file: (indptr, indices, data, labels, weights, n_features)");
  m.def(
      "write_binary",
      [](const CsrData& x, const std::string& path, std::int64_t chunk_rows) {
        const Dataset dataset = to_dataset(x);
        datasets::BinaryWriteOptions options;
        options.chunk_rows = chunk_rows;
        py::gil_scoped_release release;
        datasets::write_binary(dataset, path, options);
      },
      py::arg("x"), py::arg("path"), py::arg("chunk_rows") = 0,
      "Writes a CsrData with labels (and weights) in the binary chunked format, atomically");
}

}  // namespace snapml::python
