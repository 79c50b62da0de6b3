// Shared by the fuzz harnesses (docs/reliability.md, "Fuzzers"): the fuzzer's
// bytes as a file, since the readers the tools use take a path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace snapml::fuzz {

// Writes `size` bytes to this process's input file (one per process, reused for
// every input, removed at exit) and returns its path. A harness reads it back
// through the same entry point as snap-train or the Python package, so the
// fuzzer drives the real path: open, sniff, map or inflate, parse.
const std::string& write_input(const std::uint8_t* data, std::size_t size);

}  // namespace snapml::fuzz
