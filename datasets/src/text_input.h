// A whole input file as one contiguous, read-only byte range: the parsers cut it
// into line-aligned ranges for their threads, which needs random access.
//
// Read through an InputFile (input_file.h), so that the path is opened once and a
// pipe or FIFO arrives whole, already held in memory. A regular file is read into
// a buffer: a mapped file that another process truncates while it is parsed ends
// the process with SIGBUS at the first page past the new end, where a read just
// returns fewer bytes (docs/reliability.md has the copy's cost). A spooled stream
// lives in our own memory file, which nobody else can truncate, so it is mapped
// (no second copy). A gzip file (recognised by its magic bytes 1f 8b, whatever
// its name) is inflated into memory with zlib.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "snapml/datasets/input_file.h"

namespace snapml::datasets::detail {

class TextInput {
 public:
  // Throws IoError when the file cannot be opened or read, InputError when a
  // gzip stream is corrupt or truncated.
  explicit TextInput(const std::string& path) : TextInput(InputFile(path)) {}
  explicit TextInput(InputFile input);
  ~TextInput();
  TextInput(const TextInput&) = delete;
  TextInput& operator=(const TextInput&) = delete;

  const char* data() const { return mapped_ ? mapped_ : buffer_.data(); }
  std::size_t size() const { return mapped_ ? mapped_size_ : buffer_.size(); }
  bool compressed() const { return compressed_; }

 private:
  void read_whole(const InputFile& input);
  void read_through_zlib(int fd, const std::string& path);

  const char* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
  std::vector<char> buffer_;
  bool compressed_ = false;
};

}  // namespace snapml::datasets::detail
