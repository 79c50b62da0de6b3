#include "openmp_wait.h"

#include <unistd.h>

#include <cstdlib>

#include "snapml/threads.h"

namespace snapml::cli {

// libgomp reads GOMP_SPINCOUNT and OMP_WAIT_POLICY once, in its constructor, which
// runs before main(); an executable's .preinit_array runs earlier but glibc resets
// the environment from the process's initial stack after it, so a variable set
// there is lost. Hence a new image of this program with the variable set: one
// exec, about a millisecond (docs/benchmarks/startup.md). The process keeps its
// id, arguments, descriptors and the rest of its environment (mpirun's included).
void sleep_idle_openmp_threads(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  if (setenv("GOMP_SPINCOUNT", kOpenMPSpinCount, 1) != 0) return;
  execv("/proc/self/exe", argv);
  // No /proc (or no exec): go on with libgomp's default; the variable is set
  // for any child, which is harmless.
}

}  // namespace snapml::cli
