// Memory no budget bounded (issue 36, cases 9 and 10): a stream spooled into
// memory without a limit, and the L1 solvers' copy of the rows under a budget.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include "snapml/datasets/input_file.h"
#include "snapml/error.h"
#include "snapml/feature_memory.h"
#include "test_data.h"

namespace snapml {
namespace {

// A writer with no end (as /dev/zero, or `yes` into a pipe): the spool stops at
// the limit with an InputError naming the path and the budget. Before, it grew
// until the OOM killer fired.
TEST(MemoryBounds, AStreamWithNoEndStopsAtItsBudget) {
  const std::string fifo = testing::scratch_dir() + "/endless.fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::signal(SIGPIPE, SIG_IGN);  // the writer's last write fails with EPIPE instead
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    const std::string block(1 << 16, '1');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    ::close(fd);  // the reader closed its end
  });
  try {
    datasets::InputFile input(fifo, 1 << 20);
    ADD_FAILURE() << "an endless stream was read whole";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), fifo);
    EXPECT_NE(e.problem().find("passed 1.0 MiB of the memory budget (--max-memory)"), std::string::npos)
        << e.what();
  }
  writer.join();
}

TEST(MemoryBounds, WithoutABudgetAStreamMayFillHalfTheMemoryAvailable) {
  const std::uint64_t available = available_memory_bytes();
  if (available == 0) GTEST_SKIP() << "the machine does not say how much memory it has";
  const std::uint64_t budget = datasets::InputFile::spool_budget();
  EXPECT_GT(budget, available / 4);
  EXPECT_LE(budget, available);
}

// Case 10: -s 5 and -s 6 streamed under --max-memory 10MB peaked at 65.9 MB.
TEST(MemoryBounds, TheL1CopyOfTheRowsMustFitTheBudget) {
  EXPECT_NO_THROW(check_l1_copy_memory(false, 1000000, 10000, 0));  // no budget
  EXPECT_NO_THROW(check_l1_copy_memory(true, 1000000, 10000, 64 << 20));
  try {
    check_l1_copy_memory(false, 1000000, 10000, 64 << 20);
    ADD_FAILURE() << "streamed rows took the L1 copy";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("these rows stream from disk"), std::string::npos) << e.what();
  }
  try {
    check_l1_copy_memory(true, 1000000, 10000, 10 << 20);
    ADD_FAILURE() << "a copy past the budget was allowed";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("together above the memory budget of 10.0 MiB"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("penalty l2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snapml
