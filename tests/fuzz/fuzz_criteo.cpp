// libFuzzer harness: the Criteo TSV reader as snap-train --format criteo reads a
// file (datasets::open), failing on the first bad line and skipping bad lines.
// Properties: every failure is a snapml::Error; accepted rows keep the solver's
// invariants; the result does not depend on the thread count.
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "snapml/datasets/format.h"

namespace {

snapml::datasets::OpenOptions options(bool skip_bad_lines, int threads) {
  snapml::datasets::OpenOptions options;
  options.format = snapml::datasets::DataFormat::Criteo;
  options.criteo.skip_bad_lines = skip_bad_lines;
  options.criteo.threads = threads;
  options.criteo.chunk_rows = 3;
  options.criteo.hash_bits = 8;  // collisions are likely: rows that add up buckets
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = snapml::fuzz::write_input(data, size);
  for (bool skip : {false, true}) {
    snapml::datasets::OpenedData one, three;
    const std::string one_error = snapml::fuzz::error_of([&] { one = snapml::datasets::open(path, options(skip, 1)); });
    const std::string three_error =
        snapml::fuzz::error_of([&] { three = snapml::datasets::open(path, options(skip, 3)); });
    snapml::fuzz::check_same_error(one_error, three_error);
    if (!one_error.empty()) continue;
    snapml::fuzz::check_dataset(one.dataset, true);
    snapml::fuzz::check(snapml::fuzz::same_dataset(one.dataset, three.dataset), "1 and 3 threads read different rows");
    snapml::fuzz::check(one.skipped_lines == three.skipped_lines, "1 and 3 threads skip differently");
  }
  return 0;
}
