// LIBLINEAR's text model format, both ways (LIBLINEAR 2.x save_model/load_model).
//
//   solver_type NAME          e.g. L2R_LR_DUAL
//   nr_class K
//   label l_1 .. l_K          integers; absent for regression
//   nr_feature N
//   bias B                    < 0: no bias feature; else the constant feature's value
//   w
//   N (+1 with bias) lines, feature-major, each with nr_w numbers
//
// nr_w is 1 for two classes (except MCSVM_CS) and for regression, else K (1 for
// one class: LIBLINEAR's train() on labels of one value, whose predict gives that
// label everywhere and probability 1). With two classes' one column the score is
// for label[0] (LIBLINEAR's positive class is the first label it met), so it is
// negated when label[0] is our classes[0]. One-vs-rest columns
// follow LIBLINEAR's label order and are permuted into sorted class order.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <utility>

#include "model_text.h"
#include "snapml/atomic_file.h"
#include "snapml/error.h"
#include "snapml/model.h"

namespace snapml {
namespace {

struct SolverName {
  const char* name;
  LossKind loss;
  Penalty penalty;
  bool primal = false;  // LIBLINEAR's primal solver of an L2 problem (-s 0, 2, 11)
};

// LIBLINEAR's solver_type names and the problem each names here. Primal and dual
// solvers of one problem predict the same way, so their models load alike. The
// first entry of each (loss, penalty) is the name a model trained here is saved
// under: the dual solver for L2, LIBLINEAR's only solver for L1; a model the
// Newton solver trained takes the entry marked primal where there is one.
const SolverName kSolvers[] = {
    {"L2R_LR_DUAL", LossKind::Logistic, Penalty::L2},
    {"L2R_L1LOSS_SVC_DUAL", LossKind::Hinge, Penalty::L2},
    {"L2R_L2LOSS_SVC_DUAL", LossKind::SquaredHinge, Penalty::L2},
    {"L2R_L2LOSS_SVR_DUAL", LossKind::Squared, Penalty::L2},
    {"L1R_LR", LossKind::Logistic, Penalty::L1},
    {"L1R_L2LOSS_SVC", LossKind::SquaredHinge, Penalty::L1},
    {"L2R_LR", LossKind::Logistic, Penalty::L2, true},
    {"MCSVM_CS", LossKind::Hinge, Penalty::L2},
    {"L2R_L2LOSS_SVC", LossKind::SquaredHinge, Penalty::L2, true},
    {"L2R_L2LOSS_SVR", LossKind::Squared, Penalty::L2, true},
    {"L2R_L1LOSS_SVR_DUAL", LossKind::Squared, Penalty::L2},
};

// The loss a model is saved under: with two classes the multinomial loss is the
// logistic one (the softmax of two scores is the sigmoid of their difference; one
// weight row, as train() trains it), which LIBLINEAR names.
LossKind saved_loss(LossKind loss, std::size_t classes) {
  return loss_is_per_class(loss) && classes == 2 ? LossKind::Logistic : loss;
}

// nullptr for a problem LIBLINEAR has no solver_type for (the lasso). With
// `primal_solver`, the problem's primal solver where LIBLINEAR has one.
const char* solver_name(LossKind loss, Penalty penalty, bool primal_solver = false) {
  const char* first = nullptr;
  for (const SolverName& s : kSolvers) {
    if (s.loss != loss || s.penalty != penalty) continue;
    if (!primal_solver || s.primal) return s.name;
    if (!first) first = s.name;
  }
  return first;
}

}  // namespace

std::string Model::liblinear_refusal(LossKind loss, Penalty penalty, const std::vector<double>& labels,
                                     int index_base) {
  const std::string instead = ": save in snapml's format instead";
  if (index_base == 0)
    return "LIBLINEAR's model format numbers features from 1, and this model is trained on zero-based data (an "
           "index 0): its weight of index 0 would be read as index 1's" + instead;
  for (double label : labels)
    if (!(std::floor(label) == label && std::fabs(label) <= INT_MAX))
      return "LIBLINEAR's model format stores integer labels; class " + number_text(label) + " is not one" + instead;
  const LossKind saved = saved_loss(loss, labels.size());
  if (!solver_name(saved, penalty))
    return std::string("LIBLINEAR's model format has no solver_type for the ") + loss_name(saved) +
           " loss with the " + penalty_name(penalty) + " penalty" + instead;
  return "";
}

void Model::save_liblinear(const std::string& path, bool primal_solver) const {
  check();
  const std::string refusal = liblinear_refusal(loss, penalty, classes, index_base);
  require(refusal.empty(), refusal);
  const bool has_bias = intercept_scaling > 0.0;
  const int outputs = n_outputs();
  std::string text =
      std::string("solver_type ") + solver_name(saved_loss(loss, classes.size()), penalty, primal_solver) + '\n';
  text += "nr_class " + std::to_string(is_classifier() ? classes.size() : 2) + '\n';
  if (is_classifier()) {
    text += "label";
    // Two classes: LIBLINEAR's single column scores label[0], our classes[1].
    if (classes.size() == 2) text += ' ' + std::to_string(static_cast<long long>(classes[1])) + ' ' +
                              std::to_string(static_cast<long long>(classes[0]));
    else for (double label : classes) text += ' ' + std::to_string(static_cast<long long>(label));
    text += '\n';
  }
  text += "nr_feature " + std::to_string(n_features) + '\n';
  text += "bias ";
  if (has_bias) detail::append_number(text, intercept_scaling);
  else text += "-1";
  text += "\nw\n";
  AtomicFile file(path);
  file.write(text);
  std::string line;
  for (std::int32_t j = 0; j <= n_features; ++j) {
    if (j == n_features && !has_bias) break;
    line.clear();
    for (int o = 0; o < outputs; ++o) {
      const double value = j < n_features ? coef_row(o)[j] : intercept[static_cast<std::size_t>(o)] / intercept_scaling;
      detail::append_number(line, value);
      line += ' ';
    }
    line += '\n';
    file.write(line);
  }
  file.commit();
}

Model Model::load_liblinear(const std::string& path) { return parse_liblinear(read_text(path), path); }

Model Model::parse_liblinear(std::string text, const std::string& path) {
  detail::ModelText in(path, std::move(text));
  Model model;
  std::string solver;
  std::int64_t n_classes = -1;
  std::int64_t features = -1;
  double bias = -1.0;
  std::vector<double> labels;
  std::vector<std::string> seen;  // the header's keywords so far
  for (;;) {
    in.require_line("the 'w' line");
    const std::string key(in.token());
    if (key == "w") break;
    // A second nr_class or label line would leave labels and nr_class disagreeing,
    // and the weights indexed past their rows (shown by fuzz_model_liblinear under AddressSanitizer).
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) in.fail("'" + key + "' appears twice in the header");
    seen.push_back(key);
    if (key == "solver_type") {
      solver = std::string(in.token());
      const auto found = std::find_if(std::begin(kSolvers), std::end(kSolvers),
                                      [&](const SolverName& s) { return solver == s.name; });
      if (found == std::end(kSolvers)) in.fail("unsupported LIBLINEAR solver_type '" + solver + "'");
      model.loss = found->loss;
      model.penalty = found->penalty;
    } else if (key == "nr_class") {
      n_classes = in.integer("nr_class");
      if (n_classes < 1) in.fail("nr_class must be at least 1");
    } else if (key == "label") {
      if (n_classes < 1) in.fail("'label' must follow nr_class");
      for (std::int64_t k = 0; k < n_classes; ++k) {
        labels.push_back(static_cast<double>(in.integer("a label")));
        // Found here, the message names this line, not the last weight line's.
        if (std::find(labels.begin(), labels.end() - 1, labels.back()) != labels.end() - 1)
          in.fail("the label line repeats a label");
      }
    } else if (key == "nr_feature") {
      features = in.integer("nr_feature");
      if (features < 0 || features > INT32_MAX) in.fail("nr_feature is out of range");
    } else if (key == "bias") {
      bias = in.number("bias");
    } else {
      in.fail("unknown LIBLINEAR model keyword '" + key + "'");
    }
    in.expect_line_end();
  }
  if (solver.empty()) in.fail("the header has no solver_type");
  if (n_classes < 0) in.fail("the header has no nr_class");
  if (features < 0) in.fail("the header has no nr_feature");
  const bool classifier = is_classification(model.loss);
  if (classifier && labels.empty()) in.fail("a classifier's header needs a 'label' line");
  const bool crammer_singer = solver == "MCSVM_CS";
  const std::int64_t columns = (n_classes == 2 && !crammer_singer) || !classifier ? 1 : n_classes;
  const std::int64_t rows = features + (bias >= 0.0 ? 1 : 0);

  std::vector<double> w;  // feature-major, as in the file
  w.reserve(in.reservable_numbers(static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(columns)));
  for (std::int64_t i = 0; i < rows; ++i) {
    in.require_line("a weight line");
    for (std::int64_t c = 0; c < columns; ++c) w.push_back(in.number("a weight"));
    in.expect_line_end();
  }
  if (in.next_line()) in.fail("unexpected text after the last weight line");

  model.n_features = static_cast<std::int32_t>(features);
  model.index_base = 1;  // LIBLINEAR's w line j is feature index j + 1
  model.intercept_scaling = bias > 0.0 ? bias : 0.0;
  // source[o]: LIBLINEAR's column for our output o; sign: +1, or -1 to flip a binary score.
  std::vector<std::int64_t> source;
  double sign = 1.0;
  std::int64_t subtract = -1;  // MCSVM_CS with two classes: score = column(pos) - column(neg)
  if (classifier) {
    model.classes = labels;
    std::sort(model.classes.begin(), model.classes.end());
    if (n_classes == 2) {
      const std::int64_t positive = labels[0] == model.classes[1] ? 0 : 1;
      if (crammer_singer) {
        source = {positive};
        subtract = 1 - positive;
      } else {
        source = {0};
        sign = positive == 0 ? 1.0 : -1.0;
      }
    } else {
      for (double label : model.classes)
        source.push_back(std::find(labels.begin(), labels.end(), label) - labels.begin());
    }
  } else {
    source = {0};
  }
  const int outputs = model.n_outputs();
  model.coef.assign(static_cast<std::size_t>(outputs) * static_cast<std::size_t>(features), 0.0);
  model.intercept.assign(static_cast<std::size_t>(outputs), 0.0);
  for (int o = 0; o < outputs; ++o) {
    auto weight = [&](std::int64_t i) {
      double value = sign * w[static_cast<std::size_t>(i * columns + source[static_cast<std::size_t>(o)])];
      if (subtract >= 0) value -= w[static_cast<std::size_t>(i * columns + subtract)];
      return value;
    };
    for (std::int64_t j = 0; j < features; ++j)
      model.coef[static_cast<std::size_t>(o) * static_cast<std::size_t>(features) + static_cast<std::size_t>(j)] = weight(j);
    if (bias > 0.0) model.intercept[static_cast<std::size_t>(o)] = weight(features) * bias;
  }
  model.check();
  return model;
}

}  // namespace snapml
