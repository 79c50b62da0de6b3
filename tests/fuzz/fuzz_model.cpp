// libFuzzer harness for the model readers, built twice (CMakeLists.txt):
// fuzz_model_text reads snapml's own format (Model::load), fuzz_model_liblinear
// LIBLINEAR's (Model::load_liblinear); both are what snap-predict and
// snap_ml.load_model use. Properties: every failure is a snapml::Error; an
// accepted model is consistent and scores a row.
#include <cstdint>

#include "fuzz_input.h"
#include "model_probe.h"
#include "snapml/error.h"
#include "snapml/model.h"

#ifndef SNAPML_FUZZ_LIBLINEAR
#error "build with SNAPML_FUZZ_LIBLINEAR=0 (our format) or 1 (LIBLINEAR's)"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = snapml::fuzz::write_input(data, size);
  try {
    snapml::fuzz::probe_model(SNAPML_FUZZ_LIBLINEAR ? snapml::Model::load_liblinear(path) : snapml::Model::load(path));
  } catch (const snapml::Error&) {
  }
  return 0;
}
