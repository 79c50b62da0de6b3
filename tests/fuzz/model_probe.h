// What the model harnesses do with a model a reader accepted: score a row that
// touches its first and last feature and one past them, as snap-predict would.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "fuzz_check.h"
#include "snapml/model.h"

namespace snapml::fuzz {

inline void probe_model(const Model& model) {
  model.check();
  std::vector<std::int32_t> indices;
  for (std::int64_t j : {std::int64_t{0}, std::int64_t{model.n_features} - 1, std::int64_t{model.n_features}})
    if (j >= 0 && (indices.empty() || j > indices.back())) indices.push_back(static_cast<std::int32_t>(j));
  const std::vector<float> values(indices.size(), 1.0f);
  const std::vector<std::int64_t> offsets{0, static_cast<std::int64_t>(indices.size())};
  const double label = 0.0;
  CsrView row;
  row.n_rows = 1;
  row.n_features = model.n_features + 1;
  row.row_offsets = offsets.data();
  row.col_indices = indices.data();
  row.values = values.data();
  row.labels = &label;
  std::vector<double> scores(static_cast<std::size_t>(model.n_outputs()));
  model.decision_function(row, scores.data(), 1);
  double predicted = 0.0;
  model.predict(row, &predicted, 1);
  if (model.is_classifier()) {
    bool known = false;
    for (double c : model.classes) known |= c == predicted;
    check(known || std::isnan(predicted), "predict returned a label that is not a class");
  }
}

}  // namespace snapml::fuzz
