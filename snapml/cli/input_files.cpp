#include "input_files.h"

#include <sstream>
#include <utility>

#include "snapml/error.h"

namespace snapml::cli {
std::vector<std::string> data_file_format_names() {
  std::vector<std::string> names;
  for (DataFormat format : {DataFormat::Auto, DataFormat::Svmlight, DataFormat::Binary})
    names.emplace_back(datasets::data_format_name(format));
  return names;
}

Dataset read_dataset(datasets::InputFile input, DataFormat format, int threads, const SharedBase& base,
                     int* base_read) {
  datasets::OpenOptions options;
  options.format = format;
  options.svmlight.threads = threads;
  if (base.base >= 0) options.svmlight.index_base = base.base == 0 ? datasets::IndexBase::Zero : datasets::IndexBase::One;
  try {
    datasets::OpenedData opened = datasets::open(std::move(input), options);
    if (base_read)
      *base_read = opened.index_base == datasets::IndexBase::Zero  ? 0
                   : opened.index_base == datasets::IndexBase::One ? 1
                                                                   : -1;
    return std::move(opened.dataset);
  } catch (const InputError& e) {
    // The reader's "index 0 in a file read as one-based": say why it was.
    if (base.base != 1 || e.problem().find("read as one-based") == std::string::npos) throw;
    throw InputError(e.file(), e.line(), e.column(),
                     e.problem() + " (one-based as " + base.source +
                         ": an index must name the same feature in the training data and here)");
  }
}

Dataset read_dataset(const std::string& path, DataFormat format, int threads, const SharedBase& base,
                     int* base_read) {
  return read_dataset(datasets::InputFile(path), format, threads, base, base_read);
}

ModelFile load_any_model(const std::string& path) {
  // Both formats are text whose first word names them: "snapml-model" for ours
  // (docs/formats.md), "solver_type" for LIBLINEAR's. Anything else is handed to
  // our reader, whose error names the file and line. The file is read once: a
  // pipe or a FIFO serves as the model file.
  std::string text = Model::read_text(path);
  ModelFile loaded;
  if (text.rfind("solver_type", 0) == 0) {
    // The label order is the header's label line (parse_liblinear validates the header).
    std::istringstream in(text);
    for (std::string line; std::getline(in, line) && line != "w" && line.rfind("w ", 0) != 0;) {
      if (line.rfind("label", 0) != 0) continue;
      std::istringstream labels(line.substr(5));
      for (double label; labels >> label;) loaded.label_order.push_back(label);
    }
    loaded.model = Model::parse_liblinear(std::move(text), path);
    return loaded;
  }
  loaded.model = Model::parse(std::move(text), path);
  const std::vector<double>& classes = loaded.model.classes;
  if (classes.size() == 2)
    loaded.label_order = {classes[1], classes[0]};
  else
    loaded.label_order = classes;
  return loaded;
}

}  // namespace snapml::cli
