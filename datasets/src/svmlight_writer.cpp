// svmlight / libsvm text writer.
//
// Numbers are written in their shortest round-trip form (std::to_chars without a
// precision): a value reads back as the same float and a label as the same
// double, so write -> read is exact, and the files stay as small as the data
// allows. The file appears atomically through snapml::AtomicFile.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "snapml/atomic_file.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"

namespace snapml::datasets {

namespace {

// Text is built in a buffer and handed to the file in large writes.
class LineBuffer {
 public:
  explicit LineBuffer(AtomicFile& file) : file_(file), buffer_(kCapacity) {}

  // Makes room for one field of at most kMaxField characters.
  char* reserve() {
    if (kCapacity - used_ < kMaxField) flush();
    return buffer_.data() + used_;
  }
  void commit(char* end) { used_ = static_cast<std::size_t>(end - buffer_.data()); }
  void flush() {
    file_.write(buffer_.data(), used_);
    used_ = 0;
  }

  // Longest field: ' ' + int64 index (20) + ':' + shortest float (at most 15) or
  // a shortest double label (at most 24), with margin.
  static constexpr std::size_t kMaxField = 64;

 private:
  static constexpr std::size_t kCapacity = 1 << 20;
  AtomicFile& file_;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
};

}  // namespace

void write_svmlight(const Dataset& data, const std::string& path, bool zero_based) {
  AtomicFile file(path);
  LineBuffer out(file);
  const std::int64_t shift = zero_based ? 0 : 1;
  for (const CsrChunk& chunk : data.chunks()) {
    for (std::int64_t row = 0; row < chunk.n_rows(); ++row) {
      const std::int64_t global_row = chunk.first_row + row;
      const double label = chunk.labels[static_cast<std::size_t>(row)];
      require(std::isfinite(label),
              "cannot write row " + std::to_string(global_row) + " to " + path + ": its label is NaN or infinite");
      char* p = out.reserve();
      p = std::to_chars(p, p + LineBuffer::kMaxField, label).ptr;
      out.commit(p);
      for (std::int64_t k = chunk.row_offsets[static_cast<std::size_t>(row)];
           k < chunk.row_offsets[static_cast<std::size_t>(row) + 1]; ++k) {
        const float value = chunk.values[static_cast<std::size_t>(k)];
        const std::int32_t column = chunk.col_indices[static_cast<std::size_t>(k)];
        require(std::isfinite(value), "cannot write row " + std::to_string(global_row) + " to " + path +
                                          ": the value of column " + std::to_string(column) +
                                          " is NaN or infinite");
        require(column >= 0, "cannot write row " + std::to_string(global_row) + " to " + path +
                                 ": negative column index " + std::to_string(column));
        p = out.reserve();
        char* limit = p + LineBuffer::kMaxField;
        *p++ = ' ';
        p = std::to_chars(p, limit, column + shift).ptr;
        *p++ = ':';
        p = std::to_chars(p, limit, value).ptr;
        out.commit(p);
      }
      p = out.reserve();
      *p++ = '\n';
      out.commit(p);
    }
  }
  out.flush();
  file.commit();
}

}  // namespace snapml::datasets
