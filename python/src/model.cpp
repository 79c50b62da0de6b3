// snapml::Model in Python: its fields as numpy arrays, its two file formats
// (ours and LIBLINEAR's) and its predictions on a CsrData.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "data.h"
#include "snapml/error.h"
#include "snapml/model.h"

namespace py = pybind11;

namespace snapml::python {
namespace {

py::array_t<double> to_numpy(const std::vector<double>& values) {
  py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

std::vector<double> from_numpy(const Array<double>& array) {
  return std::vector<double>(array.data(), array.data() + array.size());
}

py::array_t<double> coef_array(const Model& model) {
  py::array_t<double> out({static_cast<py::ssize_t>(model.n_outputs()),
                           static_cast<py::ssize_t>(model.n_features)});
  std::copy(model.coef.begin(), model.coef.end(), out.mutable_data());
  return out;
}

// Runs `score(view, out)` without the GIL into a fresh rows x width array.
template <typename Score>
py::array_t<double> scores(const CsrData& x, py::ssize_t width, Score score) {
  py::array_t<double> out({static_cast<py::ssize_t>(x.view().n_rows), width});
  double* destination = out.mutable_data();
  {
    py::gil_scoped_release release;
    score(x.view(), destination);
  }
  return out;
}

}  // namespace

void bind_model(py::module_& m) {
  // The core's list of losses (snapml/losses/dispatch.h, AllLosses): Python reads
  // the names and traits from here instead of keeping its own list.
  m.def("loss_names", &loss_names, "the names of the core's losses, in the order of its list");
  m.def(
      "loss_traits",
      [](const std::string& name) {
        const LossKind kind = loss_from_name(name);
        py::dict traits;
        traits["classification"] = is_classification(kind);
        traits["probabilities"] = loss_has_probabilities(kind);
        return traits;
      },
      py::arg("name"), "a loss's traits: classification (labels are classes), probabilities (predict_proba)");
  py::class_<Model>(m, "Model", "A trained linear model of the C++ core")
      .def(py::init<>())
      .def_property(
          "loss", [](const Model& model) { return std::string(loss_name(model.loss)); },
          [](Model& model, const std::string& name) { model.loss = loss_from_name(name); })
      .def_property(
          "classes", [](const Model& model) { return to_numpy(model.classes); },
          [](Model& model, const Array<double>& values) { model.classes = from_numpy(values); })
      .def_readwrite("n_features", &Model::n_features)
      .def_property("coef", &coef_array,
                    [](Model& model, const Array<double>& values) {
                      model.coef = std::vector<double>(values.data(), values.data() + values.size());
                    })
      .def_property(
          "intercept", [](const Model& model) { return to_numpy(model.intercept); },
          [](Model& model, const Array<double>& values) { model.intercept = from_numpy(values); })
      .def_readwrite("intercept_scaling", &Model::intercept_scaling)
      .def_readwrite("C", &Model::C)
      .def_readwrite("tol", &Model::tol)
      .def_readwrite("epsilon", &Model::epsilon)
      .def_readwrite("max_iter", &Model::max_iter)
      .def_property(
          "class_weight", [](const Model& model) { return to_numpy(model.class_weight); },
          [](Model& model, const Array<double>& values) { model.class_weight = from_numpy(values); })
      .def_property_readonly("n_outputs", &Model::n_outputs)
      .def("check", &Model::check, "Raises ValueError when the fields disagree in size")
      .def("save", &Model::save, py::arg("path"), py::call_guard<py::gil_scoped_release>(),
           "Writes the model in snapml's text format, atomically")
      .def_static("load", &Model::load, py::arg("path"), py::call_guard<py::gil_scoped_release>(),
                  "Reads a model in snapml's text format")
      .def("save_liblinear", &Model::save_liblinear, py::arg("path"), py::arg("primal_solver") = false,
           py::call_guard<py::gil_scoped_release>(),
           "Writes LIBLINEAR's text model format (primal_solver: named by LIBLINEAR's primal solver_type)")
      .def_static("load_liblinear", &Model::load_liblinear, py::arg("path"),
                  py::call_guard<py::gil_scoped_release>(), "Reads LIBLINEAR's text model format")
      .def(
          "decision_function",
          [](const Model& model, const CsrData& x, int threads) {
            return scores(x, model.n_outputs(), [&](const CsrView& view, double* out) {
              model.decision_function(view, out, threads);
            });
          },
          py::arg("x"), py::arg("threads") = 0)
      .def(
          "predict",
          [](const Model& model, const CsrData& x, int threads) {
            return scores(x, 1, [&](const CsrView& view, double* out) {
              model.predict(view, out, threads);
            });
          },
          py::arg("x"), py::arg("threads") = 0)
      .def(
          "predict_proba",
          [](const Model& model, const CsrData& x, int threads) {
            require(loss_has_probabilities(model.loss),
                    "predict_proba needs a logistic model; this one was trained with the " +
                        std::string(loss_name(model.loss)) + " loss");
            return scores(x, static_cast<py::ssize_t>(model.classes.size()),
                          [&](const CsrView& view, double* out) {
                            model.predict_proba(view, out, threads);
                          });
          },
          py::arg("x"), py::arg("threads") = 0);
}

}  // namespace snapml::python
