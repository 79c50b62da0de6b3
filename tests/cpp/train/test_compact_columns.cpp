// A fit over the columns the data uses (snapml/src/train/compact_columns.h): the
// same model, bit for bit, as a fit of the same rows stored without the empty
// columns, with 0 in every empty column; over wide columns with a few frequent
// ones spread among them, the same as a fit of the rows stored with their
// columns numbered by count; and when neither is made.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "../fixtures/random_problem.h"
#include "../../../snapml/src/train/compact_columns.h"
#include "snapml/chunk_source.h"
#include "snapml/model.h"
#include "snapml/train.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

constexpr std::int32_t kSpread = 3;  // column j is stored as kSpread j + 1

// `data`'s rows with column j stored as column(j), in a width of `width`: the
// rows, chunks, values, weights and each row's order of entries unchanged.
template <typename Column>
Dataset moved_columns(const Dataset& data, const Column& column, std::int32_t width) {
  std::vector<CsrChunk> chunks;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    CsrChunk chunk;
    chunk.first_row = x.first_row;
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      std::vector<std::int32_t> columns;
      for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) columns.push_back(column(x.col_indices[e]));
      chunk.add_row(x.labels[row], columns.data(), x.values + x.row_begin(row), static_cast<std::int64_t>(columns.size()));
      if (x.weights) chunk.weights.push_back(x.weights[row]);
    }
    chunks.push_back(std::move(chunk));
  }
  return Dataset(std::move(chunks), width);
}

// `data` with column j moved to kSpread j + 1, in a width of kSpread n + 2 (or
// `width`): two of every three columns empty (or more).
Dataset spread(const Dataset& data, std::int32_t width = 0) {
  return moved_columns(data, [](std::int32_t j) { return kSpread * j + 1; },
                       width > 0 ? width : kSpread * data.n_features() + 2);
}

void expect_spread_model(const Model& wide, const Model& narrow, const std::string& what) {
  ASSERT_GE(wide.n_features, kSpread * narrow.n_features) << what;
  ASSERT_EQ(wide.n_outputs(), narrow.n_outputs()) << what;
  for (int r = 0; r < narrow.n_outputs(); ++r) {
    const double* w = wide.coef_row(r);
    const double* n = narrow.coef_row(r);
    for (std::int32_t j = 0; j < wide.n_features; ++j) {
      const double expected = j % kSpread == 1 && j / kSpread < narrow.n_features ? n[j / kSpread] : 0.0;
      EXPECT_EQ(0, std::memcmp(&w[j], &expected, sizeof(double))) << what << " row " << r << " column " << j
                                                                  << ": " << w[j] << " against " << expected;
    }
    EXPECT_EQ(wide.intercept[static_cast<std::size_t>(r)], narrow.intercept[static_cast<std::size_t>(r)]) << what;
  }
}

struct Case {
  const char* what;
  TrainParameters parameters;
  bool regression = false;
  bool three_classes = false;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  TrainParameters p;
  p.tol = 1e-6;
  p.threads = 2;
  p.seed = 3;
  all.push_back({"logistic, dual", p});
  p.solver = SolverChoice::Primal;
  all.push_back({"logistic, primal", p});
  p.solver = SolverChoice::Auto;
  p.penalise_intercept = false;
  all.push_back({"logistic, auto, free intercept", p});
  TrainParameters hinge = p;
  hinge.loss = LossKind::Hinge;
  hinge.solver = SolverChoice::Dual;
  hinge.penalise_intercept = true;
  hinge.tol = 1e-3;
  all.push_back({"hinge", hinge});
  TrainParameters squared = p;
  squared.loss = LossKind::Squared;
  all.push_back({"squared, free intercept (targets shifted)", squared, true});
  TrainParameters l1 = p;
  l1.penalty = Penalty::L1;
  l1.solver = SolverChoice::Auto;
  all.push_back({"logistic, l1", l1});
  TrainParameters multinomial = p;
  multinomial.loss = LossKind::Multinomial;
  all.push_back({"multinomial", multinomial, false, true});
  return all;
}

TEST(CompactColumns, AFitOverTheUsedColumnsIsTheFitWithoutTheEmptyOnes) {
  for (const Case& c : cases()) {
    RandomProblemOptions o;
    o.regression = c.regression;
    const Dataset narrow = c.three_classes ? three_classes(o) : random_problem(o);
    const Dataset wide = spread(narrow);
    const Model narrow_model = train(narrow, c.parameters).model;
    const Model wide_model = train(wide, c.parameters).model;
    expect_spread_model(wide_model, narrow_model, c.what);
    // Wider than the rows' non-zeros: the columns found without per-column arrays.
    const Dataset wider = spread(narrow, static_cast<std::int32_t>(4 * narrow.nnz()));
    expect_spread_model(train(wider, c.parameters).model, narrow_model, std::string(c.what) + ", wider than nnz");
    // A warm start from the wide model starts the same fit as the narrow one's.
    TrainParameters again = c.parameters;
    again.warm_start = &wide_model;
    TrainParameters again_narrow = c.parameters;
    again_narrow.warm_start = &narrow_model;
    expect_spread_model(train(wide, again).model, train(narrow, again_narrow).model,
                        std::string(c.what) + ", warm started");
  }
}

TEST(CompactColumns, OnlyWhenFewColumnsAreUsedAndTheCopyFitsTheBudget) {
  const Dataset narrow = random_problem({});
  const Dataset wide = spread(narrow);
  InMemorySource all_used(narrow), a_third_used(wide);
  EXPECT_TRUE(detail::fit_columns(all_used, 0, 1).empty());
  const std::vector<std::int32_t> used = detail::fit_columns(a_third_used, 0, 1);
  ASSERT_EQ(used.size(), static_cast<std::size_t>(narrow.n_features()));
  for (std::size_t j = 0; j < used.size(); ++j) EXPECT_EQ(used[j], kSpread * static_cast<std::int32_t>(j) + 1);
  // The rows (8 bytes a non-zero, 20 a row) and the larger of the counting and
  // the copy (4 bytes a non-zero) must fit max_memory.
  const std::uint64_t bytes = detail::fit_columns_bytes(a_third_used, 1);
  EXPECT_GE(bytes, static_cast<std::uint64_t>(12 * wide.nnz() + 20 * wide.n_rows()));
  EXPECT_EQ(detail::fit_columns(a_third_used, bytes, 1).size(), used.size());
  EXPECT_TRUE(detail::fit_columns(a_third_used, bytes - 1, 1).empty());
  EXPECT_EQ(detail::fit_columns(a_third_used, 0, 3), used);
  // The compacted rows are the narrow rows, however wide the data (past its
  // non-zeros: no per-column arrays).
  const Dataset wider = spread(narrow, static_cast<std::int32_t>(4 * narrow.nnz()));
  InMemorySource sparse_columns(wider);
  ASSERT_EQ(detail::fit_columns(sparse_columns, 0, 1), used);
  for (ChunkSource* source : {static_cast<ChunkSource*>(&a_third_used), static_cast<ChunkSource*>(&sparse_columns)}) {
    detail::CompactColumns compact(*source, used, 2);
    ASSERT_EQ(compact.n_chunks(), narrow.n_chunks());
    EXPECT_EQ(compact.n_features(), narrow.n_features());
    for (std::size_t c = 0; c < narrow.n_chunks(); ++c) {
      const CsrView a = compact.chunk(c), b = narrow.view(c);
      ASSERT_EQ(a.nnz(), b.nnz());
      for (std::int64_t e = 0; e < a.nnz(); ++e) EXPECT_EQ(a.col_indices[e], b.col_indices[e]);
    }
  }
}

// Rows over more columns than kCachedColumns: kHot frequent columns (each in
// about a quarter of the rows) at `hot_first` or spread over the top of the
// width, and kCold columns used once each, in a width of `width`. Chunks of 4,096
// rows; a row's entries in the order drawn (not ascending).
constexpr std::int32_t kHot = 64;
constexpr std::int32_t kCold = detail::kCachedColumns + 8192;
constexpr std::int64_t kRows = 12000;

Dataset wide_rows(bool hot_first, std::int32_t width) {
  std::mt19937 random(11);
  std::vector<std::int32_t> hot(kHot), cold(kCold);
  for (std::int32_t h = 0; h < kHot; ++h) hot[h] = hot_first ? h : width - 1 - 37 * h;
  for (std::int32_t c = 0; c < kCold; ++c) cold[c] = hot_first ? kHot + c : c;
  std::shuffle(cold.begin(), cold.end(), random);
  std::vector<CsrChunk> chunks;
  std::size_t next_cold = 0;
  for (std::int64_t row = 0; row < kRows; ++row) {
    if (row % 4096 == 0) {
      chunks.emplace_back();
      chunks.back().first_row = row;
    }
    std::vector<std::int32_t> columns;
    // Hot column h in a row with probability 0.1 + 0.3 h / kHot.
    double margin = 0.0;
    for (std::int32_t h = 0; h < kHot; ++h)
      if (std::uniform_real_distribution<double>(0.0, 1.0)(random) < 0.1 + 0.3 * h / kHot) {
        columns.push_back(hot[h]);
        margin += h % 3 == 0 ? 0.5 : -0.2;
      }
    const std::size_t colds = std::min<std::size_t>(12, cold.size() - next_cold);
    for (std::size_t k = 0; k < colds; ++k) columns.push_back(cold[next_cold++]);
    std::shuffle(columns.begin(), columns.end(), random);
    std::vector<float> values(columns.size());
    for (std::size_t e = 0; e < values.size(); ++e) values[e] = e % 2 == 0 ? 1.0f : 0.5f;
    const double label = margin + std::normal_distribution<double>(0.0, 1.0)(random) > 0.0 ? 1.0 : -1.0;
    chunks.back().add_row(label, columns.data(), values.data(), static_cast<std::int64_t>(columns.size()));
  }
  return Dataset(std::move(chunks), width);
}

// `data`'s rows with column used[j] stored as j, entries in their order.
Dataset renumbered(const Dataset& data, const std::vector<std::int32_t>& used) {
  std::vector<std::int32_t> place(static_cast<std::size_t>(data.n_features()), -1);
  for (std::size_t j = 0; j < used.size(); ++j) place[static_cast<std::size_t>(used[j])] = static_cast<std::int32_t>(j);
  return moved_columns(data, [&](std::int32_t j) { return place[static_cast<std::size_t>(j)]; },
                       static_cast<std::int32_t>(used.size()));
}

TEST(CompactColumns, WideColumnsAreNumberedByTheirCountsWhereTheFrequentOnesAreSpread) {
  const std::int32_t width = kHot + kCold + 5000;  // 5,000 columns empty
  const Dataset spread_hot = wide_rows(false, width);
  InMemorySource source(spread_hot);
  const std::vector<std::int32_t> order = detail::fit_columns(source, 0, 2);
  ASSERT_EQ(order.size(), static_cast<std::size_t>(kHot + kCold));
  // The hot columns first, most used first, then the columns used once, ascending.
  std::vector<std::int64_t> count(static_cast<std::size_t>(width), 0);
  for (std::size_t c = 0; c < spread_hot.n_chunks(); ++c) {
    const CsrView x = spread_hot.view(c);
    for (std::int64_t e = 0; e < x.nnz(); ++e) ++count[static_cast<std::size_t>(x.col_indices[e])];
  }
  for (std::size_t j = 1; j < order.size(); ++j) {
    const std::int64_t before = count[static_cast<std::size_t>(order[j - 1])], now = count[static_cast<std::size_t>(order[j])];
    ASSERT_TRUE(before > now || (before == now && order[j - 1] < order[j])) << "place " << j;
  }
  EXPECT_GT(count[static_cast<std::size_t>(order[kHot - 1])], 1);
  EXPECT_EQ(count[static_cast<std::size_t>(order[kHot])], 1);
  // The same order whatever the threads that count.
  EXPECT_EQ(detail::fit_columns(source, 0, 1), order);
  EXPECT_EQ(detail::fit_columns(source, 0, 7), order);
  // The budget holds the order's arrays beside the rows: the counts by column,
  // and 24 bytes a used column (the used columns, the radix sort's two arrays of
  // 8 bytes, the places).
  const auto used_columns = static_cast<std::uint64_t>(kHot + kCold);
  EXPECT_GE(detail::fit_columns_bytes(source, 2), static_cast<std::uint64_t>(8 * spread_hot.nnz() + 20 * kRows) +
                                                      4 * static_cast<std::uint64_t>(width) + 24 * used_columns);

  // Each fit is the fit of the rows stored with their columns so numbered, bit
  // for bit, with 0 in the empty columns.
  const Dataset by_count = renumbered(spread_hot, order);
  InMemorySource by_count_source(by_count);
  EXPECT_TRUE(detail::fit_columns(by_count_source, 0, 2).empty());  // already in order, every column used
  // One thread (two threads' steps on a shared w interleave differently from run
  // to run on these rows), and the primal solver on two as well.
  std::vector<Case> fits;
  for (const Case& c : cases())
    if (!c.regression && !c.three_classes) fits.push_back(c);
  for (Case& c : fits) c.parameters.threads = 1;
  fits.push_back(cases()[1]);
  for (Case& c : fits) {
    c.parameters.C = 0.1;
    c.parameters.tol = 1e-4;
    const Model wide = train(spread_hot, c.parameters).model;
    const Model narrow = train(by_count, c.parameters).model;
    ASSERT_EQ(wide.n_features, width) << c.what;
    std::vector<double> expected_coef(static_cast<std::size_t>(width), 0.0);
    for (std::size_t k = 0; k < order.size(); ++k) expected_coef[static_cast<std::size_t>(order[k])] = narrow.coef[k];
    for (std::int32_t j = 0; j < width; ++j) {
      const double expected = expected_coef[static_cast<std::size_t>(j)];
      ASSERT_EQ(0, std::memcmp(&wide.coef[static_cast<std::size_t>(j)], &expected, sizeof(double)))
          << c.what << " column " << j << ": " << wide.coef[static_cast<std::size_t>(j)] << " against " << expected;
    }
    EXPECT_EQ(wide.intercept, narrow.intercept) << c.what;
  }
}

TEST(CompactColumns, ColumnsAlreadyNumberedByFrequencyKeepTheirOrder) {
  // The frequent columns first (a text set's words numbered by frequency): the
  // first kCachedColumns already hold what the most used would, and every
  // column is used, so the fit runs on the rows as they are.
  const Dataset hot_first = wide_rows(true, kHot + kCold);
  InMemorySource source(hot_first);
  EXPECT_TRUE(detail::fit_columns(source, 0, 2).empty());
  // With a quarter of the columns empty, compacted in their order.
  const Dataset with_empty = wide_rows(true, (kHot + kCold) * 4 / 3 + 100);
  InMemorySource with_empty_source(with_empty);
  const std::vector<std::int32_t> used = detail::fit_columns(with_empty_source, 0, 2);
  ASSERT_EQ(used.size(), static_cast<std::size_t>(kHot + kCold));
  for (std::size_t j = 0; j < used.size(); ++j) ASSERT_EQ(used[j], static_cast<std::int32_t>(j));
}

}  // namespace
