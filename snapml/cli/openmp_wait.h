// Each command-line tool's OpenMP threads sleep soon when idle: the first call of
// main() restarts the program with GOMP_SPINCOUNT = kOpenMPSpinCount
// (snapml/threads.h says why) unless the user has set it or OMP_WAIT_POLICY.
#pragma once

namespace snapml::cli {

// Returns only when the variable was already set (by the user, or by the first
// image of this program) or the restart failed.
void sleep_idle_openmp_threads(char** argv);

}  // namespace snapml::cli
