// The library's exceptions as Python ones: a bad argument or bad input is a
// ValueError (scikit-learn's convention), an I/O failure an OSError, a backend
// this build lacks (a GPU) a ValueError too, its message saying what to do; a
// diverged fit snap_ml.FitDivergedError.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "snapml/error.h"

namespace py = pybind11;

namespace snapml::python {

void bind_errors(py::module_& m) {
  // A fit whose certificate diverged returns no model: snap_ml.FitDivergedError, a
  // RuntimeError (scikit-learn's ConvergenceWarning stays for a fit that merely
  // ran out of max_iter while converging).
  // Registered first: pybind11 tries the translators last-registered first, and
  // the one below passes FitDiverged on.
  py::register_exception<FitDiverged>(m, "FitDivergedError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr failure) {
    try {
      if (failure) std::rethrow_exception(failure);
    } catch (const InvalidArgument& e) {
      // InputError escapes its own text; the others may carry a path or a value.
      PyErr_SetString(PyExc_ValueError, printable(e.what()).c_str());
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Unsupported& e) {
      PyErr_SetString(PyExc_ValueError, printable(e.what()).c_str());
    } catch (const IoError& e) {
      PyErr_SetString(PyExc_OSError, printable(e.what()).c_str());
    }
  });
  // Registered after the translator above, so tried before it: ranks that
  // disagree raise snap_ml.RanksDisagreeError, a ValueError, on every rank alike
  // (error.h), which _distributed.train lets through instead of ending the job.
  py::register_exception<RanksDisagree>(m, "RanksDisagreeError", PyExc_ValueError);
}

}  // namespace snapml::python
