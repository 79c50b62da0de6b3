// What snap-train and snap-predict read: datasets in either format and models in
// either format, each recognised from the file itself when not forced.
#pragma once

#include <string>
#include <vector>

#include "snapml/dataset.h"
#include "snapml/model.h"

namespace snapml::cli {

// --format: svmlight text, the binary chunked format, or auto (binary when the
// name ends in .snap or the file starts with the binary magic, else svmlight).
enum class DataFormat { Auto, Svmlight, Binary };

// The accepted --format names, for CLI11's IsMember check and the help text.
inline constexpr const char* kFormatNames[] = {"auto", "svmlight", "binary"};
DataFormat data_format_from_name(const std::string& name);

// True when `path` is read as the binary chunked format under `format`.
bool is_binary_input(const std::string& path, DataFormat format);

// Reads a whole dataset. Throws IoError when the file cannot be read and
// InputError (file:line:column, or file and chunk) when its content is malformed.
Dataset read_dataset(const std::string& path, DataFormat format, int threads);

struct ModelFile {
  Model model;
  // The classes in the order LIBLINEAR lists them, the column order of
  // `predict -b 1`: a LIBLINEAR file's `label` line; for a snapml model the order
  // --model-format liblinear writes (two classes: the positive one, classes[1],
  // first; more: ascending). Empty for regression.
  std::vector<double> label_order;
};

// Loads a model written by snap-train in snapml's format or by LIBLINEAR (or
// snap-train --model-format liblinear), told apart by the first word of the file.
ModelFile load_any_model(const std::string& path);

}  // namespace snapml::cli
