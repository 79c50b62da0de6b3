// The data-format seam: which formats there are, what they are called, how an
// input's format is recognised, and the one way to open an input in any of them.
//
//   InputFile input(path);                       // opened once (input_file.h)
//   DataFormat format = sniff_format(input, requested);
//   OpenedData data = open(std::move(input), options);
//
// or open(path, options), which does the three. The tools (snap-train,
// snap-predict, snap-convert, the MPI ranks) all come through here, so that a
// file is recognised the same way by each. To add a format: a value and a name
// below, its magic (if any) in sniff_format, its reader in open() (format.cpp),
// and its options in OpenOptions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "snapml/chunk_source.h"
#include "snapml/dataset.h"
#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/criteo.h"
#include "snapml/datasets/input_file.h"
#include "snapml/datasets/svmlight.h"

namespace snapml::datasets {

// Auto asks sniff_format to decide.
enum class DataFormat { Auto, Svmlight, Binary, Criteo };

// The names the tools accept (--format, --from), indexed by DataFormat.
inline constexpr const char* kDataFormatNames[] = {"auto", "svmlight", "binary", "criteo"};
const char* data_format_name(DataFormat format);
// Throws InvalidArgument naming the accepted names.
DataFormat data_format_from_name(const std::string& name);

// `requested` unless it is Auto. Auto: Binary when the name ends in .snap or the
// file starts with the binary magic (kBinaryMagic), else Svmlight (plain or gzip,
// told apart by the text reader). Criteo TSV is never inferred: its lines are
// text with nothing to tell them from a malformed svmlight file.
DataFormat sniff_format(const InputFile& input, DataFormat requested = DataFormat::Auto);

struct OpenOptions {
  DataFormat format = DataFormat::Auto;
  SvmlightOptions svmlight;  // Svmlight
  CriteoOptions criteo;      // Criteo
  BinaryOpenOptions binary;  // Binary
  // Binary: leave the rows in the mapped file (OpenedData::source, no copy)
  // instead of copying them into OpenedData::dataset.
  bool map_binary = false;
};

// What open() read: the rows in memory, or a source over them in the mapped file.
struct OpenedData {
  DataFormat format = DataFormat::Auto;  // the format read, never Auto
  std::uint64_t file_bytes = 0;          // the input's size (a stream's, as read)
  Dataset dataset;                       // unless `source` is set
  std::unique_ptr<ChunkSource> source;   // map_binary with a binary input only
  // Svmlight: the base its indices were read with (Zero or One); Auto for the
  // formats without one (binary columns, Criteo's hashed features).
  IndexBase index_base = IndexBase::Auto;
  // Criteo with skip_bad_lines: lines dropped, and the first one's message.
  std::int64_t skipped_lines = 0;
  std::string first_skipped;
};

// Reads `input` in options.format (Auto: sniffed). Throws what the format's
// reader throws: InputError on malformed content, IoError when unreadable.
OpenedData open(InputFile input, const OpenOptions& options);
OpenedData open(const std::string& path, const OpenOptions& options);

// The rows of `path` in memory: open() with map_binary off.
Dataset read_dataset(const std::string& path, const OpenOptions& options);

}  // namespace snapml::datasets
