// Models move both ways between snapml and LIBLINEAR (liblinear-train /
// liblinear-predict, Debian liblinear-tools), with the same predictions; and our
// optimum is LIBLINEAR's. Skipped where the tools are missing, failed under CI=true.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../fixtures/random_problem.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/model.h"
#include "snapml/train.h"
#include "test_data.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

bool have_liblinear() {
  return std::system("command -v liblinear-train >/dev/null 2>&1 && command -v liblinear-predict >/dev/null 2>&1") == 0;
}

#define REQUIRE_LIBLINEAR()                                                   \
  if (!have_liblinear()) {                                                    \
    if (running_in_ci()) FAIL() << "liblinear-train/liblinear-predict missing"; \
    GTEST_SKIP() << "liblinear-train/liblinear-predict not installed";        \
  }

void run(const std::string& command) {
  ASSERT_EQ(std::system((command + " >/dev/null").c_str()), 0) << command;
}

// liblinear-predict's output: one label a line, or with -b 1 a "labels ..." header
// and "label p_1 .. p_K" lines. Returns the labels; `probabilities` gets the
// columns in the header's label order.
std::vector<double> read_predictions(const std::string& path, std::vector<double>* header = nullptr,
                                     std::vector<std::vector<double>>* probabilities = nullptr) {
  std::ifstream in(path);
  std::vector<double> labels;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (line.rfind("labels", 0) == 0) {
      std::string word;
      fields >> word;
      for (double v; fields >> v;) header->push_back(v);
      continue;
    }
    double label;
    fields >> label;
    labels.push_back(label);
    if (probabilities) {
      probabilities->emplace_back();
      for (double v; fields >> v;) probabilities->back().push_back(v);
    }
  }
  return labels;
}

TEST(LibLinearInterop, TheirModelPredictsTheSameThroughOurLoader) {
  REQUIRE_LIBLINEAR();
  SNAPML_REQUIRE_DATASET(heart, "heart_scale");
  const std::string model_path = scratch_dir() + "/heart.liblinear";
  const std::string out = scratch_dir() + "/heart.out";
  run("liblinear-train -s 7 -c 1 -B 1 -q " + heart + " " + model_path);
  run("liblinear-predict -b 1 " + heart + " " + model_path + " " + out);
  std::vector<double> header;
  std::vector<std::vector<double>> theirs_proba;
  const std::vector<double> theirs = read_predictions(out, &header, &theirs_proba);

  const Model model = Model::load_liblinear(model_path);
  const Dataset data = datasets::read_svmlight(heart);
  EXPECT_EQ(model.loss, LossKind::Logistic);
  EXPECT_EQ(model.intercept_scaling, 1.0);
  EXPECT_EQ(model.predict(data, 1), theirs);
  const std::vector<double> ours_proba = model.predict_proba(data, 1);
  for (std::size_t i = 0; i < theirs.size(); ++i)
    for (std::size_t k = 0; k < header.size(); ++k) {
      const std::size_t column = header[k] == model.classes[1] ? 1 : 0;
      EXPECT_NEAR(ours_proba[i * 2 + column], theirs_proba[i][k], 1e-6);
    }
}

TEST(LibLinearInterop, OurModelPredictsTheSameInLibLinear) {
  REQUIRE_LIBLINEAR();
  SNAPML_REQUIRE_DATASET(heart, "heart_scale");
  const Dataset data = datasets::read_svmlight(heart);
  for (LossKind loss : {LossKind::Logistic, LossKind::Hinge, LossKind::SquaredHinge}) {
    TrainParameters p;
    p.loss = loss;
    p.threads = 1;
    const Model model = train(data, p).model;
    const std::string model_path = scratch_dir() + "/ours.liblinear";
    const std::string out = scratch_dir() + "/ours.out";
    model.save_liblinear(model_path);
    run("liblinear-predict " + heart + " " + model_path + " " + out);
    EXPECT_EQ(read_predictions(out), model.predict(data, 1)) << loss_name(loss);
    // And it reads back into the same model.
    const Model back = Model::load_liblinear(model_path);
    EXPECT_EQ(back.coef, model.coef);
    EXPECT_EQ(back.classes, model.classes);
  }
}

TEST(LibLinearInterop, OneVersusRestModelsMoveBothWays) {
  REQUIRE_LIBLINEAR();
  // Three classes with labels 1, 2, 3 from three planted directions.
  RandomProblemOptions o;
  o.rows = 400;
  o.regression = true;
  Dataset scores = random_problem(o);
  std::vector<CsrChunk> chunks = scores.chunks();
  for (CsrChunk& c : chunks)
    for (double& label : c.labels) label = label < -0.7 ? 3.0 : (label < 0.7 ? 1.0 : 2.0);
  const Dataset data(std::move(chunks), scores.n_features());
  const std::string file = scratch_dir() + "/three.svm";
  datasets::write_svmlight(data, file);

  const std::string theirs_model = scratch_dir() + "/three.liblinear";
  const std::string out = scratch_dir() + "/three.out";
  run("liblinear-train -s 7 -c 1 -B 1 -q " + file + " " + theirs_model);
  run("liblinear-predict " + file + " " + theirs_model + " " + out);
  const Model loaded = Model::load_liblinear(theirs_model);
  EXPECT_EQ(loaded.classes, (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(loaded.predict(data, 1), read_predictions(out));

  TrainParameters p;
  p.threads = 1;
  const Model ours = train(data, p).model;
  const std::string ours_model = scratch_dir() + "/three.ours.liblinear";
  ours.save_liblinear(ours_model);
  run("liblinear-predict " + file + " " + ours_model + " " + out);
  EXPECT_EQ(read_predictions(out), ours.predict(data, 1));
}

// liblinear-train on labels of one value writes nr_class 1 and one weight column;
// its predict gives that label everywhere (probability 1). Ours reads, predicts
// and writes the model as LIBLINEAR does.
TEST(LibLinearInterop, OneClassModelsMoveBothWays) {
  REQUIRE_LIBLINEAR();
  SNAPML_REQUIRE_DATASET(heart, "heart_scale");
  const Dataset data = datasets::read_svmlight(heart);
  std::vector<CsrChunk> chunks = data.chunks();
  for (CsrChunk& c : chunks)
    for (double& label : c.labels) label = -1.0;
  const Dataset one(std::move(chunks), data.n_features());
  const std::string file = scratch_dir() + "/one.svm";
  datasets::write_svmlight(one, file);
  for (const char* solver : {"0", "7", "4"}) {
    const std::string theirs_model = scratch_dir() + "/one.liblinear";
    const std::string out = scratch_dir() + "/one.out";
    run(std::string("liblinear-train -s ") + solver + " -B 1 -q " + file + " " + theirs_model);
    run("liblinear-predict " + heart + " " + theirs_model + " " + out);
    const Model loaded = Model::load_liblinear(theirs_model);
    EXPECT_EQ(loaded.classes, (std::vector<double>{-1.0})) << solver;
    EXPECT_EQ(loaded.predict(data, 1), read_predictions(out)) << solver;
    const std::string ours_model = scratch_dir() + "/one.ours.liblinear";
    loaded.save_liblinear(ours_model);
    run("liblinear-predict " + heart + " " + ours_model + " " + out);
    EXPECT_EQ(read_predictions(out), loaded.predict(data, 1)) << solver;
    EXPECT_EQ(Model::load_liblinear(ours_model).coef, loaded.coef) << solver;
  }
}

TEST(LibLinearInterop, OurOptimumIsLibLinears) {
  REQUIRE_LIBLINEAR();
  SNAPML_REQUIRE_DATASET(heart, "heart_scale");
  const std::string model_path = scratch_dir() + "/tight.liblinear";
  run("liblinear-train -s 7 -c 1 -B 1 -e 1e-8 -q " + heart + " " + model_path);
  const Model theirs = Model::load_liblinear(model_path);
  TrainParameters p;
  p.tol = 1e-10;
  p.threads = 1;
  const Model ours = train(datasets::read_svmlight(heart), p).model;
  ASSERT_EQ(ours.coef.size(), theirs.coef.size());
  for (std::size_t j = 0; j < ours.coef.size(); ++j) EXPECT_NEAR(ours.coef[j], theirs.coef[j], 1e-5);
  EXPECT_NEAR(ours.intercept[0], theirs.intercept[0], 1e-5);
}

}  // namespace
