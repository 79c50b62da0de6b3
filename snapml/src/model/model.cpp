// Predictions and our own model file format.
#include "snapml/model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "model_text.h"
#include "../common/omp_threads.h"
#include "snapml/atomic_file.h"
#include "snapml/error.h"

namespace snapml {
namespace {

// Scores of every output for one row; `bounded` skips columns the model lacks.
template <bool kBounded>
void score_row(const Model& model, const CsrView& x, std::int64_t row, double* out) {
  const int outputs = model.n_outputs();
  for (int o = 0; o < outputs; ++o) {
    const double* w = model.coef_row(o);
    double sum = model.intercept[static_cast<std::size_t>(o)];
    for (std::int64_t k = x.row_begin(row); k < x.row_end(row); ++k) {
      const std::int32_t column = x.col_indices[k];
      if (kBounded && column >= model.n_features) continue;
      sum += static_cast<double>(x.values[k]) * w[column];
    }
    out[o] = sum;
  }
}

double sigmoid(double t) { return t >= 0.0 ? 1.0 / (1.0 + std::exp(-t)) : std::exp(t) / (1.0 + std::exp(t)); }

template <typename PerDataset>
std::vector<double> over_chunks(const Dataset& data, std::size_t width, PerDataset&& per_chunk) {
  std::vector<double> out(static_cast<std::size_t>(data.n_rows()) * width);
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    per_chunk(x, out.data() + static_cast<std::size_t>(x.first_row) * width);
  }
  return out;
}

const char* const kMagic = "snapml-model";
// Version 2 added the penalty line; version 1 files are read as L2 models.
// 3: the index_base line.
constexpr int kVersion = 3;

bool sorted_and_distinct(const std::vector<double>& classes) {
  return std::is_sorted(classes.begin(), classes.end()) &&
         std::adjacent_find(classes.begin(), classes.end()) == classes.end();
}
const char* const kUnsortedClasses = "model: classes must be sorted and distinct";

}  // namespace

void Model::check() const {
  require(n_features >= 0, "model: negative feature count");
  require(sorted_and_distinct(classes), kUnsortedClasses);
  require(is_classification(loss) == is_classifier(),
          std::string("model: the ") + loss_name(loss) + " loss " +
              (is_classifier() ? "is a regression but the model has classes"
                               : "is a classification but the model has no classes"));
  const auto outputs = static_cast<std::size_t>(n_outputs());
  require(coef.size() == outputs * static_cast<std::size_t>(n_features),
          "model: coef has " + std::to_string(coef.size()) + " entries, expected " +
              std::to_string(outputs) + " x " + std::to_string(n_features));
  require(intercept.size() == outputs, "model: one intercept per weight row expected");
  require(class_weight.empty() || class_weight.size() == classes.size(),
          "model: class_weight needs one entry per class");
}

void Model::decision_function(const CsrView& x, double* out, int threads) const {
  [[maybe_unused]] const int team = detail::resolve_threads(threads);
  const auto outputs = static_cast<std::int64_t>(n_outputs());
  const bool bounded = x.n_features > n_features;
SNAPML_OMP(parallel for num_threads(team) schedule(static))
  for (std::int64_t row = 0; row < x.n_rows; ++row) {
    if (bounded) score_row<true>(*this, x, row, out + row * outputs);
    else score_row<false>(*this, x, row, out + row * outputs);
  }
}

std::vector<double> Model::decision_function(const Dataset& data, int threads) const {
  return over_chunks(data, static_cast<std::size_t>(n_outputs()),
                     [&](const CsrView& x, double* out) { decision_function(x, out, threads); });
}

void Model::predict(const CsrView& x, double* out, int threads) const {
  const int outputs = n_outputs();
  std::vector<double> scores(static_cast<std::size_t>(x.n_rows) * static_cast<std::size_t>(outputs));
  decision_function(x, scores.data(), threads);
  [[maybe_unused]] const int team = detail::resolve_threads(threads);
SNAPML_OMP(parallel for num_threads(team) schedule(static))
  for (std::int64_t row = 0; row < x.n_rows; ++row) {
    const double* s = scores.data() + row * outputs;
    if (!is_classifier()) out[row] = s[0];
    else if (classes.size() == 1) out[row] = classes[0];
    else if (outputs == 1) out[row] = s[0] > 0.0 ? classes[1] : classes[0];
    else out[row] = classes[static_cast<std::size_t>(std::max_element(s, s + outputs) - s)];
  }
}

std::vector<double> Model::predict(const Dataset& data, int threads) const {
  return over_chunks(data, 1, [&](const CsrView& x, double* out) { predict(x, out, threads); });
}

void Model::predict_proba(const CsrView& x, double* out, int threads) const {
  require(loss_has_probabilities(loss) && is_classifier(),
          std::string("predict_proba needs a logistic model; this one uses the ") + loss_name(loss) +
              " loss: use decision_function");
  const int outputs = n_outputs();
  const auto n_classes = static_cast<std::int64_t>(classes.size());
  std::vector<double> scores(static_cast<std::size_t>(x.n_rows) * static_cast<std::size_t>(outputs));
  decision_function(x, scores.data(), threads);
  const bool softmax = loss_is_per_class(loss);
  [[maybe_unused]] const int team = detail::resolve_threads(threads);
SNAPML_OMP(parallel for num_threads(team) schedule(static))
  for (std::int64_t row = 0; row < x.n_rows; ++row) {
    const double* s = scores.data() + row * outputs;
    double* p = out + row * n_classes;
    if (n_classes == 1) {
      p[0] = 1.0;
    } else if (softmax && outputs > 1) {
      losses::MultinomialLoss::softmax(s, outputs, p);
    } else if (outputs == 1) {
      p[1] = sigmoid(s[0]);
      p[0] = 1.0 - p[1];
    } else {
      double total = 0.0;
      for (std::int64_t k = 0; k < n_classes; ++k) total += (p[k] = sigmoid(s[k]));
      for (std::int64_t k = 0; k < n_classes; ++k) p[k] /= total;
    }
  }
}

std::vector<double> Model::predict_proba(const Dataset& data, int threads) const {
  return over_chunks(data, classes.size(),
                     [&](const CsrView& x, double* out) { predict_proba(x, out, threads); });
}

// Format, one item a line:
//   snapml-model 3 / loss NAME / penalty l2|l1 / n_features N / index_base 0|1|unknown /
//   classes K c_1 .. c_K /
//   intercept_scaling B / C c / tol t / epsilon p / max_iter m /
//   class_weight K w_1 .. w_K / outputs R / intercept b_1 .. b_R /
//   coef / R lines of N numbers / end
void Model::save(const std::string& path) const {
  check();
  std::string text;
  auto line = [&](const char* key, const std::vector<double>& values, bool counted) {
    text += key;
    if (counted) text += ' ' + std::to_string(values.size());
    for (double v : values) {
      text += ' ';
      detail::append_number(text, v);
    }
    text += '\n';
  };
  text += std::string(kMagic) + ' ' + std::to_string(kVersion) + '\n';
  text += std::string("loss ") + loss_name(loss) + '\n';
  text += std::string("penalty ") + penalty_name(penalty) + '\n';
  text += "n_features " + std::to_string(n_features) + '\n';
  text += "index_base " + (index_base < 0 ? std::string("unknown") : std::to_string(index_base)) + '\n';
  line("classes", classes, true);
  line("intercept_scaling", {intercept_scaling}, false);
  line("C", {C}, false);
  line("tol", {tol}, false);
  line("epsilon", {epsilon}, false);
  text += "max_iter " + std::to_string(max_iter) + '\n';
  line("class_weight", class_weight, true);
  text += "outputs " + std::to_string(n_outputs()) + '\n';
  line("intercept", intercept, false);
  text += "coef\n";
  AtomicFile file(path);
  file.write(text);
  for (int o = 0; o < n_outputs(); ++o) {
    std::string row;
    const double* w = coef_row(o);
    for (std::int32_t j = 0; j < n_features; ++j) {
      if (j) row += ' ';
      detail::append_number(row, w[j]);
    }
    row += '\n';
    file.write(row);
  }
  file.write(std::string("end\n"));
  file.commit();
}

Model Model::load(const std::string& path) { return parse(read_text(path), path); }

Model Model::parse(std::string text, const std::string& path) {
  detail::ModelText in(path, std::move(text));
  Model model;
  auto expect_key = [&](const char* key) {
    in.require_line(key);
    const std::string_view found = in.token();
    if (found != key) in.fail(std::string("expected '") + key + "', found '" + std::string(found) + "'");
  };
  auto counted = [&](const char* key) {
    expect_key(key);
    const std::int64_t count = in.integer("a count");
    if (count < 0) in.fail("negative count");
    std::vector<double> values;
    for (std::int64_t i = 0; i < count; ++i) values.push_back(in.number("a value"));
    in.expect_line_end();
    return values;
  };
  auto single = [&](const char* key) {
    expect_key(key);
    const double value = in.number(key);
    in.expect_line_end();
    return value;
  };
  expect_key(kMagic);
  const std::int64_t version = in.integer("the format version");
  if (version < 1 || version > kVersion)
    in.fail("unsupported model format version " + std::to_string(version) + " (this build reads versions 1 to " +
            std::to_string(kVersion) + ")");
  expect_key("loss");
  const std::string name(in.token());
  try {
    model.loss = loss_from_name(name);
  } catch (const InvalidArgument& e) {
    in.fail(e.what());
  }
  if (version >= 2) {
    expect_key("penalty");
    try {
      model.penalty = penalty_from_name(std::string(in.token()));
    } catch (const InvalidArgument& e) {
      in.fail(e.what());
    }
  }
  expect_key("n_features");
  const std::int64_t features = in.integer("the feature count");
  if (features < 0 || features > INT32_MAX) in.fail("the feature count is out of range");
  model.n_features = static_cast<std::int32_t>(features);
  if (version >= 3) {
    expect_key("index_base");
    const std::string base(in.token());
    if (base == "0" || base == "1")
      model.index_base = base[0] - '0';
    else if (base != "unknown")
      in.fail("index_base must be 0, 1 or unknown, found '" + base + "'");
    in.expect_line_end();
  }
  model.classes = counted("classes");
  // check() at the end refuses these too; here the message names this line.
  if (!sorted_and_distinct(model.classes)) in.fail_line(kUnsortedClasses);
  model.intercept_scaling = single("intercept_scaling");
  model.C = single("C");
  model.tol = single("tol");
  model.epsilon = single("epsilon");
  expect_key("max_iter");
  model.max_iter = static_cast<int>(in.integer("max_iter"));
  model.class_weight = counted("class_weight");
  expect_key("outputs");
  const std::int64_t outputs = in.integer("the number of weight rows");
  if (outputs != model.n_outputs())
    in.fail("expected " + std::to_string(model.n_outputs()) + " weight rows for " +
            std::to_string(model.classes.size()) + " classes");
  expect_key("intercept");
  for (std::int64_t o = 0; o < outputs; ++o) model.intercept.push_back(in.number("an intercept"));
  in.expect_line_end();
  expect_key("coef");
  model.coef.reserve(in.reservable_numbers(static_cast<std::uint64_t>(outputs) * static_cast<std::uint64_t>(features)));
  for (std::int64_t o = 0; o < outputs; ++o) {
    in.require_line("a weight row");
    for (std::int64_t j = 0; j < features; ++j) model.coef.push_back(in.number("a weight"));
    in.expect_line_end();
  }
  expect_key("end");
  try {
    model.check();
  } catch (const InvalidArgument& e) {
    in.fail(e.what());
  }
  return model;
}

}  // namespace snapml
