// Thread counts far above the machine's are lowered to thread_limit()
// (snapml/threads.h) instead of crashing the parser's parallel region, hanging,
// or failing in libgomp.
#include <gtest/gtest.h>

#include <string>

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
