#include "cross_validation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>

#include "snapml/error.h"
#include "snapml/losses/dispatch.h"
#include "snapml/metrics.h"
#include "snapml/solver_factory.h"

namespace snapml::cli {
namespace {

struct RowRef {
  std::size_t chunk;
  std::int64_t row;
};

double label_of(const Dataset& data, const RowRef& ref) {
  return data.chunk(ref.chunk).labels[static_cast<std::size_t>(ref.row)];
}

// One chunk holding the rows `rows` of `data`, in that order, weights included.
Dataset gather(const Dataset& data, const std::vector<RowRef>& all_rows, const std::vector<std::size_t>& rows) {
  CsrChunk out;
  bool weighted = false;
  for (const CsrChunk& chunk : data.chunks()) weighted = weighted || !chunk.weights.empty();
  for (std::size_t index : rows) {
    const RowRef& ref = all_rows[index];
    const CsrChunk& chunk = data.chunk(ref.chunk);
    const auto begin = static_cast<std::size_t>(chunk.row_offsets[static_cast<std::size_t>(ref.row)]);
    const auto end = static_cast<std::size_t>(chunk.row_offsets[static_cast<std::size_t>(ref.row) + 1]);
    out.add_row(chunk.labels[static_cast<std::size_t>(ref.row)], chunk.col_indices.data() + begin,
                chunk.values.data() + begin, static_cast<std::int64_t>(end - begin));
    if (weighted)
      out.weights.push_back(chunk.weights.empty() ? 1.0f : chunk.weights[static_cast<std::size_t>(ref.row)]);
  }
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(out));
  return Dataset(std::move(chunks), data.n_features());
}

// A fold's rows kept across the C values of a GPU -C search: its training rows,
// and the one source over them whose identity() keys the rows the session keeps
// on the device (solver_factory.h), so each fold uploads once for the whole path.
// The host keeps every fold's training rows meanwhile ((k - 1) times the data).
struct KeptFold {
  // Held by pointer: the source refers to these rows, which must stay put while
  // the vector of folds grows (held by value, the second C's fits read the first
  // folds' rows where a reallocation had moved them from: a crash of every
  // `snap-train -C --gpu`, seen on the device run of 2026-11-27).
  std::unique_ptr<Dataset> training;
  std::unique_ptr<InMemorySource> source;
};

std::vector<double> fold_predictions(const Dataset& data, const TrainParameters& parameters, int folds,
                                     std::uint64_t seed, const std::function<void(int fold)>& on_fold,
                                     std::vector<Model>& models, std::vector<KeptFold>* kept);

}  // namespace

std::vector<double> cross_validation_predictions(const Dataset& data, const TrainParameters& parameters,
                                                 int folds, std::uint64_t seed,
                                                 const std::function<void(int fold)>& on_fold) {
  std::vector<Model> cold;
  return cross_validation_predictions(data, parameters, folds, seed, on_fold, cold);
}

std::vector<double> cross_validation_predictions(const Dataset& data, const TrainParameters& parameters,
                                                 int folds, std::uint64_t seed,
                                                 const std::function<void(int fold)>& on_fold,
                                                 std::vector<Model>& models) {
  return fold_predictions(data, parameters, folds, seed, on_fold, models, nullptr);
}

namespace {

std::vector<double> fold_predictions(const Dataset& data, const TrainParameters& parameters, int folds,
                                     std::uint64_t seed, const std::function<void(int fold)>& on_fold,
                                     std::vector<Model>& models, std::vector<KeptFold>* kept) {
  const auto n = static_cast<std::size_t>(data.n_rows());
  require(folds >= 2 && static_cast<std::size_t>(folds) <= n,
          "-v " + std::to_string(folds) + ": the number of folds must be between 2 and the number of rows (" +
              std::to_string(n) + ")");
  std::vector<RowRef> all_rows;
  all_rows.reserve(n);
  for (std::size_t c = 0; c < data.n_chunks(); ++c)
    for (std::int64_t r = 0; r < data.chunk(c).n_rows(); ++r) all_rows.push_back({c, r});

  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 random(seed);
  std::shuffle(order.begin(), order.end(), random);

  require(models.empty() || models.size() == static_cast<std::size_t>(folds),
          "cross-validation warm start: one model per fold");
  const bool warm = !models.empty();
  models.resize(static_cast<std::size_t>(folds));
  std::vector<double> predictions(n);
  for (int fold = 0; fold < folds; ++fold) {
    if (on_fold) on_fold(fold);
    // Fold f holds the shuffled positions [f n / k, (f + 1) n / k), as in LIBLINEAR.
    const std::size_t begin = n * static_cast<std::size_t>(fold) / static_cast<std::size_t>(folds);
    const std::size_t end = n * static_cast<std::size_t>(fold + 1) / static_cast<std::size_t>(folds);
    std::vector<std::size_t> held_out(order.begin() + static_cast<std::ptrdiff_t>(begin),
                                      order.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<bool> is_held_out(n, false);
    for (std::size_t row : held_out) is_held_out[row] = true;
    std::vector<std::size_t> training;
    training.reserve(n - held_out.size());
    for (std::size_t row = 0; row < n; ++row)
      if (!is_held_out[row]) training.push_back(row);

    // Training rows of one class (a small class, or few rows a fold): LIBLINEAR
    // scores the fold with that class predicted everywhere, at every C, as
    // scikit-learn's LogisticRegressionCV does; train() refuses one class. No model
    // is kept for the fold (nothing to warm-start from).
    if (is_classification(parameters.loss) && !training.empty()) {
      const double first = label_of(data, all_rows[training.front()]);
      bool one_class = true;
      for (std::size_t row : training) one_class = one_class && label_of(data, all_rows[row]) == first;
      if (one_class) {
        for (std::size_t row : held_out) predictions[row] = first;
        if (kept && kept->size() <= static_cast<std::size_t>(fold)) kept->emplace_back();
        continue;
      }
    }
    TrainParameters fold_parameters = parameters;
    if (warm) fold_parameters.warm_start = &models[static_cast<std::size_t>(fold)];
    Model model;
    if (kept) {  // the same source every C: the session's rows on the device serve them all
      if (kept->size() <= static_cast<std::size_t>(fold)) {
        KeptFold& made = kept->emplace_back();
        made.training = std::make_unique<Dataset>(gather(data, all_rows, training));
        made.source = std::make_unique<InMemorySource>(*made.training);
      }
      LocalCommunicator local;
      model = train(*(*kept)[static_cast<std::size_t>(fold)].source, local, fold_parameters).model;
    } else {
      model = train(gather(data, all_rows, training), fold_parameters).model;
    }
    const std::vector<double> fold_predictions = model.predict(gather(data, all_rows, held_out), parameters.threads);
    for (std::size_t i = 0; i < held_out.size(); ++i) predictions[held_out[i]] = fold_predictions[i];
    models[static_cast<std::size_t>(fold)] = std::move(model);
  }
  return predictions;
}

}  // namespace

double search_start_C(const Dataset& data, const TrainParameters& parameters) {
  const double bias = parameters.fit_intercept ? parameters.intercept_scaling : 0.0;
  double largest = 0.0;
  for (const CsrChunk& chunk : data.chunks()) {
    for (std::int64_t row = 0; row < chunk.n_rows(); ++row) {
      double norm = bias * bias;
      for (auto k = chunk.row_offsets[static_cast<std::size_t>(row)];
           k < chunk.row_offsets[static_cast<std::size_t>(row) + 1]; ++k)
        norm += static_cast<double>(chunk.values[static_cast<std::size_t>(k)]) * chunk.values[static_cast<std::size_t>(k)];
      largest = std::max(largest, norm);
    }
  }
  const double rows = static_cast<double>(std::max<std::int64_t>(data.n_rows(), 1));
  double smallest = 1.0 / (rows * std::max(largest, 1e-300));
  if (parameters.loss != LossKind::Logistic) smallest *= 0.5;  // LIBLINEAR's L2-loss SVM rule
  return std::pow(2.0, std::floor(std::log2(smallest)));
}

namespace {

// ||coefficients and intercepts of a - those of b||.
double weight_distance(const Model& a, const Model& b) {
  double sum = 0.0;
  for (std::size_t k = 0; k < a.coef.size() && k < b.coef.size(); ++k) sum += (a.coef[k] - b.coef[k]) * (a.coef[k] - b.coef[k]);
  for (std::size_t k = 0; k < a.intercept.size() && k < b.intercept.size(); ++k)
    sum += (a.intercept[k] - b.intercept[k]) * (a.intercept[k] - b.intercept[k]);
  return std::sqrt(sum);
}

}  // namespace

BestC find_best_C(const Dataset& data, const TrainParameters& parameters, int folds, std::uint64_t seed,
                  double start_C, double max_C, const std::function<void(double C, double score)>& on_C) {
  const bool classification = is_classification(parameters.loss);
  const std::vector<double> truth = data.labels();
  TrainParameters step = parameters;
  step.on_epoch = nullptr;
  step.C = start_C > 0.0 ? start_C : search_start_C(data, parameters);
  // Else no C is tried and nothing is found: "Best C = 0 CV accuracy = -100%".
  require(step.C <= max_C, "-C: the search starts at C = " + number_text(step.C) + ", above its largest C (" +
                               number_text(max_C) + "); give a -c of at most " + number_text(max_C));
  BestC best;
  best.score = classification ? -1.0 : std::numeric_limits<double>::infinity();
  std::vector<Model> models;
  // On a GPU one session for the whole search, keeping each fold's training rows
  // on the device: every fold uploads once, not once per C.
  std::vector<KeptFold> kept;
  if (step.use_gpu && !step.session) {
    SessionOptions options;
    options.row_sets = folds;
    step.session = make_solver_session(true, step.device_ids, options);
  }
  int unchanged = 0;  // C values in a row after which no fold's weights moved
  while (step.C <= max_C) {
    const std::vector<Model> previous = models;
    const std::vector<double> predicted =
        fold_predictions(data, step, folds, seed, {}, models, step.use_gpu ? &kept : nullptr);
    const double score = classification ? accuracy(truth.data(), predicted.data(), truth.size())
                                        : mean_squared_error(truth.data(), predicted.data(), truth.size());
    if (classification ? score > best.score : score < best.score) {
      best.C = step.C;
      best.score = score;
    }
    if (on_C) on_C(step.C, score);
    bool moved = previous.empty();
    for (std::size_t fold = 0; fold < previous.size() && !moved; ++fold)
      moved = weight_distance(previous[fold], models[fold]) > 1e-15;
    // Weights that stay at zero are the small Cs of an L1 penalty, below the
    // first C that lets a feature in, not the large Cs past which nothing
    // changes: they stopped -s 6's search at 2^-12 with every weight 0.
    bool all_zero = true;
    for (const Model& model : models)
      all_zero = all_zero && std::all_of(model.coef.begin(), model.coef.end(), [](double w) { return w == 0.0; });
    unchanged = moved || all_zero ? 0 : unchanged + 1;
    if (unchanged == 5) return best;
    step.C *= 2.0;
  }
  best.reached_max = true;
  return best;
}

}  // namespace snapml::cli
