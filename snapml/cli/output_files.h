// Where snap-train and snap-predict write. Regular files are written atomically
// (snapml::AtomicFile: a temporary file renamed over the target). An existing
// device or pipe (/dev/stdout, /dev/null, a FIFO) must not be: the rename would
// replace the device node itself, which as root breaks it for every program on
// the machine. Those targets are written in place, as LIBLINEAR's predict does.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "snapml/atomic_file.h"

namespace snapml::cli {

// True when `path` exists and is not a regular file (a device, a pipe, a socket;
// a symbolic link counts as what it points to).
bool is_special_file(const std::string& path);

class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Throws IoError naming the file when the write fails.
  void write(const std::string& text);
  // Makes the output final (renames the temporary file, or flushes the device).
  void commit();

 private:
  std::string path_;
  std::unique_ptr<AtomicFile> atomic_;  // regular files
  std::FILE* direct_ = nullptr;         // devices and pipes
};

// For writers that go through AtomicFile inside the library (Model::save):
// throws InvalidArgument when `path` is a device or pipe, naming `what`.
void require_regular_output(const std::string& path, const std::string& what);

}  // namespace snapml::cli
