// snap_ml._core: the compiled half of the snap_ml package. The Python modules in
// python/snap_ml/ validate input the scikit-learn way and call in here.
#include "bindings.h"
#include "snapml/threads.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "snapml's C++ core: SDCA training, models and dataset readers";
#ifdef SNAPML_WITH_CUDA
  m.attr("built_with_cuda") = true;
#else
  m.attr("built_with_cuda") = false;
#endif
  // What snap_ml/_openmp_wait.py sets GOMP_SPINCOUNT to (a test checks it equal).
  m.attr("openmp_spin_count") = snapml::kOpenMPSpinCount;
  snapml::python::bind_errors(m);
  snapml::python::bind_data(m);
  snapml::python::bind_model(m);
  snapml::python::bind_training(m);
  snapml::python::bind_datasets(m);
  snapml::python::bind_snap_file(m);
  snapml::python::bind_mpi(m);
  snapml::python::bind_features(m);
  snapml::python::bind_session(m);
}
