// A fit over the columns the data uses (snapml/src/train/compact_columns.h): the
// same model, bit for bit, as a fit of the same rows stored without the empty
// columns, with 0 in every empty column; and when it is not made.
#include <gtest/gtest.h>

#include <cstring>
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

// `data` with column j moved to kSpread j + 1, in a width of kSpread n + 2 (or
// `width`): two of every three columns empty (or more), the rows, chunks and
// values unchanged.
Dataset spread(const Dataset& data, std::int32_t width = 0) {
  std::vector<CsrChunk> chunks;
  for (std::size_t c = 0; c < data.n_chunks(); ++c) {
    const CsrView x = data.view(c);
    CsrChunk chunk;
    chunk.first_row = x.first_row;
    for (std::int64_t row = 0; row < x.n_rows; ++row) {
      std::vector<std::int32_t> columns;
      for (std::int64_t e = x.row_begin(row); e < x.row_end(row); ++e) columns.push_back(kSpread * x.col_indices[e] + 1);
      chunk.add_row(x.labels[row], columns.data(), x.values + x.row_begin(row), static_cast<std::int64_t>(columns.size()));
      if (x.weights) chunk.weights.push_back(x.weights[row]);
    }
    chunks.push_back(std::move(chunk));
  }
  return Dataset(std::move(chunks), width > 0 ? width : kSpread * data.n_features() + 2);
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
  EXPECT_TRUE(detail::columns_worth_compacting(all_used, 0).empty());
  const std::vector<std::int32_t> used = detail::columns_worth_compacting(a_third_used, 0);
  ASSERT_EQ(used.size(), static_cast<std::size_t>(narrow.n_features()));
  for (std::size_t j = 0; j < used.size(); ++j) EXPECT_EQ(used[j], kSpread * static_cast<std::int32_t>(j) + 1);
  // The rows (12 bytes a non-zero with the copy, 20 a row) must fit max_memory.
  const auto bytes = static_cast<std::uint64_t>(12 * wide.nnz() + 20 * wide.n_rows());
  EXPECT_EQ(detail::columns_worth_compacting(a_third_used, bytes).size(), used.size());
  EXPECT_TRUE(detail::columns_worth_compacting(a_third_used, bytes - 1).empty());
  // The compacted rows are the narrow rows, however wide the data (past its
  // non-zeros: no per-column arrays).
  const Dataset wider = spread(narrow, static_cast<std::int32_t>(4 * narrow.nnz()));
  InMemorySource sparse_columns(wider);
  ASSERT_EQ(detail::columns_worth_compacting(sparse_columns, 0), used);
  for (ChunkSource* source : {static_cast<ChunkSource*>(&a_third_used), static_cast<ChunkSource*>(&sparse_columns)}) {
    detail::CompactColumns compact(*source, used);
    ASSERT_EQ(compact.n_chunks(), narrow.n_chunks());
    EXPECT_EQ(compact.n_features(), narrow.n_features());
    for (std::size_t c = 0; c < narrow.n_chunks(); ++c) {
      const CsrView a = compact.chunk(c), b = narrow.view(c);
      ASSERT_EQ(a.nnz(), b.nnz());
      for (std::int64_t e = 0; e < a.nnz(); ++e) EXPECT_EQ(a.col_indices[e], b.col_indices[e]);
    }
  }
}

}  // namespace
