// Where a write to a path lands, and which outputs of one job may not meet.
//
// A path given as an output may be a symbolic link (`/dev/stdout` is one, to
// /proc/self/fd/1), a device, a pipe or a regular file. resolve_output follows
// the links one at a time, as open(2) would, and says what is at the end:
//  - this process's open descriptor, when a link (or the path itself) is
//    /proc/self/fd/N, /dev/fd/N or /proc/<this pid>/fd/N: written through a
//    duplicate of N, so that `snap-predict data m /dev/stdout > out.txt` appends
//    to what the shell opened, at its offset, as `cat > /dev/stdout` does;
//  - a device, FIFO or socket (another process's descriptor too): written in
//    place;
//  - a regular file, existing or not: replaced atomically (AtomicFile), the
//    temporary file beside the file the links lead to, never beside a link.
// Renaming over the path given instead replaced the link itself with a regular
// file: as root, `/dev/stdout` became a file and standard output broke for every
// program on the machine (issue 36, case 0).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace snapml {

struct OutputTarget {
  enum class Kind {
    File,        // a regular file, existing or to be created: `path` (links resolved)
    Descriptor,  // this process's open descriptor `descriptor`
    Stream,      // a device, FIFO or socket at `path`, opened and written in place
    Directory,   // not writable as a file
  };
  Kind kind = Kind::File;
  std::string path;
  int descriptor = -1;
  bool exists = false;  // File: whether `path` exists now
  // The identity outputs and inputs are compared by: the device and inode of what
  // exists, or for a file still to be created its directory's and its name.
  dev_t device = 0;
  ino_t inode = 0;
  std::string name;  // set only for a file still to be created
};

// Follows `path`'s links (at most 40, as the kernel) to the target a write lands
// on. Throws IoError for a link loop. A missing directory is found by the write.
OutputTarget resolve_output(const std::string& path);

// The same identity for a file that is read (an input): its device and inode
// after links, or `exists` false.
OutputTarget resolve_input(const std::string& path);

struct NamedPath {
  std::string role;  // "model file", "--history file", "training file", ...
  std::string path;
  // An output that must be a regular file (a checkpoint: it is read back and
  // removed): a device, pipe or descriptor is refused.
  bool file_only = false;
};

// The one rule every tool and the Python package apply to the files of one job,
// before any work. Throws:
//  - InvalidArgument (exit 1) when an output is the same file as an input or as
//    another output: the same device and inode after links (hard links too), or
//    for files not yet created the same directory and name. Writing it would
//    replace the data, or the second output would replace the first (a model
//    named as the --checkpoint was written, then removed as the finished
//    checkpoint). Streams (a terminal, a pipe) are not files and may be shared;
//  - InvalidArgument when a `file_only` output is not a regular file;
//  - IoError (exit 3) when an output cannot be created: a directory, a missing
//    or unwritable directory. Each file output is probed by creating and removing
//    its temporary file beside its target (atomic_file.h), as the write will.
void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace snapml
