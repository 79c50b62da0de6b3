#include "output_files.h"

#include <sys/stat.h>

#include "snapml/error.h"

namespace snapml::cli {

bool is_special_file(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode);
}

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (is_special_file(path)) {
    direct_ = std::fopen(path.c_str(), "w");
    if (direct_ == nullptr) throw IoError("cannot open " + path + " for writing: " + errno_message());
  } else {
    atomic_ = std::make_unique<AtomicFile>(path);
  }
}

OutputFile::~OutputFile() {
  if (direct_ != nullptr) std::fclose(direct_);
}

void OutputFile::write(const std::string& text) {
  if (atomic_) {
    atomic_->write(text);
  } else if (std::fwrite(text.data(), 1, text.size(), direct_) != text.size()) {
    throw IoError("cannot write " + path_ + ": " + errno_message());
  }
}

void OutputFile::commit() {
  if (atomic_) {
    atomic_->commit();
    return;
  }
  const bool failed = std::fflush(direct_) != 0 || std::ferror(direct_) != 0;
  const int closed = std::fclose(direct_);
  direct_ = nullptr;
  if (failed || closed != 0) throw IoError("cannot write " + path_ + ": " + errno_message());
}

void require_regular_output(const std::string& path, const std::string& what) {
  require(!is_special_file(path), what + " " + path +
                                      " is not a regular file: it is written to a temporary file renamed over "
                                      "the target, which would replace the device or pipe; give a file path");
}

}  // namespace snapml::cli
