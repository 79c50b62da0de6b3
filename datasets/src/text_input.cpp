#include "text_input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

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

// Decompresses as gzip -d (zcat) does: members one after another, their texts
// concatenated (RFC 1952 2.2); after the last member only zero bytes may follow
// (tar-style padding, which gzip ignores too). Anything else there is an error:
// gzip exits 2 on it ("trailing garbage ignored"), and zlib's gzread dropped it
// without a word, so a file damaged after its first member trained on part of it.
void TextInput::read_through_zlib(int fd, const std::string& path) {
  struct Closer {
    int fd;
    z_stream* stream;
    ~Closer() {
      if (stream) ::inflateEnd(stream);
      ::close(fd);
    }
  };
  z_stream stream{};
  if (::inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {  // 16: a gzip header and trailer
    ::close(fd);
    throw std::bad_alloc();
  }
  Closer closer{fd, &stream};
  std::vector<unsigned char> in(1 << 18);
  std::uint64_t consumed = 0;    // compressed bytes before in[0]
  bool member_ended = false;     // between members (or after the last)
  bool trailing_zeros = false;   // only zero bytes since the last member ended
  std::uint64_t ended_at = 0;    // where the last member ended
  std::size_t used = 0;
  buffer_.resize(1 << 20);
  for (;;) {
    ssize_t got = ::read(fd, in.data(), in.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError("cannot read " + path + ": " + errno_message());
    if (got == 0) break;
    stream.next_in = in.data();
    stream.avail_in = static_cast<uInt>(got);
    while (stream.avail_in > 0) {
      const std::uint64_t at = consumed + static_cast<std::uint64_t>(stream.next_in - in.data());
      if (member_ended) {
        // A new member starts with the magic; zero padding is skipped.
        if (!trailing_zeros && stream.avail_in >= 1 && stream.next_in[0] == kGzipMagic[0] &&
            (stream.avail_in < 2 || stream.next_in[1] == kGzipMagic[1])) {
          ::inflateReset(&stream);
          member_ended = false;
        } else if (stream.next_in[0] == 0) {
          trailing_zeros = true;
          ++stream.next_in;
          --stream.avail_in;
          continue;
        } else {
          throw InputError(path, 0, 0,
                           "trailing data after the gzip stream at byte " + std::to_string(ended_at) +
                               " (at byte " + std::to_string(at) +
                               ": neither another gzip member nor zero padding): the file is damaged, as gzip -t " +
                               path + " says too");
        }
      }
      if (buffer_.size() - used < (1 << 19)) buffer_.resize(buffer_.size() * 2);
      stream.next_out = reinterpret_cast<Bytef*>(buffer_.data() + used);
      stream.avail_out = static_cast<uInt>(std::min<std::size_t>(buffer_.size() - used, 1u << 30));
      const uInt before = stream.avail_out;
      const int code = ::inflate(&stream, Z_NO_FLUSH);
      used += before - stream.avail_out;
      if (code == Z_STREAM_END) {
        member_ended = true;
        ended_at = consumed + static_cast<std::uint64_t>(stream.next_in - in.data());
      } else if (code == Z_MEM_ERROR) {
        throw std::bad_alloc();
      } else if (code != Z_OK && code != Z_BUF_ERROR) {
        throw InputError(path, 0, 0,
                         std::string("corrupt gzip stream near byte ") + std::to_string(at) + ": " +
                             (stream.msg ? stream.msg : "invalid data"));
      }
    }
    consumed += static_cast<std::uint64_t>(got);
  }
  if (!member_ended)
    throw InputError(path, 0, 0, "corrupt gzip stream: unexpected end of file (truncated after byte " +
                                     std::to_string(consumed) + ")");
  buffer_.resize(used);
}

TextInput::~TextInput() {
  if (mapped_) ::munmap(const_cast<char*>(mapped_), mapped_size_);
}

}  // namespace snapml::datasets::detail
