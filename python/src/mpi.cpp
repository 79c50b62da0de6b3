// MPI from Python, for `mpirun -n K python script.py`: one MpiSession and one
// MpiCommunicator per interpreter, created on first use (never at import, so a
// plain `python` run never touches MPI) and ended at process exit by
// end_mpi_at_exit, which knows the exit status: 0 finalises MPI; anything else
// (an uncaught exception, sys.exit(1)) calls MPI_Abort. Finalising there would
// hang: MPI_Finalize waits for every rank, and another rank may be waiting in a
// collective this one will never join (issue: a rank that raised outside fit left
// the job hanging). MPI_Abort ends every rank instead. A build without MPI (SNAPML_WITH_MPI undefined)
// keeps built_with_mpi = False and the functions below raise Unsupported.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstdio>
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

void finalise() {
  if (!session() && !world()) return;
  world().reset();
  session().reset();
  finalised_once = true;
}

// Runs after the interpreter has finalised, with exit()'s status.
void end_mpi_at_exit(int status, void*) {
  if (!session() && !world()) return;
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (finalised) return;
  if (status == 0) {
    finalise();
    return;
  }
  std::fflush(nullptr);
  std::fprintf(stderr, "snap_ml: rank %d: exiting with status %d; ending every rank (MPI_Abort)\n",
               world() ? world()->rank() : -1, status);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, status);
}

}  // namespace

Communicator& mpi_world() {
  if (!world()) {
    if (finalised_once) throw InvalidArgument("MPI was already finalised in this process; it cannot be restarted");
    if (!session()) {
      session() = std::make_unique<mpi::MpiSession>(nullptr, nullptr);
      // Registered after the session (a function-local static) was constructed, so
      // it runs before the static's destructor (glibc's on_exit: in reverse order).
      on_exit(end_mpi_at_exit, nullptr);
    }
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
  m.def("mpi_initialized", [] { return static_cast<bool>(world()); },
        "True once this process has initialised MPI (a distributed fit, mpi_rank, ...)");
  m.def("mpi_finalize", &finalise,
        "Frees the communicator and finalises MPI if this module initialised it (done at exit by itself)");
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
  m.def("mpi_initialized", [] { return false; });
  m.def("mpi_finalize", [] {});
}

#endif

}  // namespace snapml::python
