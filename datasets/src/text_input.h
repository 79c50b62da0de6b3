// A whole input file as one contiguous, read-only byte range: the parsers cut it
// into line-aligned ranges for their threads, which needs random access.
//
// Read through an InputFile (input_file.h), so that the path is opened once and a
// pipe or FIFO arrives whole, already held in memory. The file is memory-mapped
// (no copy); a gzip file (recognised by its magic bytes 1f 8b, whatever its name)
// is inflated into memory with zlib.
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
  void read_through_zlib(int fd, const std::string& path);

  const char* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
  std::vector<char> buffer_;
  bool compressed_ = false;
};

}  // namespace snapml::datasets::detail
