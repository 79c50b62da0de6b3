#include "input_files.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"

namespace snapml::cli {
namespace {

// The first `size` bytes of `path` (fewer when the file is shorter).
std::string file_start(const std::string& path, std::size_t size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open " + path + ": " + errno_message());
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

bool looks_binary(const std::string& path) {
  if (std::filesystem::path(path).extension() == datasets::kBinaryExtension) return true;
  const std::string start = file_start(path, sizeof datasets::kBinaryMagic);
  return start.size() == sizeof datasets::kBinaryMagic &&
         std::memcmp(start.data(), datasets::kBinaryMagic, sizeof datasets::kBinaryMagic) == 0;
}

}  // namespace

DataFormat data_format_from_name(const std::string& name) {
  if (name == "svmlight") return DataFormat::Svmlight;
  if (name == "binary") return DataFormat::Binary;
  require(name == "auto", "unknown data format '" + name + "': use auto, svmlight or binary");
  return DataFormat::Auto;
}

bool is_binary_input(const std::string& path, DataFormat format) {
  return format == DataFormat::Binary || (format == DataFormat::Auto && looks_binary(path));
}

Dataset read_dataset(const std::string& path, DataFormat format, int threads) {
  if (is_binary_input(path, format))
    return datasets::load_binary(path);
  datasets::SvmlightOptions options;
  options.threads = threads;
  return datasets::read_svmlight(path, options);
}

ModelFile load_any_model(const std::string& path) {
  // Both formats are text whose first word names them: "snapml-model" for ours
  // (docs/formats.md), "solver_type" for LIBLINEAR's. Anything else is handed to
  // our reader, whose error names the file and line.
  ModelFile loaded;
  if (file_start(path, 64).rfind("solver_type", 0) == 0) {
    loaded.model = Model::load_liblinear(path);
    // load_liblinear has validated the header; only the label order is kept here.
    std::ifstream in(path);
    for (std::string line; std::getline(in, line) && line != "w" && line.rfind("w ", 0) != 0;) {
      if (line.rfind("label", 0) != 0) continue;
      std::istringstream labels(line.substr(5));
      for (double label; labels >> label;) loaded.label_order.push_back(label);
    }
    return loaded;
  }
  loaded.model = Model::load(path);
  const std::vector<double>& classes = loaded.model.classes;
  if (classes.size() == 2)
    loaded.label_order = {classes[1], classes[0]};
  else
    loaded.label_order = classes;
  return loaded;
}

}  // namespace snapml::cli
