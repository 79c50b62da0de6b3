// A GPU plugin left from other sources: the entry point of libsnapml_gpu.so with
// another build id, for the loader's refusal (test_solver_factory.cpp). Built
// without CUDA, so the refusal is checked in every build.
#include <memory>
#include <vector>

#include "snapml/impl/gpu_backend.h"

namespace {

std::unique_ptr<snapml::SolverSession> no_session(const std::vector<int>&, int) { return nullptr; }

}  // namespace

extern "C" __attribute__((visibility("default"))) void snapml_gpu_backend_v1(snapml::GpuBackend* backend) {
  backend->abi_size = sizeof(snapml::GpuBackend);
  backend->session = &no_session;
  backend->build_id = "0123456789abcdef";
}
