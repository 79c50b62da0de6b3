// Hands the GPU solver's session to the core's solver factory (snapml/solver_factory.h).
//
// This file is not part of the snapml_cuda archive: the INTERFACE target snapml_all
// lists it as a source, so it is compiled into every program that links snapml_all,
// and its initialiser runs before main(). (Inside a static archive nothing would
// reference it and the linker would drop it.) The core thus reaches the GPU solver
// without linking CUDA, and with no explicit set-up call in the CLI or Python module.
#include "snapml/cuda/sdca_gpu.h"
#include "snapml/solver_factory.h"

namespace {

[[maybe_unused]] const bool gpu_solver_registered = [] {
  snapml::register_gpu_session_factory(&snapml::cuda::make_sdca_gpu_session);
  return true;
}();

}  // namespace
