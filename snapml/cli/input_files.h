// What snap-train and snap-predict read: datasets in either format (through the
// data-format seam, snapml/datasets/format.h) and models in either format, each
// recognised from the file itself when not forced.
#pragma once

#include <string>
#include <vector>

#include "snapml/dataset.h"
#include "snapml/datasets/format.h"
#include "snapml/model.h"

namespace snapml::cli {

using datasets::DataFormat;

// The accepted --format names of snap-train and snap-predict (format.h's, less
// criteo, which only snap-convert reads), for CLI11's IsMember check.
std::vector<std::string> data_file_format_names();

// The svmlight index base the files of one job share (Model::index_base): the
// training file's, which its --test file and every file predicted with its model
// are read with, so that an index names the same feature in all of them.
struct SharedBase {
  int base = -1;        // 0 or 1; -1: each file decides (one-based unless it has an index 0)
  std::string source;   // "the training file a9a", "the model m's training data": named when a file disagrees
};

// Reads a whole dataset, recognised by format.h's sniffer unless `format` forces
// one, svmlight text with `base.base` when set. Throws IoError when the file
// cannot be read and InputError (file:line:column, or file and chunk) when its
// content is malformed, or has an index 0 where the base is 1 (naming
// `base.source`). A pipe or FIFO reads as a file does: the path is opened once
// (input_file.h). `base_read`, when given, receives the text's base (-1 for a
// binary file, which holds columns).
Dataset read_dataset(datasets::InputFile input, DataFormat format, int threads, const SharedBase& base = {},
                     int* base_read = nullptr);
Dataset read_dataset(const std::string& path, DataFormat format, int threads, const SharedBase& base = {},
                     int* base_read = nullptr);

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
