#include "text_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <string>

#include "snapml/error.h"

namespace snapml::datasets::detail {

namespace {

// Closes a descriptor on every exit path until released.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

bool starts_with_gzip_magic(int fd) {
  unsigned char magic[2] = {0, 0};
  return ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace

TextInput::TextInput(const std::string& path) {
  FdGuard guard{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (guard.fd < 0) throw IoError("cannot open " + path + ": " + errno_message());
  struct stat info {};
  if (::fstat(guard.fd, &info) != 0) throw IoError("cannot stat " + path + ": " + errno_message());
  if (S_ISDIR(info.st_mode)) throw IoError("cannot read " + path + ": it is a directory");

  if (S_ISREG(info.st_mode) && !starts_with_gzip_magic(guard.fd)) {
    mapped_size_ = static_cast<std::size_t>(info.st_size);
    if (mapped_size_ == 0) return;  // mmap refuses length 0; an empty buffer serves
    // The whole file is parsed at once, by threads working on different parts:
    // populating the map up front replaces one page fault per 4 KiB.
    void* map = ::mmap(nullptr, mapped_size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, guard.fd, 0);
    if (map == MAP_FAILED) throw IoError("cannot map " + path + ": " + errno_message());
    mapped_ = static_cast<const char*>(map);
    return;
  }
  // gzread passes non-gzip data through unchanged, so pipes take this path too.
  compressed_ = S_ISREG(info.st_mode);
  read_through_zlib(guard.release(), path);
}

void TextInput::read_through_zlib(int fd, const std::string& path) {
  gzFile gz = ::gzdopen(fd, "rb");
  if (!gz) {
    ::close(fd);
    throw IoError("cannot open " + path + " through zlib");
  }
  ::gzbuffer(gz, 1 << 18);
  std::size_t used = 0;
  buffer_.resize(1 << 20);
  for (;;) {
    if (buffer_.size() - used < (1 << 19)) buffer_.resize(buffer_.size() * 2);
    // gzread takes an unsigned count; read at most 1 GiB a call.
    unsigned want = static_cast<unsigned>(std::min<std::size_t>(buffer_.size() - used, 1u << 30));
    int got = ::gzread(gz, buffer_.data() + used, want);
    if (got < 0) {
      int code = 0;
      std::string why = ::gzerror(gz, &code);
      ::gzclose(gz);
      if (code == Z_ERRNO) throw IoError("cannot read " + path + ": " + errno_message());
      throw InputError(path, 0, 0, "corrupt gzip stream: " + why);
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  // A truncated stream ends with a short read and the error set, not a -1.
  int code = 0;
  std::string why = ::gzerror(gz, &code);
  ::gzclose(gz);
  if (code != Z_OK) throw InputError(path, 0, 0, "corrupt gzip stream: " + why);
  buffer_.resize(used);
}

TextInput::~TextInput() {
  if (mapped_) ::munmap(const_cast<char*>(mapped_), mapped_size_);
}

}  // namespace snapml::datasets::detail
