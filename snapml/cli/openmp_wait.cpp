#include "openmp_wait.h"

#include <unistd.h>

#include <cstdlib>
#include <initializer_list>

#include "snapml/threads.h"

namespace snapml::cli {

// libgomp reads GOMP_SPINCOUNT and OMP_WAIT_POLICY once, in its constructor, which
// runs before main(); an executable's .preinit_array runs earlier but glibc resets
// the environment from the process's initial stack after it, so a variable set
// there is lost. Hence a new image of this program with the variable set: one
// exec, about a millisecond (docs/benchmarks/startup.md). The process keeps its
// id, arguments, descriptors and the rest of its environment (mpirun's included).
//
// Not where the user binds threads (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY):
// libgomp's constructor then binds the initial thread to the first place, and
// exec keeps that CPU mask, so the new image saw one CPU (OMP_PLACES '{0}') and
// bound every thread to it: on the 16-core device machine `OMP_PROC_BIND=close
// OMP_PLACES=cores snap-train -n 16` ran its 16 threads on one core (device run
// of 2026-11-27, docs/benchmarks/threads.md, "16 cores"). Binding is for cores
// the job owns, where spinning costs nothing.
void sleep_idle_openmp_threads(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  for (const char* binding : {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"})
    if (std::getenv(binding) != nullptr) return;
  if (setenv("GOMP_SPINCOUNT", kOpenMPSpinCount, 1) != 0) return;
  execv("/proc/self/exe", argv);
  // No /proc (or no exec): go on with libgomp's default; the variable is set
  // for any child, which is harmless.
}

}  // namespace snapml::cli
