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
// must therefore come from the same build as the program; `abi_size` catches the
// grossest mismatch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "snapml/random_features.h"
#include "snapml/solver_factory.h"

namespace snapml {

struct GpuBackend {
  std::size_t abi_size = sizeof(GpuBackend);
  GpuSessionFactory session = nullptr;
  RandomFeaturesGpu random_features = nullptr;  // random_features.h, on one device
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
// tried when none exists, or the file and the loader's reason when it cannot be
// loaded (most often: the CUDA libraries are not installed on this machine).
// Every call loads again (dlopen counts references); the factory caches.
GpuBackend load_gpu_backend(const std::vector<std::string>& candidates);

// The plugin this process loaded from gpu_backend_candidates(), loaded on the
// first call and kept; a failed load throws (Unsupported, also in a build without
// CUDA) and is tried again on the next call.
const GpuBackend& gpu_backend();

}  // namespace snapml
