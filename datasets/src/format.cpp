#include "snapml/datasets/format.h"

#include <filesystem>
#include <iterator>
#include <utility>

#include "snapml/error.h"

namespace snapml::datasets {

const char* data_format_name(DataFormat format) { return kDataFormatNames[static_cast<int>(format)]; }

DataFormat data_format_from_name(const std::string& name) {
  std::string names;
  for (std::size_t i = 0; i < std::size(kDataFormatNames); ++i) {
    if (name == kDataFormatNames[i]) return static_cast<DataFormat>(i);
    names += (i == 0 ? "" : i + 1 == std::size(kDataFormatNames) ? " or " : ", ") + std::string(kDataFormatNames[i]);
  }
  throw InvalidArgument("unknown data format '" + name + "': use " + names);
}

DataFormat sniff_format(const InputFile& input, DataFormat requested) {
  if (requested != DataFormat::Auto) return requested;
  if (std::filesystem::path(input.path()).extension() == kBinaryExtension) return DataFormat::Binary;
  if (input.starts_with(kBinaryMagic, sizeof kBinaryMagic)) return DataFormat::Binary;
  return DataFormat::Svmlight;
}

OpenedData open(InputFile input, const OpenOptions& options) {
  OpenedData opened;
  opened.format = sniff_format(input, options.format);
  opened.file_bytes = input.size();
  switch (opened.format) {
    case DataFormat::Binary:
      if (options.map_binary)
        opened.source = std::make_unique<MappedBinarySource>(MappedBinaryFile(input, options.binary));
      else
        opened.dataset = load_binary(input);
      break;
    case DataFormat::Criteo: {
      CriteoData read = read_criteo(std::move(input), options.criteo);
      opened.dataset = std::move(read.dataset);
      opened.skipped_lines = read.skipped_lines;
      opened.first_skipped = std::move(read.first_skipped);
      break;
    }
    case DataFormat::Svmlight:
    case DataFormat::Auto:  // sniff_format never returns Auto
      opened.dataset = read_svmlight(std::move(input), options.svmlight, &opened.index_base);
      break;
  }
  return opened;
}

OpenedData open(const std::string& path, const OpenOptions& options) { return open(InputFile(path), options); }

Dataset read_dataset(const std::string& path, const OpenOptions& options) {
  OpenOptions in_memory = options;
  in_memory.map_binary = false;
  return std::move(open(path, in_memory).dataset);
}

}  // namespace snapml::datasets
