// A small w shared by PASSCoDe threads through a copy each (snapml/src/dual/threads/thread_copies.h):
// what a copy sees after publishing, and that folding loses no thread's change.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "../../../../snapml/src/dual/threads/thread_copies.h"

namespace {

using snapml::detail::ThreadCopies;

TEST(ThreadCopies, ServeOnlyAFewWeightsPerThread) {
  EXPECT_FALSE(ThreadCopies::fits(124, 1));  // one thread steps on w itself
  EXPECT_TRUE(ThreadCopies::fits(124, 2));   // a9a's w
  EXPECT_TRUE(ThreadCopies::fits(2048, 2));
  EXPECT_FALSE(ThreadCopies::fits(2049, 2));
  EXPECT_FALSE(ThreadCopies::fits(1000, 8));
}

// The rows another thread's steps may be behind, (T - 1) x publish_rows(T), stay
// near two threads' whatever the team (team_staleness.h): with 64 rows each, a9a's
// copies at 16 threads on a 16-core machine ran 1,000 epochs without converging.
// The publications' reads stay bounded too, so the copies serve fewer weights as
// the team grows: a9a's 124 up to 8 threads, not at 16 (the shared w then).
TEST(ThreadCopies, StalenessAndReadsStayBoundedAsTheTeamGrows) {
  EXPECT_EQ(ThreadCopies::publish_rows(2), 64);
  for (int threads = 2; threads <= 16; ++threads) {
    SCOPED_TRACE(threads);
    EXPECT_LE((threads - 1) * ThreadCopies::publish_rows(threads), snapml::detail::kTeamStaleRows);
    const auto weights = static_cast<std::int64_t>(ThreadCopies::max_weights(threads));
    EXPECT_LE(weights * threads, ThreadCopies::kMaxReadsPerRow * ThreadCopies::publish_rows(threads));
  }
  EXPECT_TRUE(ThreadCopies::fits(124, 8));
  EXPECT_FALSE(ThreadCopies::fits(124, 16));
  EXPECT_TRUE(ThreadCopies::fits(301, 4));   // w8a up to four threads
  EXPECT_FALSE(ThreadCopies::fits(301, 8));
}

TEST(ThreadCopies, ACopySeesEveryPublishedChangeAndTheFoldAddsThemOnce) {
  std::vector<double> base = {1.0, 2.0, 3.0};
  ThreadCopies copies(base.size(), 2);
  ThreadCopies::Copy first(copies, 0, base.data());
  ThreadCopies::Copy second(copies, 1, base.data());
  EXPECT_EQ(std::vector<double>(first.weights(), first.weights() + 3), base);
  first.weights()[0] += 0.5;
  first.weights()[2] -= 1.0;
  // Not published yet: the other copy does not see it, w does not move.
  second.publish(base.data());
  EXPECT_EQ(second.weights()[0], 1.0);
  first.publish(base.data());
  EXPECT_EQ(std::vector<double>(first.weights(), first.weights() + 3), (std::vector<double>{1.5, 2.0, 2.0}));
  EXPECT_EQ(base, (std::vector<double>{1.0, 2.0, 3.0}));  // w is only read during the pass
  second.weights()[1] += 4.0;
  second.publish(base.data());
  EXPECT_EQ(std::vector<double>(second.weights(), second.weights() + 3), (std::vector<double>{1.5, 6.0, 2.0}));
  // A second publication adds only what changed since the first.
  first.publish(base.data());
  EXPECT_EQ(std::vector<double>(first.weights(), first.weights() + 3), (std::vector<double>{1.5, 6.0, 2.0}));
  copies.fold(base.data());
  EXPECT_EQ(base, (std::vector<double>{1.5, 6.0, 2.0}));
  // The published changes are back to 0: the next pass starts from w.
  ThreadCopies::Copy next(copies, 0, base.data());
  EXPECT_EQ(std::vector<double>(next.weights(), next.weights() + 3), base);
}

TEST(ThreadCopies, ThreadsPublishingConcurrentlyLoseNoChange) {
  constexpr int kThreads = 3;
  constexpr int kSteps = 20000;
  std::vector<double> base(40, 0.0);
  ThreadCopies copies(base.size(), kThreads);
  std::vector<std::thread> team;
  for (int t = 0; t < kThreads; ++t)
    team.emplace_back([&, t] {
      ThreadCopies::Copy copy(copies, t, base.data());
      for (int step = 1; step <= kSteps; ++step) {
        // Whole numbers: every sum is exact, whatever the order.
        copy.weights()[static_cast<std::size_t>(step) % base.size()] += static_cast<double>(t + 1);
        if (step % 7 == 0 || step == kSteps) copy.publish(base.data());
      }
    });
  for (std::thread& thread : team) thread.join();
  copies.fold(base.data());
  double total = 0.0;
  for (const double weight : base) total += weight;
  EXPECT_EQ(total, static_cast<double>(kSteps) * (1 + 2 + 3));
  EXPECT_EQ(base[1], static_cast<double>(kSteps / 40) * (1 + 2 + 3));
}

}  // namespace
