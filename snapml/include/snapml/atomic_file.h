// Atomic file replacement: nothing is lost if a write fails half way.
//
// Data goes to a temporary file beside the target; commit() flushes, fsyncs and
// renames it over the target (rename(2) is atomic within a file system), then
// fsyncs the directory. Destroyed without commit(), the temporary file is
// removed and the target is untouched. Every writer of the project (svmlight,
// binary format, models, predictions) goes through this one class.
//
// The temporary file is TARGET.tmp-HOST-PID-XXXXXX: a process killed before it
// could remove its own (SIGKILL) leaves it behind, and the next AtomicFile of the
// same target removes those of this host whose process no longer exists.
//
// The path may be a link: the write lands where the links lead (output_path.h),
// and a link is never replaced. A regular file at the end (or none yet) is
// replaced atomically as above, the temporary file in the directory of that
// file; an existing file keeps its permissions. This process's descriptor
// (/dev/stdout, /proc/self/fd/N) is written through a duplicate of it, and a
// device, FIFO or socket in place: renaming over them would replace the node or
// the link itself, which as root broke /dev/stdout for every program on the
// machine. There is no partial-file hazard to guard against for a stream.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace snapml {

class AtomicFile {
 public:
  explicit AtomicFile(std::string target_path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws IoError naming the target when the write fails (disk full, ...).
  void write(const void* data, std::size_t bytes);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // The underlying stream, for fprintf-style writers; check with commit().
  std::FILE* stream() { return file_; }
  // Flushes, fsyncs, renames onto the target. Throws IoError on failure.
  void commit();
  const std::string& target() const { return target_; }

  // Removes the temporary files that killed writers of `target` left beside the
  // file it leads to (the cleanup every write does first), for a target that
  // will not be written again: a checkpoint removed after its fit.
  static void remove_leftovers(const std::string& target);

 private:
  std::string target_;    // as given
  std::string resolved_;  // the file the temporary file is renamed over (links resolved)
  std::string temporary_;
  std::FILE* file_ = nullptr;
  bool in_place_ = false;  // a descriptor, device or pipe, written directly
  bool committed_ = false;
};

}  // namespace snapml
