// Accuracy on public datasets against LIBLINEAR 2.3.0 (train -s 7 -c 1, figures
// measured with Debian's liblinear-tools and recorded here, so the test needs only
// the data): a9a -> a9a.t 84.99 % (README of the datasets), w8a training accuracy
// 98.39 % (98.66 % with -B 1), mushrooms (labels 1 / 2) 100 %.
#include <gtest/gtest.h>

#include "snapml/datasets/svmlight.h"
#include "snapml/model.h"
#include "snapml/train.h"
#include "test_data.h"

namespace {

using namespace snapml;

double accuracy_percent(const Model& model, const Dataset& data) {
  const std::vector<double> predicted = model.predict(data);
  const std::vector<double> labels = data.labels();
  std::size_t right = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) right += predicted[i] == labels[i];
  return 100.0 * static_cast<double>(right) / static_cast<double>(labels.size());
}

TrainParameters liblinear_s7(bool intercept) {
  TrainParameters p;  // LIBLINEAR -s 7 -c 1 [-B 1]
  p.C = 1.0;
  p.fit_intercept = intercept;
  p.tol = 1e-4;
  return p;
}

TEST(RealData, A9aTestAccuracyMatchesLibLinear) {
  SNAPML_REQUIRE_DATASET(train_path, "a9a");
  SNAPML_REQUIRE_DATASET(test_path, "a9a.t");
  const Dataset train_set = datasets::read_svmlight(train_path);
  datasets::SvmlightOptions options;
  options.n_features = train_set.n_features();  // a9a.t never uses feature 123
  const Dataset test_set = datasets::read_svmlight(test_path, options);
  const TrainResult result = train(train_set, liblinear_s7(false));
  EXPECT_TRUE(result.fits[0].converged);
  EXPECT_NEAR(accuracy_percent(result.model, test_set), 84.99, 0.2);
  EXPECT_NEAR(accuracy_percent(train(train_set, liblinear_s7(true)).model, test_set), 84.99, 0.2);
}

TEST(RealData, W8aTrainingAccuracyMatchesLibLinear) {
  SNAPML_REQUIRE_DATASET(path, "w8a");
  const Dataset data = datasets::read_svmlight(path);
  EXPECT_NEAR(accuracy_percent(train(data, liblinear_s7(false)).model, data), 98.39, 0.2);
  EXPECT_NEAR(accuracy_percent(train(data, liblinear_s7(true)).model, data), 98.66, 0.2);
}

TEST(RealData, MushroomsWithLabelsOneAndTwo) {
  SNAPML_REQUIRE_DATASET(path, "mushrooms");
  const Dataset data = datasets::read_svmlight(path);
  const Model model = train(data, liblinear_s7(false)).model;
  EXPECT_EQ(model.classes, (std::vector<double>{1.0, 2.0}));
  EXPECT_NEAR(accuracy_percent(model, data), 100.0, 0.2);
}

}  // namespace
