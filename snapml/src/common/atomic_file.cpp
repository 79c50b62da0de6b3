#include "snapml/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  std::string host(name);
  for (char& c : host)
    if (c == '/' || c == '-') c = '_';  // a path component, and '-' separates the fields
  return host;
}

// "TARGET.tmp-HOST-PID-": the prefix of this process's temporary files for TARGET.
std::string temporary_prefix(const std::string& target, const std::string& host, long pid) {
  return target + ".tmp-" + host + "-" + std::to_string(pid) + "-";
}

// Removes the temporary files of earlier writes of `target` whose writer is gone
// (killed by SIGKILL or a power cut before commit() or the destructor ran): those
// made on this host by a process id that no longer exists. A live writer's file,
// another host's (a shared file system) or one of an unknown form is left alone.
void remove_stale_temporaries(const std::string& target, const std::string& host) {
  const std::filesystem::path target_path(target);
  const std::string stem = target_path.filename().string() + ".tmp-" + host + "-";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory_of(target), error)) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, stem.size(), stem) != 0) continue;
    // The rest is PID-XXXXXX (mkstemp's six characters).
    const std::string rest = name.substr(stem.size());
    const std::size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.size() - dash - 1 != 6) continue;
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
    std::filesystem::remove(entry.path(), error);
  }
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
  const std::string host = host_name();
  remove_stale_temporaries(target_, host);
  std::string pattern = temporary_prefix(target_, host, static_cast<long>(::getpid())) + "XXXXXX";
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
