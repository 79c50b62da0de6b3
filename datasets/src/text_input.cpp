#include "text_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "snapml/error.h"

namespace snapml::datasets::detail {

namespace {

constexpr unsigned char kGzipMagic[2] = {0x1f, 0x8b};

}  // namespace

TextInput::TextInput(InputFile input) {
  if (!input.starts_with(kGzipMagic, sizeof kGzipMagic)) {
    if (!input.spooled()) {
      read_whole(input);
      return;
    }
    mapped_size_ = static_cast<std::size_t>(input.size());
    if (mapped_size_ == 0) return;  // mmap refuses length 0; an empty buffer serves
    // The whole file is parsed at once, by threads working on different parts:
    // populating the map up front replaces one page fault per 4 KiB.
    void* map = ::mmap(nullptr, mapped_size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, input.fd(), 0);
    if (map == MAP_FAILED) throw IoError("cannot map " + input.path() + ": " + errno_message());
    mapped_ = static_cast<const char*>(map);
    return;
  }
  compressed_ = true;
  const std::string path = input.path();
  read_through_zlib(input.release(), path);
}

void TextInput::read_whole(const InputFile& input) {
  buffer_.resize(static_cast<std::size_t>(input.size()));
  std::size_t used = 0;
  while (used < buffer_.size()) {
    // pread takes at most 2 GiB - 4 KiB a call on Linux; ask for 1 GiB.
    const ssize_t got = ::pread(input.fd(), buffer_.data() + used, std::min<std::size_t>(buffer_.size() - used, 1u << 30),
                                static_cast<off_t>(used));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError("cannot read " + input.path() + ": " + errno_message());
    if (got == 0) break;  // truncated since it was opened: parse what it still holds
    used += static_cast<std::size_t>(got);
  }
  buffer_.resize(used);
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
