#include "fuzz_input.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace snapml::fuzz {

namespace {

std::string make_path() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/snapml-fuzz-" + std::to_string(::getpid());
  // Removed at exit; a crash leaves it behind, with the crashing input saved by
  // libFuzzer anyway.
  static const std::string for_exit = path;
  std::atexit([] { std::remove(for_exit.c_str()); });
  return path;
}

}  // namespace

const std::string& write_input(const std::uint8_t* data, std::size_t size) {
  static const std::string path = make_path();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  // Not the project's error type on purpose: the harness cannot go on without its
  // input, and an uncaught exception stops the fuzzer, which is what should happen.
  if (!out) throw std::runtime_error("cannot write the fuzz input to " + path);
  return path;
}

}  // namespace snapml::fuzz
