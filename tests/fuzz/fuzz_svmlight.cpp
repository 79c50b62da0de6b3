// libFuzzer harness: the svmlight/libsvm reader as snap-train reads a file
// (datasets::open, plain or gzip). Properties: every failure is a snapml::Error;
// what is accepted keeps the invariants a solver relies on; the result, chunking
// and errors included, does not depend on the thread count (svmlight.h).
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "snapml/datasets/format.h"

namespace {

snapml::datasets::OpenOptions options(int threads) {
  snapml::datasets::OpenOptions options;
  options.format = snapml::datasets::DataFormat::Svmlight;
  options.svmlight.threads = threads;
  options.svmlight.chunk_rows = 3;  // several chunks from a small input
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = snapml::fuzz::write_input(data, size);
  snapml::Dataset one, three;
  const std::string one_error = snapml::fuzz::error_of([&] { one = snapml::datasets::open(path, options(1)).dataset; });
  const std::string three_error =
      snapml::fuzz::error_of([&] { three = snapml::datasets::open(path, options(3)).dataset; });
  snapml::fuzz::check_same_error(one_error, three_error);
  if (one_error.empty()) {
    snapml::fuzz::check_dataset(one, true);
    snapml::fuzz::check(snapml::fuzz::same_dataset(one, three), "1 and 3 threads read different rows");
  }
  return 0;
}
