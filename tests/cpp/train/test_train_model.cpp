// train(): label mapping, one-vs-rest and its thread policy, class weights,
// warm start, distributed classes; Model: predictions and its own file format.
#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <fstream>
#include <random>

#include "../fixtures/random_problem.h"
#include "snapml/error.h"
#include "snapml/model.h"
#include "snapml/train.h"
#include "test_data.h"
#include "thread_communicator.h"

namespace {

using namespace snapml;
using namespace snapml::testing;

// Three classes from three planted directions: label = argmax of the scores.
Dataset three_classes(std::int64_t n = 600, std::uint64_t seed = 5) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int d = 8;
  std::vector<double> planted(3 * d);
  for (double& v : planted) v = normal(random);
  CsrChunk chunk;
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int32_t> idx;
    std::vector<float> val;
    double score[3] = {0, 0, 0};
    for (int j = 0; j < d; ++j) {
      idx.push_back(j);
      val.push_back(static_cast<float>(normal(random)));
      for (int k = 0; k < 3; ++k) score[k] += val.back() * planted[k * d + j];
    }
    const int best = static_cast<int>(std::max_element(score, score + 3) - score);
    const double labels[3] = {3.0, 7.0, 11.0};
    chunk.add_row(labels[best], idx.data(), val.data(), d);
  }
  std::vector<CsrChunk> chunks;
  chunks.push_back(std::move(chunk));
  return Dataset(std::move(chunks), d);
}

TrainParameters quick(LossKind loss = LossKind::Logistic) {
  TrainParameters p;
  p.loss = loss;
  p.tol = 1e-6;
  p.threads = 1;
  p.seed = 3;
  return p;
}

double accuracy(const Model& model, const Dataset& data) {
  const std::vector<double> predicted = model.predict(data, 1);
  const std::vector<double> labels = data.labels();
  std::size_t right = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) right += predicted[i] == labels[i];
  return static_cast<double>(right) / static_cast<double>(labels.size());
}

TEST(Train, AnyTwoLabelsMapToMinusOnePlusOneWithTheLargerPositive) {
  RandomProblemOptions o;
  const Dataset signs = random_problem(o);
  o.positive_label = 2.0;
  o.negative_label = 1.0;
  const Dataset ones_twos = random_problem(o);
  const TrainResult a = train(signs, quick()), b = train(ones_twos, quick());
  EXPECT_EQ(a.model.classes, (std::vector<double>{-1.0, 1.0}));
  EXPECT_EQ(b.model.classes, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(a.model.coef, b.model.coef);  // the same binary problem, bit for bit
  EXPECT_EQ(a.model.intercept, b.model.intercept);
  EXPECT_GT(accuracy(b.model, ones_twos), 0.7);
  ASSERT_EQ(b.fits.size(), 1u);
  EXPECT_TRUE(b.fits[0].converged);
}

TEST(Train, OneVersusRestIsAccurateAndIndependentOfTheThreadCount) {
  const Dataset data = three_classes();
  TrainParameters p = quick();
  const TrainResult one = train(data, p);
  p.threads = 2;  // 3 problems >= 2 threads: each still on one thread
  const TrainResult two = train(data, p);
  EXPECT_EQ(one.model.classes, (std::vector<double>{3.0, 7.0, 11.0}));
  EXPECT_EQ(one.model.n_outputs(), 3);
  EXPECT_EQ(one.model.coef, two.model.coef);
  EXPECT_GT(accuracy(one.model, data), 0.85);
  const std::vector<double> proba = one.model.predict_proba(data, 1);
  for (std::int64_t i = 0; i < data.n_rows(); ++i) {
    double sum = 0.0;
    for (int k = 0; k < 3; ++k) sum += proba[static_cast<std::size_t>(i * 3 + k)];
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
}

TEST(Train, AnyResidentSourceRunsOneVersusRestSideBySide) {
  // Two workers for three problems: one is the calling thread (where Python checks
  // for Ctrl-C), the other a thread of its own; the model is that of one thread.
  const Dataset data = three_classes();
  TrainParameters p = quick();
  const TrainResult sequential = train(data, p);
  p.threads = 2;
  std::mutex mutex;
  std::condition_variable both_seen;
  std::set<std::thread::id> callers;
  // The first caller waits (up to 10 s) for the other worker's first call: the
  // problems are tiny, so otherwise one worker may finish all three before the
  // other thread has started.
  p.on_round = [&](int) {
    std::unique_lock<std::mutex> lock(mutex);
    callers.insert(std::this_thread::get_id());
    both_seen.notify_all();
    both_seen.wait_for(lock, std::chrono::seconds(10), [&] { return callers.size() >= 2; });
  };
  InMemorySource source(data);
  LocalCommunicator local;
  const TrainResult parallel = train(source, local, p);
  EXPECT_EQ(parallel.model.coef, sequential.model.coef);
  EXPECT_EQ(callers.size(), 2u);
  EXPECT_EQ(callers.count(std::this_thread::get_id()), 1u);
}

TEST(Train, AFailingProblemStopsTheOthersWithinAnEpoch) {
  // Rows enough that an epoch takes about a millisecond: the count below starts
  // when the callback decides to throw, a moment before train() raises its flag,
  // and a thread descheduled in that moment on a loaded machine let the others run
  // hundreds of 600-row epochs (seen once in CI-like load; each problem's own
  // cancellation is what the bound checks).
  const Dataset data = three_classes(100000);
  TrainParameters p = quick();
  p.tol = 1e-14;  // would run to max_iter without the failure
  p.max_iter = 100000;
  p.threads = 2;
  std::atomic<int> epochs_after_failure{0};
  std::atomic<bool> failed{false};
  p.on_round = [&](int) {
    if (failed) ++epochs_after_failure;
  };
  p.on_epoch = [&](int problem, const EpochRecord& record) {
    if (problem == 1 && record.epoch >= 3 && !failed) {
      failed = true;
      throw std::runtime_error("stop at problem 1");
    }
  };
  EXPECT_THROW(
      {
        try {
          train(data, p);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "stop at problem 1");
          throw;
        }
      },
      std::runtime_error);
  // The other worker notices at its next epoch (plus possibly one in flight).
  EXPECT_LE(epochs_after_failure.load(), 2);
}

TEST(Train, OnRoundFollowsEveryEpochOfEveryProblemAndOnEpochEveryCertificate) {
  const Dataset data = three_classes();
  TrainParameters p = quick();
  std::vector<int> rounds(3, 0), certificates(3, 0);
  p.on_round = [&](int problem) { ++rounds.at(static_cast<std::size_t>(problem)); };
  p.on_epoch = [&](int problem, const EpochRecord&) { ++certificates.at(static_cast<std::size_t>(problem)); };
  const TrainResult result = train(data, p);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(rounds[k], result.fits[k].epochs) << k;
    EXPECT_EQ(certificates[k], static_cast<int>(result.fits[k].history.size())) << k;
    EXPECT_LE(certificates[k], rounds[k]) << k;
  }
}

TEST(Train, BalancedAndPerLabelClassWeights) {
  RandomProblemOptions o;
  const Dataset data = random_problem(o);
  const std::vector<double> labels = data.labels();
  const double positives = static_cast<double>(std::count(labels.begin(), labels.end(), 1.0));
  const double n = static_cast<double>(labels.size());
  TrainParameters p = quick();
  p.balanced_class_weight = true;
  const Model balanced = train(data, p).model;
  ASSERT_EQ(balanced.class_weight.size(), 2u);
  EXPECT_DOUBLE_EQ(balanced.class_weight[1], n / (2.0 * positives));
  EXPECT_DOUBLE_EQ(balanced.class_weight[0], n / (2.0 * (n - positives)));
  // With sample weights, the classes' weights summed, as scikit-learn's
  // compute_class_weight("balanced", sample_weight=...): were the row counts.
  o.sample_weights = true;
  const Dataset weighed = random_problem(o);
  double sums[2] = {0.0, 0.0};
  for (std::size_t c = 0; c < weighed.n_chunks(); ++c) {
    const CsrView x = weighed.view(c);
    for (std::int64_t r = 0; r < x.n_rows; ++r) sums[x.labels[r] == 1.0 ? 1 : 0] += x.weight(r);
  }
  const Model weighed_balanced = train(weighed, p).model;
  EXPECT_DOUBLE_EQ(weighed_balanced.class_weight[1], (sums[0] + sums[1]) / (2.0 * sums[1]));
  EXPECT_DOUBLE_EQ(weighed_balanced.class_weight[0], (sums[0] + sums[1]) / (2.0 * sums[0]));
  p.balanced_class_weight = false;
  p.class_weight = {{1.0, 5.0}};
  const Model weighted = train(data, p).model;
  const Model plain = train(data, quick()).model;
  EXPECT_GT(weighted.intercept[0], plain.intercept[0]);  // the heavier class pulls the bias
  p.class_weight = {{4.0, 2.0}};
  EXPECT_THROW(train(data, p), InvalidArgument);
}

TEST(Train, RejectsASingleClassAndBadParameters) {
  CsrChunk chunk;
  const std::int32_t idx[] = {0};
  const float val[] = {1.0f};
  chunk.add_row(1.0, idx, val, 1);
  chunk.add_row(1.0, idx, val, 1);
  std::vector<CsrChunk> chunks;
  chunks.push_back(chunk);
  const Dataset one_class(std::move(chunks), 1);
  EXPECT_THROW(train(one_class, quick()), InvalidArgument);
  TrainParameters p = quick();
  p.C = -1.0;
  EXPECT_THROW(train(random_problem({}), p), InvalidArgument);
  p = quick(LossKind::Squared);
  p.class_weight = {{1.0, 2.0}};
  EXPECT_THROW(train(random_problem({}), p), InvalidArgument);
}

TEST(Train, RegressionPredictsTheScore) {
  RandomProblemOptions o;
  o.regression = true;
  const Dataset data = random_problem(o);
  const Model model = train(data, quick(LossKind::Squared)).model;
  EXPECT_FALSE(model.is_classifier());
  EXPECT_EQ(model.predict(data, 1), model.decision_function(data, 1));
  EXPECT_THROW(model.predict_proba(data, 1), InvalidArgument);
}

TEST(Train, WarmStartFromAModelNeedsFewerEpochs) {
  const Dataset data = three_classes();
  TrainParameters p = quick();
  p.tol = 1e-8;
  const TrainResult cold = train(data, p);
  p.warm_start = &cold.model;
  const TrainResult warm = train(data, p);
  for (std::size_t k = 0; k < cold.fits.size(); ++k)
    EXPECT_LT(warm.fits[k].epochs, cold.fits[k].epochs);
  TrainParameters other = quick(LossKind::Hinge);
  other.warm_start = &cold.model;
  EXPECT_THROW(train(data, other), InvalidArgument);
}

TEST(Train, DistributedRanksAgreeOnClassesEvenWhenARankLacksOne) {
  const Dataset data = three_classes(300);
  // Rank 1 gets only rows of class 11; rank 0 the rest.
  std::vector<CsrChunk> parts(2);
  const CsrChunk& all = data.chunk(0);
  for (std::int64_t r = 0; r < all.n_rows(); ++r) {
    const auto b = all.row_offsets[static_cast<std::size_t>(r)];
    const double label = all.labels[static_cast<std::size_t>(r)];
    parts[label == 11.0 ? 1 : 0].add_row(label, all.col_indices.data() + b, all.values.data() + b,
                                          all.row_offsets[static_cast<std::size_t>(r) + 1] - b);
  }
  std::vector<Model> models(2);
  TrainParameters p = quick();
  run_ranks(2, [&](Communicator& communicator) {
    std::vector<CsrChunk> mine{parts[static_cast<std::size_t>(communicator.rank())]};
    const Dataset part(std::move(mine), data.n_features());
    InMemorySource source(part);
    models[static_cast<std::size_t>(communicator.rank())] = train(source, communicator, p).model;
  });
  EXPECT_EQ(models[0].classes, (std::vector<double>{3.0, 7.0, 11.0}));
  EXPECT_EQ(models[0].coef, models[1].coef);
  EXPECT_GT(accuracy(models[0], data), 0.85);
}

TEST(Model, PredictsOnDataWithMoreFeaturesThanItWasTrainedOn) {
  const Dataset data = random_problem({});
  const Model model = train(data, quick()).model;
  Dataset wider = data;
  wider.set_n_features(data.n_features() + 5);
  EXPECT_EQ(model.predict(wider, 1), model.predict(data, 1));
}

TEST(Model, SaveLoadRoundTripsExactly) {
  const Dataset data = three_classes();
  TrainParameters p = quick();
  p.intercept_scaling = 2.5;
  p.balanced_class_weight = true;
  const Model model = train(data, p).model;
  const std::string path = scratch_dir() + "/model.txt";
  model.save(path);
  const Model back = Model::load(path);
  EXPECT_EQ(back.coef, model.coef);
  EXPECT_EQ(back.intercept, model.intercept);
  EXPECT_EQ(back.classes, model.classes);
  EXPECT_EQ(back.class_weight, model.class_weight);
  EXPECT_EQ(back.intercept_scaling, 2.5);
  EXPECT_EQ(back.loss, LossKind::Logistic);
  EXPECT_EQ(back.predict_proba(data, 1), model.predict_proba(data, 1));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The penalty travels with the model through both formats, so an L1 model loaded
// back is still known as one (LIBLINEAR: L1R_LR / L1R_L2LOSS_SVC).
TEST(Model, PenaltyRoundTripsThroughBothFormats) {
  const Dataset data = random_problem({});
  for (LossKind loss : {LossKind::Logistic, LossKind::SquaredHinge}) {
    TrainParameters p = quick();
    p.loss = loss;
    p.penalty = Penalty::L1;
    const Model model = train(data, p).model;
    EXPECT_EQ(model.penalty, Penalty::L1);
    const std::string ours = scratch_dir() + "/l1.model";
    const std::string theirs = scratch_dir() + "/l1.liblinear";
    model.save(ours);
    model.save_liblinear(theirs);
    EXPECT_EQ(Model::load(ours).penalty, Penalty::L1);
    const Model back = Model::load_liblinear(theirs);
    EXPECT_EQ(back.penalty, Penalty::L1);
    EXPECT_EQ(back.loss, loss);
    std::ifstream in(theirs);
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first, loss == LossKind::Logistic ? "solver_type L1R_LR" : "solver_type L1R_L2LOSS_SVC");
  }
}

TEST(Model, LassoHasNoLiblinearSolverType) {
  Model model = train(random_problem({}), quick()).model;
  model.loss = LossKind::Squared;
  model.penalty = Penalty::L1;
  model.classes.clear();
  model.class_weight.clear();
  EXPECT_THROW(model.save_liblinear(scratch_dir() + "/lasso.liblinear"), InvalidArgument);
}

// A model of one class (LIBLINEAR's train() on labels of one value writes one)
// predicts that class everywhere with probability 1, its decision values the
// row's score, and moves through both formats unchanged.
TEST(Model, OneClassPredictsItsClassAndRoundTrips) {
  const Dataset data = random_problem({});
  Model model;
  model.loss = LossKind::Logistic;
  model.classes = {4.0};
  model.n_features = data.n_features();
  model.coef.assign(static_cast<std::size_t>(data.n_features()), 0.0);
  model.coef[0] = 1.5;
  model.coef[1] = -2.0;
  model.intercept = {-0.25};
  model.intercept_scaling = 1.0;
  model.index_base = 1;
  const std::vector<double> scores = model.decision_function(data, 1);
  ASSERT_EQ(scores.size(), static_cast<std::size_t>(data.n_rows()));
  EXPECT_TRUE(std::any_of(scores.begin(), scores.end(), [](double s) { return s > 0.0; }));
  EXPECT_TRUE(std::any_of(scores.begin(), scores.end(), [](double s) { return s < 0.0; }));
  EXPECT_EQ(model.predict(data, 1), std::vector<double>(scores.size(), 4.0));
  EXPECT_EQ(model.predict_proba(data, 1), std::vector<double>(scores.size(), 1.0));
  const std::string ours = scratch_dir() + "/one.model";
  const std::string theirs = scratch_dir() + "/one.liblinear";
  model.save(ours);
  model.save_liblinear(theirs);
  for (const Model& back : {Model::load(ours), Model::load_liblinear(theirs)}) {
    EXPECT_EQ(back.classes, model.classes);
    EXPECT_EQ(back.coef, model.coef);
    EXPECT_EQ(back.intercept, model.intercept);
    EXPECT_EQ(back.decision_function(data, 1), scores);
  }
  std::ifstream in(theirs);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line) && line != "w") header.push_back(line);
  EXPECT_EQ(header[1], "nr_class 1");
  EXPECT_EQ(header[2], "label 4");
}

// A model file as an older version wrote it: without the lines that came later.
std::string older_model(const std::string& path, int version) {
  std::ifstream in(path);
  std::string text, line;
  while (std::getline(in, line)) {
    if (line.rfind("index_base ", 0) == 0) continue;              // version 3
    if (version < 2 && line.rfind("penalty ", 0) == 0) continue;  // version 2
    text += (line == "snapml-model 3" ? "snapml-model " + std::to_string(version) : line) + "\n";
  }
  return text;
}

// Files written before the penalty line existed (format version 1) read as L2.
TEST(Model, VersionOneFilesReadAsL2) {
  const Model model = train(random_problem({}), quick()).model;
  const std::string path = scratch_dir() + "/v3.model";
  model.save(path);
  const std::string old = scratch_dir() + "/v1.model";
  write_text(old, older_model(path, 1));
  const Model back = Model::load(old);
  EXPECT_EQ(back.penalty, Penalty::L2);
  EXPECT_EQ(back.coef, model.coef);
}

// The index base round-trips (version 3); files written before it are unknown
// (-1), and a LIBLINEAR model is one-based.
TEST(Model, IndexBaseRoundTripsAndOlderFilesDoNotKnowIt) {
  Model model = train(random_problem({}), quick()).model;
  const std::string path = scratch_dir() + "/based.model";
  for (const int base : {-1, 0, 1}) {
    model.index_base = base;
    model.save(path);
    EXPECT_EQ(Model::load(path).index_base, base);
  }
  const std::string old = scratch_dir() + "/v2.model";
  write_text(old, older_model(path, 2));
  EXPECT_EQ(Model::load(old).index_base, -1);
  model.index_base = 1;
  model.save_liblinear(scratch_dir() + "/based.liblinear");
  EXPECT_EQ(Model::load_liblinear(scratch_dir() + "/based.liblinear").index_base, 1);
  model.index_base = 0;
  EXPECT_THROW(model.save_liblinear(scratch_dir() + "/zero.liblinear"), InvalidArgument);
}

TEST(Model, MalformedFilesNameFileAndLine) {
  const Model model = train(random_problem({}), quick()).model;
  const std::string path = scratch_dir() + "/good.txt";
  model.save(path);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto with_line = [&](std::size_t index, const std::string& replacement) {
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) text += (i == index ? replacement : lines[i]) + "\n";
    const std::string bad = scratch_dir() + "/bad.txt";
    write_text(bad, text);
    return bad;
  };
  try {
    Model::load(with_line(3, "n_features twenty"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.column(), 12);
    EXPECT_NE(std::string(e.what()).find("bad.txt"), std::string::npos);
  }
  try {
    Model::load(with_line(lines.size() - 2, "0.5 0.25"));  // a short weight row
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), static_cast<std::int64_t>(lines.size()) - 1);
  }
  EXPECT_THROW(Model::load(with_line(1, "loss cubic")), InputError);
  EXPECT_THROW(Model::load(with_line(0, "snapml-model 9")), InputError);
  EXPECT_THROW(Model::load(scratch_dir() + "/missing.txt"), IoError);
  EXPECT_THROW(Model::load_liblinear(with_line(0, "solver_type L2R_LR_DUAL")), InputError);
}

}  // namespace
