// The GPU backend as a plugin: the core finds and loads it the first time a GPU
// is asked for, so a program that trains on the CPU never loads the CUDA
// libraries (hundreds of megabytes to map: 0.1 s of start-up for every CLI call,
// and a CPU-only machine could not start the tools at all).
//
// The plugin (libsnapml_gpu.so, built from cuda/ when nvcc is found) carries its
// own copy of the core, hidden (linked with --exclude-libs), and exports one C
// function, kGpuBackendEntry, that fills a GpuBackend. The two copies share no
// state: what crosses is the session factory and, through it, objects with
// virtual interfaces (SolverSession, Solver, ChunkSource, Communicator) and
// standard-library containers, all compiled from the same headers. The plugin
// must therefore come from the same sources as the program: each carries
// build_id(), a digest of the core's and the plugin's sources taken when they are
// built (snapml/build_id.cmake), and the loader refuses a plugin whose id is not
// the program's, naming both (a plugin left from an earlier build, or an
// installed one of another version); `abi_size` catches a plugin older than the
// id.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "snapml/random_features.h"
#include "snapml/solver_factory.h"

namespace snapml {

// The digest of the sources this copy of the core was built from (16 hex digits).
const char* build_id();

struct GpuBackend {
  std::size_t abi_size = sizeof(GpuBackend);
  GpuSessionFactory session = nullptr;
  RandomFeaturesGpu random_features = nullptr;  // random_features.h, on one device
  const char* build_id = nullptr;  // the plugin's snapml::build_id()
};

// extern "C" void snapml_gpu_backend_v1(GpuBackend*), exported by the plugin.
inline constexpr const char* kGpuBackendEntry = "snapml_gpu_backend_v1";
using GpuBackendEntry = void (*)(GpuBackend*);
inline constexpr const char* kGpuBackendFile = "libsnapml_gpu.so";

// Where the plugin is looked for, in order: $SNAPML_GPU_BACKEND (a file path),
// the directory of the binary holding the core (the program, or the Python
// extension's _core module), that directory's ../lib, and the build tree's copy
// (a CUDA build only).
std::vector<std::string> gpu_backend_candidates();

// Loads the first candidate that exists. Throws Unsupported naming the paths
// tried when none exists, the file and the loader's reason when it cannot be
// loaded (most often: the CUDA libraries are not installed on this machine), or
// the file and both build ids when it was built from other sources.
// Every call loads again (dlopen counts references); the factory caches.
GpuBackend load_gpu_backend(const std::vector<std::string>& candidates);

// The plugin this process loaded from gpu_backend_candidates(), loaded on the
// first call and kept; a failed load throws (Unsupported, also in a build without
// CUDA) and is tried again on the next call.
const GpuBackend& gpu_backend();

}  // namespace snapml
