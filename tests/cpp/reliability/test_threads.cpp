// Thread counts far above the machine's are lowered to thread_limit()
// (snapml/threads.h) instead of crashing the parser's parallel region, hanging,
// or failing in libgomp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "../../../snapml/src/common/omp_threads.h"

#include "snapml/datasets/svmlight.h"
#include "snapml/threads.h"
#include "snapml/train.h"

namespace {

using namespace snapml;

TEST(Threads, AHugeCountIsLoweredToTheLimit) {
  EXPECT_GE(thread_limit(), 64);
  EXPECT_EQ(clamp_threads(100000), thread_limit());
  EXPECT_EQ(clamp_threads(2147483647), thread_limit());
  EXPECT_EQ(clamp_threads(7), 7);
  EXPECT_EQ(clamp_threads(0), 0);
}

TEST(Threads, TheDefaultCountGrowsWithTheEpochsNonZeros) {
  // One thread a kEpochNnzPerThread non-zeros, at least 1, at most what is there.
  EXPECT_EQ(default_threads(0, 16), 1);
  // docs/benchmarks/threads.md, the quiet 2-core machine: two threads 4 % slower
  // per epoch at 280k non-zeros, 21 % faster on a9a's 451,592.
  EXPECT_EQ(default_threads(280000, 2), 1);
  EXPECT_EQ(default_threads(451592, 2), 2);
  EXPECT_EQ(default_threads(kEpochNnzPerThread - 1, 16), 1);
  EXPECT_EQ(default_threads(2 * kEpochNnzPerThread, 16), 2);
  EXPECT_EQ(default_threads(5 * kEpochNnzPerThread + 1, 16), 5);
  EXPECT_EQ(default_threads(std::int64_t{1} << 40, 16), 16);
  EXPECT_EQ(default_threads(std::int64_t{1} << 40, 2), 2);
  EXPECT_EQ(default_threads(std::int64_t{1} << 40, 0), 1);
  EXPECT_EQ(default_threads(-5, 4), 1);
}

TEST(Threads, AGivenCountIsObeyedWhateverTheWork) {
  const char* saved = std::getenv("OMP_NUM_THREADS");
  const std::string kept = saved != nullptr ? saved : "";
  ::unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(detail::resolve_fit_threads(2, 10), 2);
  EXPECT_EQ(detail::resolve_fit_threads(3, 0), 3);
  EXPECT_EQ(detail::resolve_fit_threads(0, 10), 1);
  EXPECT_EQ(detail::resolve_fit_threads(0, std::int64_t{1} << 40), detail::resolve_threads(0));
  // OMP_NUM_THREADS is the user's count too: every OpenMP thread, whatever the work.
  ::setenv("OMP_NUM_THREADS", "2", 1);
  EXPECT_EQ(detail::resolve_fit_threads(0, 10), detail::resolve_threads(0));
  if (saved != nullptr) ::setenv("OMP_NUM_THREADS", kept.c_str(), 1);
  else ::unsetenv("OMP_NUM_THREADS");
}

TEST(Threads, ParseAndTrainWithAHundredThousandThreads) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += (i % 2 ? "1" : "-1") + std::string(" 1:") + std::to_string(i % 7) + " 3:1\n";
  datasets::SvmlightOptions options;
  options.threads = 100000;
  const Dataset data = datasets::parse_svmlight(text.data(), text.size(), "text", options);
  ASSERT_EQ(data.n_rows(), 200);
  TrainParameters p;
  p.threads = 100000;
  p.max_iter = 5;
  EXPECT_EQ(train(data, p).model.n_features, 3);
}

}  // namespace
