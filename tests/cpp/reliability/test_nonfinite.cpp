// NaN and infinities inside a .snap file with valid checksums, and in model
// files, are refused with an InputError that says where, instead of training
// (or predicting) NaN everywhere with exit 0.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "snapml/datasets/binary_format.h"
#include "snapml/datasets/streamed_binary_source.h"
#include "snapml/error.h"
#include "snapml/model.h"
#include "snapml/train.h"
#include "test_data.h"

namespace {

using namespace snapml;

// Four rows in chunks of two; row 3 (chunk 1, its row 1) carries `label` and
// the value `value` for feature 2.
Dataset four_rows(double label, float value) {
  std::vector<CsrChunk> chunks(2);
  const std::int32_t indices[] = {0, 2};
  for (int row = 0; row < 4; ++row) {
    const float values[] = {1.0f, row == 3 ? value : 0.5f};
    chunks[static_cast<std::size_t>(row / 2)].add_row(row == 3 ? label : (row % 2 ? 1.0 : -1.0), indices, values, 2);
  }
  return Dataset(std::move(chunks), 3);
}

std::string message_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no InputError";
}

void expect_refused(const std::string& path, const std::string& fragment) {
  for (const std::string& message :
       {message_of([&] { datasets::load_binary(path); }), message_of([&] {
          datasets::StreamedBinarySource source(path);
          CsrView x;
          while (source.next(x)) {
          }
        })}) {
    EXPECT_NE(message.find(path + ": chunk 1 row 1 (row 4 of the file) has " + fragment), std::string::npos)
        << message;
  }
}

TEST(NonFinite, SnapValuesLabelsAndWeightsAreRefusedNamingChunkAndRow) {
  const std::string path = snapml::testing::scratch_dir() + "/nan.snap";
  datasets::write_binary(four_rows(1.0, std::numeric_limits<float>::quiet_NaN()), path);
  expect_refused(path, "the value of feature 2 nan");
  datasets::write_binary(four_rows(1.0, std::numeric_limits<float>::infinity()), path);
  expect_refused(path, "the value of feature 2 inf");
  datasets::write_binary(four_rows(std::nan(""), 1.0f), path);
  expect_refused(path, "the label nan");
  datasets::write_binary(four_rows(1.0, 1.0f), path);
  EXPECT_EQ(datasets::load_binary(path).n_rows(), 4);
}

std::string replaced(const std::string& path, const std::string& from, const std::string& to) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const std::size_t at = s.rfind(from);
  EXPECT_NE(at, std::string::npos) << from;
  s.replace(at, from.size(), to);
  const std::string out = path + ".bad";
  std::ofstream(out) << s;
  return out;
}

TEST(NonFinite, ModelFilesWithNonFiniteWeightsAreRefusedNamingTheLine) {
  Model model;
  model.loss = LossKind::Logistic;
  model.classes = {-1.0, 1.0};
  model.n_features = 2;
  model.coef = {0.25, -0.5};
  model.intercept = {0.125};
  model.intercept_scaling = 1.0;
  const std::string ours = snapml::testing::scratch_dir() + "/model.txt";
  model.save(ours);
  for (const char* bad : {"nan", "inf", "-inf"}) {
    const std::string message = message_of([&] { Model::load(replaced(ours, "-0.5", bad)); });
    EXPECT_NE(message.find("(a finite number), found '" + std::string(bad) + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(ours + ".bad:"), std::string::npos) << message;
  }
  const std::string liblinear = snapml::testing::scratch_dir() + "/model.liblinear";
  model.save_liblinear(liblinear);
  const std::string message = message_of([&] { Model::load_liblinear(replaced(liblinear, "-0.5", "nan")); });
  EXPECT_NE(message.find("(a finite number), found 'nan'"), std::string::npos) << message;
}

}  // namespace
