// The pread-based streamed reader of the binary chunked format
// (streamed_binary_source.h). It validates the file with the same functions as
// the memory-mapped reader (binary_format.h), so both refuse the same files.
#include "snapml/datasets/streamed_binary_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "snapml/error.h"

namespace snapml::datasets {
namespace {

// Reads exactly `size` bytes at `offset`; returns the count read, short only at
// the end of the file. Throws IoError with `what` on a read error.
std::uint64_t pread_fully(int fd, unsigned char* into, std::uint64_t size, std::uint64_t offset,
                          const std::string& what) {
  std::uint64_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, into + done, static_cast<std::size_t>(size - done),
                                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw IoError("cannot read " + what + ": " + errno_message());
    }
    if (got == 0) break;
    done += static_cast<std::uint64_t>(got);
  }
  return done;
}

// Closes a descriptor on every path out of a function.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

int open_regular(const std::string& path, std::uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError("cannot open " + path + ": " + errno_message());
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const std::string reason = S_ISREG(info.st_mode) ? errno_message() : "not a regular file";
    ::close(fd);
    throw IoError("cannot read " + path + ": " + reason);
  }
  size = static_cast<std::uint64_t>(info.st_size);
  return fd;
}

}  // namespace

std::uint64_t BinaryFileLayout::chunk_bytes(std::size_t i) const {
  const BinaryChunkEntry& e = table.at(i);
  return binary_chunk_bytes(static_cast<std::uint64_t>(e.n_rows), static_cast<std::uint64_t>(e.nnz), has_weights());
}

std::uint64_t BinaryFileLayout::largest_chunk_bytes() const {
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < table.size(); ++i) largest = std::max(largest, chunk_bytes(i));
  return largest;
}

std::uint64_t BinaryFileLayout::data_bytes() const {
  if (first_chunk == 0 && table.size() == static_cast<std::size_t>(header.n_chunks)) return header.file_size;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < table.size(); ++i) bytes += chunk_bytes(i);
  return bytes;
}

BinaryFileLayout read_binary_layout(const std::string& path) {
  BinaryFileLayout layout;
  layout.path = path;
  std::uint64_t actual_size = 0;
  FileDescriptor file{open_regular(path, actual_size)};
  const std::uint64_t got = pread_fully(file.fd, reinterpret_cast<unsigned char*>(&layout.header),
                                        sizeof(BinaryHeader), 0, path);
  if (got < sizeof(BinaryHeader)) {
    // As the mapped reader: tell a foreign file (bad magic) from a truncated one.
    if (got >= sizeof kBinaryMagic && std::memcmp(layout.header.magic, kBinaryMagic, sizeof kBinaryMagic) != 0)
      throw InputError(path, 0, 0, "not a snapml binary file (bad magic; expected \"SNAPBIN\" at byte 0)");
    throw InputError(path, 0, 0,
                     "truncated: expected a header of " + std::to_string(sizeof(BinaryHeader)) + " bytes, found " +
                         std::to_string(actual_size) + " (an interrupted copy or write?)");
  }
  check_binary_header(path, layout.header, actual_size);
  // check_binary_header bounded n_chunks by the file size, so the table fits.
  const std::uint64_t table_size = static_cast<std::uint64_t>(layout.header.n_chunks) * sizeof(BinaryChunkEntry);
  std::vector<unsigned char> table(table_size);
  if (pread_fully(file.fd, table.data(), table_size, sizeof(BinaryHeader), path) != table_size)
    throw InputError(path, 0, 0, "truncated while reading the chunk table");
  layout.table = check_binary_table(path, layout.header, table.data());
  return layout;
}

BinaryFileLayout read_binary_layout(const InputFile& input) {
  require(!input.spooled(), "cannot stream " + input.path() +
                                " from disk: it is a pipe or FIFO, read into memory whole; pass a regular file");
  return read_binary_layout(input.path());
}

StreamedBinarySource::StreamedBinarySource(const std::string& path, std::size_t buffers)
    : StreamedBinarySource(read_binary_layout(path), buffers) {}

StreamedBinarySource::StreamedBinarySource(BinaryFileLayout layout, std::size_t buffers) : layout_(std::move(layout)) {
  require(buffers >= 2, "a streamed source needs at least 2 buffers (one read while the other is used), got " +
                            std::to_string(buffers));
  slot_words_ = static_cast<std::size_t>((layout_.largest_chunk_bytes() + 7) / 8);
  checksummed_.assign(layout_.table.size(), 0);
  slots_.resize(buffers);
  // new T[n] without () leaves the words untouched: a buffer's pages join the
  // resident set when a chunk is read into them, never for a larger ring than used.
  for (Slot& slot : slots_) slot.words.reset(new std::uint64_t[std::max<std::size_t>(slot_words_, 1)]);
  std::uint64_t actual_size = 0;
  fd_ = open_regular(layout_.path, actual_size);
  if (actual_size != layout_.header.file_size) {
    ::close(fd_);
    throw InputError(layout_.path, 0, 0,
                     "the file changed while it was opened: " + std::to_string(actual_size) + " bytes, the header says " +
                         std::to_string(layout_.header.file_size));
  }
  // Advice only: a larger kernel read-ahead window for a file read front to back.
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  start_reader();
}

StreamedBinarySource::~StreamedBinarySource() {
  stop_reader();
  ::close(fd_);
}

void StreamedBinarySource::start_reader() {
  if (layout_.table.empty()) return;
  reader_ = std::thread([this] { read_ahead(); });
}

void StreamedBinarySource::stop_reader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (reader_.joinable()) reader_.join();
  stop_ = false;
  head_ = 0;
  filled_ = 0;
  held_ = 0;
  error_ = nullptr;
  position_ = 0;
}

void StreamedBinarySource::read_chunk(std::size_t index, unsigned char* into) const {
  const BinaryChunkEntry& e = layout_.table[index];
  const std::uint64_t size = layout_.chunk_bytes(index);
  const std::size_t in_file = layout_.first_chunk + index;  // the name messages use
  const std::string what = layout_.path + " (chunk " + std::to_string(in_file) + ")";
  const std::uint64_t got = pread_fully(fd_, into, size, e.offset, what);
  if (got != size)
    throw InputError(layout_.path, 0, 0,
                     "chunk " + std::to_string(in_file) + " truncated: expected " + std::to_string(size) +
                         " bytes at byte " + std::to_string(e.offset) + ", found " + std::to_string(got) +
                         " (the file was cut short after it was opened)");
  verify_binary_chunk(layout_.path, in_file, e, n_features(), layout_.has_weights(), into, !checksummed_[index]);
  checksummed_[index] = 1;
}

void StreamedBinarySource::read_ahead() {
  const std::size_t n = layout_.table.size();
  for (std::size_t k = 0;; k = (k + 1) % n) {
    const std::size_t chunk = order_.empty() ? k : order_[k];
    std::size_t slot = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || filled_ + held_ < slots_.size(); });
      if (stop_) return;
      slot = (head_ + held_ + filled_) % slots_.size();
    }
    // The slot is neither filled nor held: the consumer does not look at it.
    try {
      read_chunk(chunk, reinterpret_cast<unsigned char*>(slots_[slot].words.get()));
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
      }
      changed_.notify_all();
      return;
    }
    slots_[slot].chunk = chunk;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++filled_;
    }
    changed_.notify_all();
  }
}

bool StreamedBinarySource::next(CsrView& chunk) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (held_ >= hold_) {  // give up the oldest views: their slots are the reader's again
    const std::size_t released = held_ - hold_ + 1;
    held_ -= released;
    head_ = (head_ + released) % slots_.size();
    changed_.notify_all();
  }
  if (position_ >= layout_.table.size()) return false;
  changed_.wait(lock, [&] { return filled_ > 0 || error_ != nullptr; });
  // Chunks read before a failure are good: hand them out first, so that the
  // error surfaces at the chunk it concerns.
  if (filled_ == 0) std::rethrow_exception(error_);
  --filled_;
  const Slot& slot = slots_[(head_ + held_) % slots_.size()];
  ++held_;
  chunk = binary_chunk_view(layout_.table[slot.chunk], n_features(), layout_.has_weights(),
                            reinterpret_cast<const unsigned char*>(slot.words.get()));
  ++position_;
  return true;
}

void StreamedBinarySource::reset() {
  if (!order_.empty()) {  // back to file order: what was read ahead is in the other order
    stop_reader();
    order_.clear();
    start_reader();
    return;
  }
  rewind();
}

void StreamedBinarySource::rewind() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const bool at_pass_start = position_ == 0 && held_ == 0;
    const bool at_pass_end = position_ == layout_.table.size();
    if (error_ == nullptr && (at_pass_start || at_pass_end)) {
      // The reader is at chunk 0 of a pass (reading ahead after a complete pass
      // included): keep it and what it has read; the held views are given up.
      head_ = (head_ + held_) % slots_.size();
      held_ = 0;
      position_ = 0;
      changed_.notify_all();
      return;
    }
  }
  stop_reader();
  start_reader();
}

void StreamedBinarySource::hold(std::size_t count) {
  ChunkSource::hold(count);
  std::lock_guard<std::mutex> lock(mutex_);
  hold_ = count;
}

bool StreamedBinarySource::reset_in_order(const std::vector<std::size_t>& order) {
  const std::size_t n = layout_.table.size();
  require(order.size() == n, "reset_in_order: " + std::to_string(order.size()) + " chunk indices for " +
                                 std::to_string(n) + " chunks of " + layout_.path);
  std::vector<bool> seen(n, false);
  for (const std::size_t c : order) {
    require(c < n && !seen[c], [&] { return "reset_in_order: the order is not a permutation of the chunks of " + layout_.path; });
    seen[c] = true;
  }
  if (order == order_ || (order_.empty() && std::is_sorted(order.begin(), order.end()))) {
    rewind();  // the reader is already reading in this order
    return true;
  }
  stop_reader();
  order_ = order;
  start_reader();
  return true;
}

std::uint64_t solver_state_bytes(std::int64_t n_rows, std::int64_t n_features) {
  return 16 * static_cast<std::uint64_t>(std::max<std::int64_t>(n_rows, 0)) +
         8 * (static_cast<std::uint64_t>(std::max<std::int64_t>(n_features, 0)) + 1);
}

std::uint64_t resident_state_bytes(std::int64_t n_rows, std::int64_t n_features) {
  return solver_state_bytes(n_rows, n_features) + 48 * static_cast<std::uint64_t>(std::max<std::int64_t>(n_rows, 0));
}

std::uint64_t window_row_bytes(const BinaryFileLayout& layout) {
  std::uint64_t rows = 0;
  for (const BinaryChunkEntry& e : layout.table) rows = std::max<std::uint64_t>(rows, static_cast<std::uint64_t>(e.n_rows));
  return 8 * rows;
}

std::uint64_t stream_buffers(std::uint64_t left, std::uint64_t largest, std::uint64_t window_bytes, std::size_t chunks) {
  if (left < 2 * largest) return left / largest;
  // Buffer b >= 3 costs its chunk and the window's order of one more chunk's rows.
  const std::uint64_t more = (left - 2 * largest) / (largest + window_bytes);
  return 2 + std::min<std::uint64_t>(more, chunks > 1 ? chunks - 1 : 0);
}

BinarySourcePlan plan_binary_source(const BinaryFileLayout& layout, std::uint64_t max_memory) {
  BinarySourcePlan plan;
  plan.state_bytes = solver_state_bytes(layout.header.n_rows, layout.header.n_features);
  plan.data_bytes = layout.data_bytes();
  if (max_memory == 0 ||
      plan.data_bytes + resident_state_bytes(layout.header.n_rows, layout.header.n_features) <= max_memory)
    return plan;
  const std::uint64_t largest = std::max<std::uint64_t>(layout.largest_chunk_bytes(), 1);
  const std::uint64_t left = max_memory > plan.state_bytes ? max_memory - plan.state_bytes : 0;
  const std::uint64_t buffers = stream_buffers(left, largest, window_row_bytes(layout), layout.table.size());
  if (buffers < 2)
    throw InvalidArgument(
        "a memory budget of " + std::to_string(max_memory) + " bytes is too small to stream " + layout.path +
        ": it needs 2 buffers of its largest chunk (" + std::to_string(2 * largest) +
        " bytes) plus the solver's state (16 bytes a row and 8 a feature: " + std::to_string(plan.state_bytes) +
        " bytes), " + std::to_string(2 * largest + plan.state_bytes) +
        " bytes in all; raise the budget, or convert the data again with smaller chunks (snap-convert --chunk-rows)");
  plan.stream = true;
  plan.buffers = static_cast<std::size_t>(buffers);
  plan.data_bytes = buffers * largest;
  return plan;
}

std::uint64_t parse_memory_size(const std::string& text) {
  auto fail = [&](const std::string& why) {
    throw InvalidArgument("memory size '" + text + "': " + why +
                          " (use bytes or a number with a unit: 512MB, 4GB, 1.5G; units are powers of 1024)");
  };
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) fail("not a number");
  double number = 0.0;
  try {
    std::size_t used = 0;
    number = std::stod(text.substr(0, end), &used);
    if (used != end) fail("not a number");
  } catch (const std::logic_error&) {
    fail("not a number");
  }
  std::string unit;
  for (std::size_t i = end; i < text.size(); ++i)
    unit += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  if (unit.size() >= 2 && unit.compare(unit.size() - 2, 2, "IB") == 0) unit.resize(unit.size() - 2);
  else if (unit.size() >= 2 && unit.back() == 'B') unit.pop_back();
  double scale = 1.0;
  if (unit.empty() || unit == "B") {
    scale = 1.0;
  } else if (unit == "K") {
    scale = 1024.0;
  } else if (unit == "M") {
    scale = 1024.0 * 1024.0;
  } else if (unit == "G") {
    scale = 1024.0 * 1024.0 * 1024.0;
  } else if (unit == "T") {
    scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
  } else {
    fail("unknown unit '" + text.substr(end) + "'");
  }
  const double bytes = std::floor(number * scale);
  if (!(bytes >= 1.0)) fail("must be at least 1 byte");
  if (bytes >= 9223372036854775808.0) fail("too large");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace snapml::datasets
