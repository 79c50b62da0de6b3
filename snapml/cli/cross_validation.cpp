#include "cross_validation.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "snapml/error.h"

namespace snapml::cli {
namespace {

struct RowRef {
  std::size_t chunk;
  std::int64_t row;
};

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

}  // namespace

std::vector<double> cross_validation_predictions(const Dataset& data, const TrainParameters& parameters,
                                                 int folds, std::uint64_t seed,
                                                 const std::function<void(int fold)>& on_fold) {
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

    const Model model = train(gather(data, all_rows, training), parameters).model;
    const std::vector<double> fold_predictions = model.predict(gather(data, all_rows, held_out), parameters.threads);
    for (std::size_t i = 0; i < held_out.size(); ++i) predictions[held_out[i]] = fold_predictions[i];
  }
  return predictions;
}

}  // namespace snapml::cli
