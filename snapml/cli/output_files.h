// What snap-train checks of the files it will write before it trains: a fit can
// take hours, and an output that cannot be written found only after it lost them
// (the model written, then --history failing; a model path naming the training
// data replaced the data with the model).
#pragma once

#include <string>
#include <vector>

namespace snapml::cli {

struct NamedPath {
  std::string role;  // "model file", "--history", "training file", ...
  std::string path;
};

// Throws, before any work is done:
//  - InvalidArgument (exit 1) when an output is the same file (device and inode)
//    as an input or another output;
//  - IoError (exit 3) when an output cannot be created: a directory, a missing
//    or unwritable directory. Each regular output is probed by creating and
//    removing its temporary file beside it (atomic_file.h), as the write will.
// Outputs that exist and are not regular files (/dev/stdout, a FIFO) are written
// in place and not probed.
void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace snapml::cli
