// Resumed and warm-started fits the summary could not certify, and a checkpoint
// refused for a re-chunking (issue 36, cases 3 and 7, docs/reliability.md).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "snapml/checkpoint.h"
#include "snapml/chunk_source.h"
#include "snapml/error.h"
#include "snapml/model.h"
#include "snapml/impl/rank_agreement.h"
#include "snapml/train.h"
#include "test_data.h"

namespace snapml {
namespace {

// A noisy two-class problem cut into chunks of `chunk_rows`: the same rows for
// any cut.
Dataset noisy_rows(std::int64_t chunk_rows, std::int64_t n = 3000) {
  std::mt19937_64 random(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int d = 20;
  std::vector<CsrChunk> chunks;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i % chunk_rows == 0) chunks.emplace_back();
    std::vector<std::int32_t> index;
    std::vector<float> value;
    double score = 0.0;
    for (int j = 0; j < d; j += 1 + static_cast<int>(i % 3)) {
      index.push_back(j);
      value.push_back(static_cast<float>(normal(random)));
      score += value.back() * (j % 2 ? 1.0 : -0.5);
    }
    chunks.back().add_row(score + 2.0 * normal(random) > 0 ? 1.0 : -1.0, index.data(), value.data(),
                          static_cast<std::int64_t>(index.size()));
  }
  return Dataset(std::move(chunks), d);
}

TrainParameters hinge_with_checkpoint(const std::string& path) {
  TrainParameters p;
  p.loss = LossKind::Hinge;
  p.C = 100.0;
  p.tol = 1e-9;  // many epochs: the fit is interrupted long before it converges
  p.threads = 1;
  p.checkpoint = path;
  p.checkpoint_interval = 0.0;  // a save after every epoch
  return p;
}

// Interrupts the fit (as a kill would) after `epochs` epochs: the checkpoint
// holds a running problem.
void interrupted_fit(const Dataset& data, TrainParameters p, int epochs) {
  struct Interrupted {};
  p.on_epoch = [epochs](int, const EpochRecord& record) {
    if (record.epoch >= epochs) throw Interrupted{};
  };
  EXPECT_THROW(train(data, p), Interrupted);
}

// Case 3: resumed with a max_iter at or below the epochs done, the fit ran
// nothing, reported "relative duality gap 0" for weights no gap had checked and
// saved a model scoring 55 % where the fit scores 85 %. Refused now, the
// checkpoint kept; with room left it resumes and certifies.
TEST(ResumeRules, AMaxIterTheCheckpointHasUsedUpIsRefused) {
  const std::string path = testing::scratch_dir() + "/spent.ck";
  std::filesystem::remove(path);
  const Dataset data = noisy_rows(1000);
  interrupted_fit(data, hinge_with_checkpoint(path), 12);
  ASSERT_TRUE(std::filesystem::exists(path));
  TrainParameters p = hinge_with_checkpoint(path);
  // The epochs saved (saves are rate-limited: checkpoint_save_due), as the
  // refusal names them; every budget up to them is refused.
  int saved = 0;
  for (int max_iter : {1, 0}) {
    p.max_iter = max_iter > 0 ? max_iter : saved;
    try {
      train(data, p);
      ADD_FAILURE() << "max_iter " << p.max_iter << " trained";
    } catch (const InvalidArgument& e) {
      const std::string message = e.what();
      const std::size_t at = message.find(" has done ");
      ASSERT_NE(at, std::string::npos) << message;
      saved = std::stoi(message.substr(at + 10));
      EXPECT_NE(message.find("leaves none to run: raise max_iter above " + std::to_string(saved)), std::string::npos)
          << message;
    }
    EXPECT_TRUE(std::filesystem::exists(path)) << "the refused resume removed the checkpoint";
  }
  ASSERT_GE(saved, 1);
  p.max_iter = saved + 8;  // tol stays: it defines the optimum the checkpoint was saved for
  const TrainResult resumed = train(data, p);
  ASSERT_FALSE(resumed.fits[0].history.empty());
  EXPECT_GT(resumed.fits[0].history.back().epoch, saved);
  EXPECT_GT(resumed.fits[0].history.back().gap, 0.0);
}

// Weak case: a .snap file re-chunked (docs/out-of-core.md advises it) holds the
// same rows; its checkpoint was refused as a checksum mismatch.
TEST(ResumeRules, TheRowsChecksumIsTheSameForAnyChunking) {
  const Dataset one = noisy_rows(3000), many = noisy_rows(7), some = noisy_rows(1000);
  InMemorySource a(one), b(many), c(some);
  EXPECT_EQ(rows_checksum(a), rows_checksum(b));
  EXPECT_EQ(rows_checksum(a), rows_checksum(c));
  const Dataset fewer = noisy_rows(1000, 2999);
  InMemorySource d(fewer);
  EXPECT_NE(rows_checksum(a), rows_checksum(d));
  EXPECT_EQ(rows_multiset_checksum(a), rows_multiset_checksum(b));
  EXPECT_NE(rows_multiset_checksum(a), rows_multiset_checksum(d));
  // The rows in reverse order: the same multiset, not the same sequence (a
  // checkpoint's alpha follows the order; the ranks' "same rows" check does not).
  std::vector<CsrChunk> reversed(1);
  for (std::size_t c = one.n_chunks(); c-- > 0;) {
    const CsrView x = one.view(c);
    for (std::int64_t r = x.n_rows; r-- > 0;) {
      const std::int64_t begin = x.row_begin(r);
      reversed[0].add_row(x.labels[r], x.col_indices + begin, x.values + begin, x.row_end(r) - begin);
    }
  }
  const Dataset backwards(std::move(reversed), one.n_features());
  InMemorySource e(backwards);
  EXPECT_NE(rows_checksum(a), rows_checksum(e));
  EXPECT_EQ(rows_multiset_checksum(a), rows_multiset_checksum(e));

  const std::string path = testing::scratch_dir() + "/rechunked.ck";
  std::filesystem::remove(path);
  interrupted_fit(some, hinge_with_checkpoint(path), 5);
  TrainParameters p = hinge_with_checkpoint(path);
  p.max_iter = 30;
  const TrainResult resumed = train(many, p);
  EXPECT_GE(resumed.resumed_epochs.at(0), 1);  // resumed, not refused as other data
}

// Case 7: a NaN in a warm start gave a NaN model (every prediction -1) with only
// a convergence warning.
TEST(ResumeRules, AWarmStartWithANonFiniteCoefficientIsRefused) {
  const Dataset data = noisy_rows(1000);
  TrainParameters p;
  p.loss = LossKind::Logistic;
  p.threads = 1;
  Model start = train(data, p).model;
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    for (const bool in_intercept : {false, true}) {
      Model broken = start;
      (in_intercept ? broken.intercept[0] : broken.coef[3]) = bad;
      p.warm_start = &broken;
      for (const SolverChoice solver : {SolverChoice::Dual, SolverChoice::Primal}) {
        p.solver = solver;
        try {
          train(data, p);
          ADD_FAILURE() << "a warm start with " << bad << " trained";
        } catch (const InvalidArgument& e) {
          EXPECT_NE(std::string(e.what()).find(in_intercept ? "intercept [0] is" : "coefficient [0, 3] is"),
                    std::string::npos)
              << e.what();
        }
      }
    }
  }
}

// --checkpoint-interval 0 saved after every epoch whatever a save cost: 6 to 27
// times the fit's time. A save now waits 9 times the last one's duration too.
TEST(Checkpoint, SavesWaitNineTimesTheLastSavesCost) {
  EXPECT_TRUE(checkpoint_save_due(0.0, 0.0, 0.0));
  EXPECT_FALSE(checkpoint_save_due(0.05, 0.0, 0.01));  // a 10 ms save: the next after 90 ms
  EXPECT_TRUE(checkpoint_save_due(0.09, 0.0, 0.01));
  EXPECT_FALSE(checkpoint_save_due(59.0, 60.0, 0.001));  // the interval still rules when it is the longer
  EXPECT_TRUE(checkpoint_save_due(60.0, 60.0, 0.001));
}

}  // namespace
}  // namespace snapml
