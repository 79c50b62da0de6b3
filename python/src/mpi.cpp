// MPI from Python, for `mpirun -n K python script.py`: one MpiSession and one
// MpiCommunicator per interpreter, created on first use (never at import, so a
// plain `python` run never touches MPI) and ended by mpi_finalize(), which the
// package registers with atexit. A build without MPI (SNAPML_WITH_MPI undefined)
// keeps built_with_mpi = False and the functions below raise Unsupported.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "bindings.h"
#include "snapml/error.h"

#ifdef SNAPML_WITH_MPI
#include "snapml/mpi/mpi_communicator.h"
#endif

namespace py = pybind11;

namespace snapml::python {

#ifdef SNAPML_WITH_MPI
namespace {

std::unique_ptr<mpi::MpiSession>& session() {
  static std::unique_ptr<mpi::MpiSession> s;
  return s;
}
std::unique_ptr<mpi::MpiCommunicator>& world() {
  static std::unique_ptr<mpi::MpiCommunicator> c;
  return c;
}
bool finalised_once = false;

}  // namespace

Communicator& mpi_world() {
  if (!world()) {
    if (finalised_once) throw InvalidArgument("MPI was already finalised in this process; it cannot be restarted");
    if (!session()) session() = std::make_unique<mpi::MpiSession>(nullptr, nullptr);
    world() = std::make_unique<mpi::MpiCommunicator>(MPI_COMM_WORLD);
  }
  return *world();
}

void bind_mpi(py::module_& m) {
  m.attr("built_with_mpi") = true;
  m.def("launched_by_mpi", &mpi::launched_by_mpi,
        "True when this process was started by an MPI launcher (mpirun, srun, ...)");
  m.def("mpi_rank", [] { return mpi_world().rank(); }, "This process's rank (initialises MPI)");
  m.def("mpi_size", [] { return mpi_world().size(); }, "The number of ranks (initialises MPI)");
  m.def(
      "mpi_allreduce_max",
      [](std::int64_t value) {
        mpi_world().allreduce_max(&value, 1);
        return value;
      },
      "The maximum of an integer over all ranks", py::arg("value"));
  m.def(
      "mpi_broadcast_bytes",
      [](py::bytes data, int root) {
        Communicator& c = mpi_world();
        std::string text = c.rank() == root ? std::string(data) : std::string();
        auto length = static_cast<std::int64_t>(text.size());
        c.broadcast(&length, sizeof length, root);
        text.resize(static_cast<std::size_t>(length));
        if (length > 0) c.broadcast(text.data(), text.size(), root);
        return py::bytes(text);
      },
      "Rank root's bytes on every rank (the other ranks' argument is ignored)", py::arg("data"),
      py::arg("root"));
  m.def(
      "mpi_abort", [](const std::string& message) { mpi_world().abort(message); },
      "Prints message and ends every rank (MPI_Abort)", py::arg("message"));
  m.def(
      "mpi_finalize",
      [] {
        if (!session() && !world()) return;
        world().reset();
        session().reset();
        finalised_once = true;
      },
      "Frees the communicator and finalises MPI if this module initialised it");
}

#else

Communicator& mpi_world() {
  throw Unsupported("this build of snap_ml has no MPI (rebuild with -DSNAPML_MPI=ON where MPI is installed)");
}

void bind_mpi(py::module_& m) {
  m.attr("built_with_mpi") = false;
  m.def("launched_by_mpi", [] {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_NTASKS"})
      if (std::getenv(name)) return true;
    return false;
  });
  m.def("mpi_finalize", [] {});
}

#endif

}  // namespace snapml::python
