#include "snapml/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "snapml/error.h"

namespace snapml {

namespace {
std::string directory_of(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}
}  // namespace

AtomicFile::AtomicFile(std::string target_path) : target_(std::move(target_path)) {
  struct stat status {};
  if (::stat(target_.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
    file_ = std::fopen(target_.c_str(), "wb");
    if (!file_) throw IoError("cannot open " + target_ + " for writing: " + errno_message());
    in_place_ = true;
    return;
  }
  std::string pattern = target_ + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw IoError("cannot create a temporary file beside " + target_ + ": " + errno_message());
  temporary_ = name.data();
  file_ = fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    std::remove(temporary_.c_str());
    throw IoError("cannot open " + temporary_ + ": " + errno_message());
  }
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_ && !in_place_) std::remove(temporary_.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes)
    throw IoError("cannot write " + target_ + ": " + errno_message());
}

void AtomicFile::commit() {
  if (std::fflush(file_) != 0 || std::ferror(file_))
    throw IoError("cannot write " + target_ + ": " + errno_message());
  if (in_place_) {
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0) throw IoError("cannot write " + target_ + ": " + errno_message());
    committed_ = true;
    return;
  }
  if (::fsync(fileno(file_)) != 0) throw IoError("cannot sync " + target_ + ": " + errno_message());
  int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) throw IoError("cannot close " + target_ + ": " + errno_message());
  // mkstemp creates 0600; give the file the permissions a plain fopen would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(temporary_.c_str(), 0666 & ~mask);
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0)
    throw IoError("cannot rename " + temporary_ + " to " + target_ + ": " + errno_message());
  committed_ = true;
  int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace snapml
