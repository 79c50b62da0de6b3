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
#include "snapml/output_path.h"

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


// The target's name in messages: as given, and where its links lead when elsewhere.
std::string named(const std::string& given, const std::string& resolved) {
  return resolved == given ? given : given + " (-> " + resolved + ")";
}

}  // namespace

void AtomicFile::remove_leftovers(const std::string& target) {
  const OutputTarget where = resolve_output(target);
  if (where.kind == OutputTarget::Kind::File) remove_stale_temporaries(where.path, host_name());
}

AtomicFile::AtomicFile(std::string target_path) : target_(std::move(target_path)) {
  const OutputTarget where = resolve_output(target_);
  resolved_ = where.path;
  switch (where.kind) {
    case OutputTarget::Kind::Directory:
      throw IoError("cannot write " + named(target_, resolved_) + ": it is a directory");
    case OutputTarget::Kind::Descriptor: {
      // What this process has already printed to the same descriptor goes first.
      std::fflush(nullptr);
      const int copy = ::fcntl(where.descriptor, F_DUPFD_CLOEXEC, 0);
      if (copy >= 0) file_ = ::fdopen(copy, "wb");  // "w" does not truncate through fdopen
      if (!file_) {
        const std::string reason = errno_message();
        if (copy >= 0) ::close(copy);
        throw IoError("cannot write " + target_ + " (descriptor " + std::to_string(where.descriptor) +
                      "): " + reason);
      }
      in_place_ = true;
      return;
    }
    case OutputTarget::Kind::Stream:
      file_ = std::fopen(resolved_.c_str(), "wb");
      if (!file_) throw IoError("cannot open " + named(target_, resolved_) + " for writing: " + errno_message());
      in_place_ = true;
      return;
    case OutputTarget::Kind::File:
      break;
  }
  const std::string host = host_name();
  remove_stale_temporaries(resolved_, host);
  std::string pattern = temporary_prefix(resolved_, host, static_cast<long>(::getpid())) + "XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0)
    throw IoError("cannot create a temporary file beside " + named(target_, resolved_) + ": " + errno_message());
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
  // mkstemp creates 0600: an existing file keeps its permissions, a new one
  // gets those a plain fopen would give it.
  struct stat existing {};
  mode_t mode = 0;
  if (::stat(resolved_.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::chmod(temporary_.c_str(), mode);
  if (std::rename(temporary_.c_str(), resolved_.c_str()) != 0)
    throw IoError("cannot rename " + temporary_ + " to " + named(target_, resolved_) + ": " + errno_message());
  committed_ = true;
  int dir = ::open(directory_of(resolved_).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace snapml
