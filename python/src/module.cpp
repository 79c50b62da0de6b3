// snap_ml._core: the compiled half of the snap_ml package. The Python modules in
// python/snap_ml/ validate input the scikit-learn way and call in here.
#include "bindings.h"
#include "snapml/threads.h"

// pybind11 learned NumPy 2's array layout in 2.12; an older one reads NumPy 2
// arrays wrong without an error (python/CMakeLists.txt says where it came from).
#if PYBIND11_VERSION_MAJOR < 2 || (PYBIND11_VERSION_MAJOR == 2 && PYBIND11_VERSION_MINOR < 12)
#error "snap_ml._core needs pybind11 >= 2.12 (NumPy 2 arrays): pip install 'pybind11>=2.12' and configure with -Dpybind11_DIR=$(python3 -m pybind11 --cmakedir)"
#endif

PYBIND11_MODULE(_core, m) {
  m.doc() = "snapml's C++ core: SDCA training, models and dataset readers";
#ifdef SNAPML_WITH_CUDA
  m.attr("built_with_cuda") = true;
#else
  m.attr("built_with_cuda") = false;
#endif
  // What snap_ml/_openmp_wait.py sets GOMP_SPINCOUNT to (a test checks it equal).
  m.attr("openmp_spin_count") = snapml::kOpenMPSpinCount;
  // The pybind11 this module was built with (a test checks it reads NumPy 2 arrays).
  m.attr("pybind11_version") = pybind11::make_tuple(PYBIND11_VERSION_MAJOR, PYBIND11_VERSION_MINOR);
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
