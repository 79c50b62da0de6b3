#include "snapml/impl/gpu_backend.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>

#include "snapml/error.h"

namespace snapml {
namespace {

bool is_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The directory of the loaded object that holds this function: the executable
// for the CLI tools, _core.*.so for the Python package.
std::string own_directory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&gpu_backend_candidates), &info) == 0 || info.dli_fname == nullptr) return {};
  const std::string path = info.dli_fname;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

std::vector<std::string> gpu_backend_candidates() {
  std::vector<std::string> candidates;
  if (const char* explicit_path = std::getenv("SNAPML_GPU_BACKEND"); explicit_path != nullptr && *explicit_path)
    return {explicit_path};
  const std::string directory = own_directory();
  if (!directory.empty()) {
    candidates.push_back(directory + "/" + kGpuBackendFile);
    candidates.push_back(directory + "/../lib/" + kGpuBackendFile);
  }
#if defined(SNAPML_GPU_BACKEND_BUILD_PATH)
  candidates.push_back(SNAPML_GPU_BACKEND_BUILD_PATH);
#endif
  return candidates;
}

GpuBackend load_gpu_backend(const std::vector<std::string>& candidates) {
  for (const std::string& path : candidates) {
    if (!is_file(path)) continue;
    // RTLD_LOCAL: the plugin's hidden copy of the core must not serve this
    // program's symbols, nor the other way round.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = ::dlerror();
      throw Unsupported("snapml's GPU backend " + path + " cannot be loaded (" +
                        (reason ? reason : "unknown reason") +
                        "); are the CUDA libraries (libcudart, libcublas, libcusparse) installed on this machine?");
    }
    auto entry = reinterpret_cast<GpuBackendEntry>(::dlsym(handle, kGpuBackendEntry));
    if (entry == nullptr)
      throw Unsupported("snapml's GPU backend " + path + " has no entry point " + kGpuBackendEntry +
                        "; it is not a snapml GPU plugin, or comes from another version");
    GpuBackend backend;
    entry(&backend);
    const std::string plugin_id =
        backend.abi_size == sizeof(GpuBackend) && backend.build_id != nullptr ? backend.build_id : "none";
    if (backend.abi_size != sizeof(GpuBackend) || backend.session == nullptr || plugin_id != build_id())
      throw Unsupported("snapml's GPU backend " + path + " was built from other sources (build id " + plugin_id +
                        ") than this program (build id " + build_id() +
                        "); rebuild it with this program (cmake --build <build> --target snapml_gpu), or set "
                        "SNAPML_GPU_BACKEND to the plugin built with it");
    return backend;  // the handle stays open for the life of the process
  }
  std::string tried;
  for (const std::string& path : candidates) tried += (tried.empty() ? "" : ", ") + path;
  throw Unsupported("snapml's GPU backend (" + std::string(kGpuBackendFile) + ") was not found (looked for " +
                    (tried.empty() ? std::string("nothing") : tried) +
                    "); set SNAPML_GPU_BACKEND to its path, or reinstall snapml from a build with CUDA");
}

const GpuBackend& gpu_backend() {
#if defined(SNAPML_WITH_CUDA)
  static const GpuBackend backend = load_gpu_backend(gpu_backend_candidates());
  return backend;
#else
  throw Unsupported("this build of snapml has no CUDA backend; rebuild with -DSNAPML_CUDA=ON (nvcc on the PATH)");
#endif
}

}  // namespace snapml
