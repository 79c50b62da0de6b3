#include "snapml/output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "snapml/atomic_file.h"
#include "snapml/error.h"

namespace snapml {
namespace {

constexpr int kMaxLinks = 40;  // Linux's MAXSYMLINKS

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string leaf_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The real path of a directory, or "" when it cannot be resolved.
std::string real_directory(const std::string& directory) {
  char* real = ::realpath(directory.c_str(), nullptr);
  if (!real) return "";
  std::string result(real);
  std::free(real);
  return result;
}

bool all_digits(const std::string& text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

// When `path` is an entry of a process's descriptor table (/proc/PID/fd/N or
// /proc/PID/task/TID/fd/N, however reached: /dev/fd, /proc/self, a link to the
// directory), the process id, else -1; `fd` gets N. Those entries are magic links
// whose text ("pipe:[1234]", "/x (deleted)") is not a path to follow.
long descriptor_owner(const std::string& path, int& fd) {
  const std::string leaf = leaf_of(path);
  if (!all_digits(leaf)) return -1;
  const std::string directory = real_directory(parent_of(path));
  // "/proc/PID/fd" or "/proc/PID/task/TID/fd".
  const std::string prefix = "/proc/";
  if (directory.compare(0, prefix.size(), prefix) != 0 || directory.size() < 3 ||
      directory.compare(directory.size() - 3, 3, "/fd") != 0)
    return -1;
  const std::string middle = directory.substr(prefix.size(), directory.size() - prefix.size() - 3);
  const std::size_t slash = middle.find('/');
  const std::string pid = middle.substr(0, slash);
  if (!all_digits(pid)) return -1;
  if (slash != std::string::npos) {
    const std::string task = middle.substr(slash + 1);
    if (task.compare(0, 5, "task/") != 0 || !all_digits(task.substr(5))) return -1;
  }
  fd = std::atoi(leaf.c_str());
  return std::atol(pid.c_str());
}

void set_identity(OutputTarget& target, const struct stat& status) {
  target.device = status.st_dev;
  target.inode = status.st_ino;
}

}  // namespace

OutputTarget resolve_output(const std::string& given) {
  OutputTarget target;
  std::string path = given;
  for (int links = 0;; ++links) {
    if (links > kMaxLinks) throw IoError("cannot write " + given + ": too many levels of symbolic links");
    int fd = -1;
    const long owner = descriptor_owner(path, fd);
    struct stat status {};
    if (owner == static_cast<long>(::getpid())) {
      target.kind = OutputTarget::Kind::Descriptor;
      target.path = path;
      target.descriptor = fd;
      target.exists = ::fstat(fd, &status) == 0;
      if (target.exists) set_identity(target, status);
      return target;
    }
    if (owner >= 0) {
      // Another process's descriptor: opening the entry opens what it holds.
      target.kind = OutputTarget::Kind::Stream;
      target.path = path;
      target.exists = ::stat(path.c_str(), &status) == 0;
      if (target.exists) set_identity(target, status);
      return target;
    }
    if (::lstat(path.c_str(), &status) != 0) {
      // Missing (or unreachable: the write reports why): a file to create here.
      target.kind = OutputTarget::Kind::File;
      target.path = path;
      struct stat directory {};
      if (::stat(parent_of(path).c_str(), &directory) == 0) set_identity(target, directory);
      target.name = leaf_of(path);
      return target;
    }
    if (S_ISLNK(status.st_mode)) {
      std::vector<char> text(PATH_MAX + 1);
      const ssize_t length = ::readlink(path.c_str(), text.data(), PATH_MAX);
      if (length < 0) throw IoError("cannot read the link " + path + ": " + errno_message());
      const std::string next(text.data(), static_cast<std::size_t>(length));
      // A relative link is relative to the directory holding it. The text is
      // joined, never normalised: ".." then walks from the real directory, as
      // the kernel's resolution does.
      path = next.front() == '/' ? next : parent_of(path) + "/" + next;
      continue;
    }
    target.path = path;
    target.exists = true;
    if (::stat(path.c_str(), &status) != 0) throw IoError("cannot write " + given + ": " + errno_message());
    set_identity(target, status);
    if (S_ISREG(status.st_mode))
      target.kind = OutputTarget::Kind::File;
    else if (S_ISDIR(status.st_mode))
      target.kind = OutputTarget::Kind::Directory;
    else
      target.kind = OutputTarget::Kind::Stream;  // a device, FIFO, socket, another process's descriptor
    return target;
  }
}

OutputTarget resolve_input(const std::string& path) {
  OutputTarget target;
  target.path = path;
  struct stat status {};
  target.exists = ::stat(path.c_str(), &status) == 0;
  if (target.exists) {
    set_identity(target, status);
    target.kind = S_ISREG(status.st_mode)   ? OutputTarget::Kind::File
                  : S_ISDIR(status.st_mode) ? OutputTarget::Kind::Directory
                                            : OutputTarget::Kind::Stream;
  }
  return target;
}

}  // namespace snapml

namespace snapml {
namespace {

bool same_file(const OutputTarget& a, const OutputTarget& b) {
  // A file not yet created in a missing directory has no identity (inode 0).
  return a.inode != 0 && a.device == b.device && a.inode == b.inode && a.name == b.name;
}

// Only files are compared: a terminal or a pipe shared by two outputs (or an
// input and an output) loses nothing.
bool is_file(const OutputTarget& target) { return target.kind == OutputTarget::Kind::File; }

}  // namespace

void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  std::vector<OutputTarget> resolved;
  for (const NamedPath& output : outputs) resolved.push_back(resolve_output(output.path));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    const OutputTarget& target = resolved[i];
    if (!is_file(target)) continue;
    for (const NamedPath& input : inputs) {
      const OutputTarget read = resolve_input(input.path);
      require(!(read.exists && is_file(read) && same_file(target, read)),
              "the " + output.role + " " + output.path + " is the " + input.role + " " + input.path +
                  ": writing it would replace the " + input.role + "; give another path");
    }
    for (std::size_t k = 0; k < i; ++k)
      require(!(is_file(resolved[k]) && same_file(target, resolved[k])),
              "the " + output.role + " " + output.path + " is the " + outputs[k].role + " " + outputs[k].path +
                  "; give them different paths");
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    const OutputTarget& target = resolved[i];
    if (target.kind == OutputTarget::Kind::Directory)
      throw IoError("cannot write the " + output.role + " " + output.path + ": it is a directory");
    require(!output.file_only || target.kind == OutputTarget::Kind::File,
            "the " + output.role + " " + output.path + " must be a regular file (it is read back and removed), "
            "not a device, pipe or descriptor");
    // A descriptor, device or FIFO is written in place (a FIFO's open would wait
    // for a reader): not probed.
    if (target.kind == OutputTarget::Kind::File) AtomicFile probe(output.path);  // throws IoError; removed unwritten
  }
}

}  // namespace snapml
