// The one symbol the GPU backend plugin (libsnapml_gpu.so) exports: the core's
// loader (snapml/impl/gpu_backend.h) calls it to get the GPU solver's session factory
// and the random Fourier features.
// Everything else in the plugin, its copy of the core included, is hidden.
#include "snapml/cuda/gpu_session.h"
#include "snapml/cuda/random_features_gpu.h"
#include "snapml/impl/gpu_backend.h"

extern "C" __attribute__((visibility("default"))) void snapml_gpu_backend_v1(snapml::GpuBackend* backend) {
  backend->abi_size = sizeof(snapml::GpuBackend);
  backend->session = &snapml::cuda::make_gpu_session;
  backend->random_features = [](const snapml::CsrView& rows, const snapml::RandomFourierMap& map, float* out,
                                int device_id) { snapml::cuda::random_fourier_features(rows, map, out, device_id); };
  backend->build_id = snapml::build_id();  // this plugin's copy of the core's: the loader compares
}
