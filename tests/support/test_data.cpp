#include "test_data.h"

#include <cstdlib>
#include <filesystem>
#include <random>

namespace fs = std::filesystem;

namespace snapml::testing {

std::string shared_data_dir() {
  if (const char* dir = std::getenv("SNAPML_DATA_DIR"); dir && *dir) return dir;
  if (const char* dir = std::getenv("SNAPML_DATA_DIR_DEFAULT"); dir && *dir) return dir;
  return "../shared/datasets";
}

std::string shared_dataset(const std::string& name) {
  fs::path p = fs::path(shared_data_dir()) / name;
  return fs::exists(p) ? p.string() : std::string();
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

namespace {
struct Scratch {
  fs::path path;
  Scratch() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("snapml-test-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};
}  // namespace

std::string scratch_dir() {
  static Scratch scratch;
  return scratch.path.string();
}

}  // namespace snapml::testing
