// _core.Session: TrainingSession (session.h) for the estimators.
#include "session.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "data.h"
#include "snapml/error.h"

namespace py = pybind11;

namespace snapml::python {

TrainingSession::TrainingSession(bool use_gpu, std::vector<int> device_ids, int row_sets)
    : use_gpu_(use_gpu), device_ids_(std::move(device_ids)) {
  require(row_sets >= 1, "row_sets must be at least 1, got " + std::to_string(row_sets));
  SessionOptions options;
  options.row_sets = row_sets;
  // Builds nothing yet: the GPU session (and the plugin) on the first GPU problem.
  session_ = make_solver_session(use_gpu_, device_ids_, options);
}

void bind_session(py::module_& m) {
  py::class_<TrainingSession>(m, "Session",
                              "A training session kept across fits (train(session=...)): on a GPU the devices' "
                              "resources and the uploaded rows, keyed by the rows' contents")
      .def(py::init<bool, std::vector<int>, int>(), py::arg("use_gpu"), py::arg("device_ids"),
           py::arg("row_sets") = 1)
      .def_property_readonly("use_gpu", &TrainingSession::use_gpu)
      .def_property_readonly("device_ids", &TrainingSession::device_ids)
      .def_property_readonly("row_uploads", &TrainingSession::row_uploads,
                             "how many times the session uploaded rows to a device (0 on the CPU)")
      .def("rows_identity",
           [](TrainingSession& s, const CsrData& data, int threads) {
             py::gil_scoped_release release;
             return s.identities().identity_of(data.view(), threads);
           },
           py::arg("data"), py::arg("threads") = 1,
           "the identity train(session=...) gives these rows: the same for the same contents (offsets, indices, "
           "values, n_features), a new one after any change (snapml/impl/rows_identity.h)")
      .def("serves", [](const TrainingSession& s, bool use_gpu, const std::vector<int>& device_ids) {
        return s.solvers()->serves(use_gpu, device_ids);
      }, py::arg("use_gpu"), py::arg("device_ids"), "whether train() takes this session for these devices");
}

}  // namespace snapml::python
