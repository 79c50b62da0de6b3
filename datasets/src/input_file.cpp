#include "snapml/datasets/input_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "snapml/error.h"
#include "snapml/feature_memory.h"
#include "snapml/impl/rank_agreement.h"

namespace snapml::datasets {

std::uint64_t InputFile::spool_budget() { return available_memory_bytes() / 2; }

InputFile::InputFile(const std::string& path, std::uint64_t max_memory) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw IoError("cannot open " + path + ": " + errno_message());
  try {
    struct stat info {};
    if (::fstat(fd_, &info) != 0) throw IoError("cannot stat " + path + ": " + errno_message());
    if (S_ISDIR(info.st_mode)) throw IoError("cannot read " + path + ": it is a directory");
    if (!S_ISREG(info.st_mode)) {
      spool(std::exchange(fd_, -1), max_memory > 0 ? max_memory : spool_budget(), max_memory > 0);
    } else {
      size_ = static_cast<std::uint64_t>(info.st_size);
    }
    head_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(size_, kHeadBytes)));
    // pread, not read: the position stays 0 for readers that read on (zlib).
    const ssize_t got = head_.empty() ? 0 : ::pread(fd_, head_.data(), head_.size(), 0);
    if (got < 0) throw IoError("cannot read " + path + ": " + errno_message());
    head_.resize(static_cast<std::size_t>(got));
  } catch (...) {
    if (fd_ >= 0) ::close(fd_);
    throw;
  }
}

// Copies the stream to its end into a memory file, which then stands for it.
// Holding the whole input in memory is what reading a stream costs anyway: the
// parsers need random access to cut it into per-thread line ranges. At most
// `limit` bytes (0: no bound); `given`: the limit is --max-memory's.
void InputFile::spool(int stream, std::uint64_t limit, bool given) {
  fd_ = ::memfd_create("snapml-input", MFD_CLOEXEC);
  if (fd_ < 0) {
    const std::string reason = errno_message();
    ::close(stream);
    throw IoError("cannot hold " + path_ + " in memory: " + reason);
  }
  spooled_ = true;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t got = ::read(stream, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const std::string reason = errno_message();
      ::close(stream);
      throw IoError("cannot read " + path_ + ": " + reason);
    }
    if (got == 0) break;
    if (limit > 0 && size_ + static_cast<std::uint64_t>(got) > limit) {
      ::close(stream);
      throw InputError(path_, 0, 0,
                       "this stream (a pipe, FIFO or device, held in memory to be read) passed " +
                           byte_size_text(limit) +
                           (given ? " of the memory budget (--max-memory)" : ", half the memory available") +
                           " before its end: write it to a file and pass the file" +
                           (given ? ", or raise --max-memory" : ""));
    }
    for (ssize_t written = 0; written < got;) {
      const ssize_t put = ::write(fd_, buffer.data() + written, static_cast<std::size_t>(got - written));
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) {
        const std::string reason = errno_message();
        ::close(stream);
        throw IoError("cannot hold " + path_ + " in memory: " + reason);
      }
      written += put;
    }
    size_ += static_cast<std::uint64_t>(got);
  }
  ::close(stream);
  if (::lseek(fd_, 0, SEEK_SET) != 0) throw IoError("cannot rewind the copy of " + path_ + ": " + errno_message());
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      spooled_(other.spooled_),
      head_(std::move(other.head_)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    spooled_ = other.spooled_;
    head_ = std::move(other.head_);
  }
  return *this;
}

bool InputFile::starts_with(const void* magic, std::size_t size) const {
  return head_.size() >= size && std::memcmp(head_.data(), magic, size) == 0;
}

int InputFile::release() { return std::exchange(fd_, -1); }

std::string InputFile::identity() const {
  constexpr std::uint64_t kEnd = 1 << 20;
  Checksum64 sum;
  std::vector<char> buffer(static_cast<std::size_t>(std::min(size_, kEnd)));
  for (const std::uint64_t at : {std::uint64_t{0}, size_ > kEnd ? size_ - kEnd : std::uint64_t{0}}) {
    std::size_t done = 0;
    while (done < buffer.size()) {
      const ssize_t got = ::pread(fd_, buffer.data() + done, buffer.size() - done, static_cast<off_t>(at + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw IoError("cannot read " + path_ + ": " + errno_message());
      done += static_cast<std::size_t>(got);
    }
    sum.add(buffer.data(), buffer.size());
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(sum.value()));
  return std::to_string(size_) + " bytes, ends " + hex;
}

}  // namespace snapml::datasets
