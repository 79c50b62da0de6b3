#include "output_files.h"

#include <sys/stat.h>

#include <optional>
#include <utility>

#include "snapml/atomic_file.h"
#include "snapml/error.h"

namespace snapml::cli {
namespace {

// The file's identity when it exists.
std::optional<std::pair<dev_t, ino_t>> identity(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return std::nullopt;
  return std::make_pair(status.st_dev, status.st_ino);
}

}  // namespace

void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    const auto id = identity(output.path);
    if (!id) continue;
    const auto same = [&](const NamedPath& other) { return identity(other.path) == id; };
    for (const NamedPath& input : inputs)
      require(!same(input), "the " + output.role + " " + output.path + " is the " + input.role + " " +
                                input.path + ": writing it would replace the data; give another path");
    for (std::size_t k = 0; k < i; ++k)
      require(!same(outputs[k]), "the " + output.role + " " + output.path + " is the " + outputs[k].role + " " +
                                     outputs[k].path + "; give them different paths");
  }
  for (const NamedPath& output : outputs) {
    struct stat status {};
    const bool exists = ::stat(output.path.c_str(), &status) == 0;
    if (exists && S_ISDIR(status.st_mode))
      throw IoError("cannot write the " + output.role + " " + output.path + ": it is a directory");
    if (exists && !S_ISREG(status.st_mode)) continue;  // a device or FIFO, written in place
    AtomicFile probe(output.path);                     // throws IoError; removed unwritten
  }
}

}  // namespace snapml::cli
