// SnapFile (snap_file.h), the size strings of max_memory, and scores over a
// `.snap` file read chunk by chunk under the same budget as training.
#include "snap_file.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <string>
#include <utility>

#include "bindings.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/partition.h"
#include "snapml/error.h"
#include "snapml/model.h"

namespace py = pybind11;

namespace snapml::python {

SnapFile::SnapFile(const std::string& path, std::uint64_t max_memory, int rank, int ranks)
    : layout_(ranks > 1 ? datasets::layout_share(datasets::read_binary_layout(path), rank, ranks)
                        : datasets::read_binary_layout(path)),
      plan_(datasets::plan_binary_source(layout_, max_memory)),
      max_memory_(max_memory),
      rank_(rank),
      ranks_(ranks) {}

std::unique_ptr<ChunkSource> SnapFile::open() const {
  if (plan_.stream) return std::make_unique<datasets::StreamedBinarySource>(layout_, plan_.buffers);
  datasets::BinaryOpenOptions options;
  options.access = datasets::BinaryAccess::Random;  // resident: rows visited in any order
  if (ranks_ > 1)
    return std::make_unique<datasets::MappedBinaryPartition>(datasets::MappedBinaryFile(layout_.path, options), rank_,
                                                             ranks_);
  auto source = std::make_unique<datasets::MappedBinarySource>(layout_.path, options);
  require(source->n_rows() == layout_.header.n_rows && source->n_features() == layout_.header.n_features,
          layout_.path + " changed since it was opened; pass it again");
  return source;
}

namespace {

// Scores (n_rows x n_outputs), labels and weights (None when the file has none)
// of every row of `file`, one chunk at a time: the data held is the plan's (the
// map or the ring), plus the outputs. Ctrl-C is checked after each chunk.
py::tuple file_scores(const Model& model, const SnapFile& file, int threads) {
  const datasets::BinaryFileLayout& layout = file.layout();
  const auto n_rows = static_cast<py::ssize_t>(layout.header.n_rows);
  const auto width = static_cast<py::ssize_t>(model.n_outputs());
  const bool has_weights = layout.has_weights();
  py::array_t<double> scores({n_rows, width});
  py::array_t<double> labels(n_rows);
  py::array_t<float> weights(has_weights ? n_rows : 0);
  double* out = scores.mutable_data();
  double* targets = labels.mutable_data();
  float* row_weights = weights.mutable_data();
  {
    py::gil_scoped_release release;
    const std::unique_ptr<ChunkSource> source = file.open();
    require(source->n_rows() == n_rows, layout.path + " changed since it was opened; pass it again");
    std::int64_t row = 0;
    CsrView chunk;
    while (source->next(chunk)) {
      require(row + chunk.n_rows <= n_rows, layout.path + " holds more rows than its header says");
      model.decision_function(chunk, out + row * width, threads);
      std::copy_n(chunk.labels, chunk.n_rows, targets + row);
      if (has_weights) {
        if (chunk.weights)
          std::copy_n(chunk.weights, chunk.n_rows, row_weights + row);
        else
          std::fill_n(row_weights + row, chunk.n_rows, 1.0f);
      }
      row += chunk.n_rows;
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    require(row == n_rows, layout.path + " holds fewer rows than its header says");
  }
  return py::make_tuple(scores, labels, has_weights ? py::object(weights) : py::none());
}

}  // namespace

void bind_snap_file(py::module_& m) {
  py::class_<SnapFile>(m, "SnapFile",
                       "A .snap file opened for training or scoring under a host memory budget: "
                       "memory-mapped whole when it fits, else streamed (plan_binary_source)")
      .def(py::init<const std::string&, std::uint64_t, int, int>(), py::arg("path"), py::arg("max_memory") = 0,
           py::arg("rank") = 0, py::arg("ranks") = 1,
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("path", [](const SnapFile& f) { return f.layout().path; })
      .def_property_readonly("n_rows", [](const SnapFile& f) { return f.layout().header.n_rows; })
      .def_property_readonly("n_features", [](const SnapFile& f) { return f.layout().header.n_features; })
      .def_property_readonly("nnz", [](const SnapFile& f) { return f.layout().header.nnz; })
      .def_property_readonly("n_chunks", [](const SnapFile& f) { return f.layout().table.size(); })
      .def_property_readonly("file_size", [](const SnapFile& f) { return f.layout().header.file_size; })
      // The file's bytes, or under mpirun this rank's share's (what the budget plans).
      .def_property_readonly("data_bytes", [](const SnapFile& f) { return f.layout().data_bytes(); })
      .def_property_readonly("has_weights", [](const SnapFile& f) { return f.layout().has_weights(); })
      .def_property_readonly("largest_chunk_bytes",
                             [](const SnapFile& f) { return f.layout().largest_chunk_bytes(); })
      .def_property_readonly("max_memory", &SnapFile::max_memory)
      .def_property_readonly("streamed", [](const SnapFile& f) { return f.plan().stream; })
      .def_property_readonly("buffers", [](const SnapFile& f) { return f.plan().buffers; })
      // What the plan holds in memory: the whole file's data, or the streaming ring.
      .def_property_readonly("resident_bytes", [](const SnapFile& f) { return f.plan().data_bytes; })
      .def_property_readonly("state_bytes", [](const SnapFile& f) { return f.plan().state_bytes; })
      .def("__repr__", [](const SnapFile& f) {
        return "SnapFile('" + f.layout().path + "', " + std::to_string(f.layout().header.n_rows) + " rows, " +
               (f.plan().stream ? "streamed through " + std::to_string(f.plan().buffers) + " buffers"
                                : std::string("memory-mapped")) +
               ")";
      });
  m.def("parse_memory_size", &datasets::parse_memory_size, py::arg("text"),
        "Bytes of a size such as '512MB', '4GB', '1.5G' (powers of 1024), as snap-train --max-memory");
  m.def("decision_function_file", &file_scores, py::arg("model"), py::arg("file"), py::arg("threads") = 0,
        "(scores n_rows x n_outputs, labels, weights or None) of every row of a SnapFile");
}

}  // namespace snapml::python
