// The pieces of the extension module snap_ml._core, one per concept; module.cpp
// calls each to register its part.
#pragma once

#include <pybind11/pybind11.h>

#include "snapml/communicator.h"

namespace snapml::python {

void bind_errors(pybind11::module_& m);    // errors.cpp: C++ exceptions -> Python
void bind_data(pybind11::module_& m);      // data.cpp: numpy/scipy CSR -> CsrView
void bind_training(pybind11::module_& m);  // training.cpp: train() without the GIL
void bind_model(pybind11::module_& m);     // model.cpp: Model, its files
void bind_datasets(pybind11::module_& m);  // datasets.cpp: svmlight and binary files
void bind_snap_file(pybind11::module_& m); // snap_file.cpp: a .snap file under a memory budget
void bind_mpi(pybind11::module_& m);       // mpi.cpp: MPI_COMM_WORLD for mpirun
void bind_features(pybind11::module_& m);  // features.cpp: random Fourier features
void bind_session(pybind11::module_& m);   // session.cpp: a session kept across fits

// mpi.cpp: the process's MpiCommunicator on MPI_COMM_WORLD, MPI initialised on
// first call; throws Unsupported in a build without MPI.
Communicator& mpi_world();

}  // namespace snapml::python
