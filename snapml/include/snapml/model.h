// A trained linear model: what train() returns, predictions, and its files.
//
// Binary classification and regression keep one weight row; more than two
// classes keep one row per class (one-vs-rest, or the multinomial loss's rows,
// trained jointly). Classes are sorted ascending, as
// scikit-learn's classes_; in a binary model row 0 scores classes[1], the
// positive class. A model of one class is LIBLINEAR's for labels of one value
// (its train() keeps one weight row and predicts that label everywhere; train()
// here refuses such data, as scikit-learn does): it is read, predicted and
// written, with decision_function the row's score and probability 1. The model
// reads and writes its own text format and LIBLINEAR's (model_liblinear.cpp),
// both through AtomicFile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "snapml/csr_view.h"
#include "snapml/dataset.h"
#include "snapml/losses/dispatch.h"
#include "snapml/penalty.h"

namespace snapml {

class Model {
 public:
  LossKind loss = LossKind::Logistic;
  Penalty penalty = Penalty::L2;
  std::vector<double> classes;  // sorted; empty for regression
  std::int32_t n_features = 0;
  // The svmlight index of feature column 0 in the text the model was trained on:
  // 1 (LIBLINEAR's convention, and every LIBLINEAR model) or 0; -1 where no text
  // said (a .snap file, arrays). Data predicted with the model is read with the
  // same base, so that an index names the same feature in both files; the base
  // was guessed per file, and a training file with one index 0 shifted every
  // feature of a one-based test file by one (issue 36, case 4).
  int index_base = -1;
  std::vector<double> coef;       // n_outputs() rows of n_features, row-major
  std::vector<double> intercept;  // n_outputs(): intercept_scaling * the constant feature's weight
  double intercept_scaling = 0.0;  // 0: trained without intercept

  // Hyper-parameters the model was trained with (reported, saved, not used to predict).
  double C = 1.0;
  double tol = 0.0;
  double epsilon = 0.0;
  int max_iter = 0;
  std::vector<double> class_weight;  // one per class (empty for regression)

  bool is_classifier() const { return !classes.empty(); }
  // Weight rows: 1 for regression and one or two classes, else one per class.
  int n_outputs() const { return classes.size() > 2 ? static_cast<int>(classes.size()) : 1; }
  const double* coef_row(int output) const {
    return coef.data() + static_cast<std::size_t>(output) * static_cast<std::size_t>(n_features);
  }
  // Throws InvalidArgument when the sizes disagree or a class is repeated.
  void check() const;

  // Scores, n_rows x n_outputs row-major: w.x + intercept. Features at or past
  // n_features are ignored (a test set may have more columns than the training set).
  // threads: 0 for every OpenMP thread.
  void decision_function(const CsrView& x, double* out, int threads = 0) const;
  std::vector<double> decision_function(const Dataset& data, int threads = 0) const;
  // Labels: the class with the larger score (binary: classes[1] when the score > 0,
  // as LIBLINEAR; one class: that class); regression: the score.
  void predict(const CsrView& x, double* out, int threads = 0) const;
  std::vector<double> predict(const Dataset& data, int threads = 0) const;
  // Logistic and multinomial models only: n_rows x n_classes, columns in classes
  // order. One class: 1. Binary: sigmoid of the score; one-vs-rest: each class's sigmoid
  // normalised to sum 1 (LIBLINEAR's predict_probability); multinomial: the
  // softmax of the scores.
  void predict_proba(const CsrView& x, double* out, int threads = 0) const;
  std::vector<double> predict_proba(const Dataset& data, int threads = 0) const;

  // Our text format (docs/formats.md): every number round-trips exactly.
  void save(const std::string& path) const;
  static Model load(const std::string& path);
  // LIBLINEAR's text model format (solver_type, nr_class, label, nr_feature, bias, w).
  // Writing needs integer class labels (LIBLINEAR stores them as int). The
  // solver_type names the problem's dual solver, or with `primal_solver` (a model
  // the primal Newton solver trained: snap-train -s 0, 2, 11) its primal one
  // (L2R_LR, L2R_L2LOSS_SVC, L2R_L2LOSS_SVR), as LIBLINEAR's -s names them.
  void save_liblinear(const std::string& path, bool primal_solver = false) const;
  static Model load_liblinear(const std::string& path);
  // A model file's whole text, read once (a pipe or a FIFO serves as a model
  // file); IoError naming `path` when it cannot be read. parse and
  // parse_liblinear read a model from such text, naming `path` in their errors,
  // as load and load_liblinear do from the file.
  static std::string read_text(const std::string& path);
  static Model parse(std::string text, const std::string& path);
  static Model parse_liblinear(std::string text, const std::string& path);
  // Why a model of this loss, penalty, labels and index base cannot be saved in
  // LIBLINEAR's format, "" when it can: a label that is not an integer, a problem
  // with no LIBLINEAR solver_type (the lasso), zero-based data (LIBLINEAR's
  // features start at 1). save_liblinear refuses with it; snap-train asks before
  // it trains, rather than after a long fit.
  static std::string liblinear_refusal(LossKind loss, Penalty penalty, const std::vector<double>& labels,
                                       int index_base);
};

}  // namespace snapml
