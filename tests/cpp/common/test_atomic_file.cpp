#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "snapml/atomic_file.h"
#include "snapml/error.h"
#include "test_data.h"

namespace snapml {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, CommitReplacesTarget) {
  std::string path = testing::scratch_dir() + "/model.txt";
  { std::ofstream(path) << "old"; }
  {
    AtomicFile f(path);
    f.write("new contents");
    EXPECT_EQ(slurp(path), "old");  // not visible before commit
    f.commit();
  }
  EXPECT_EQ(slurp(path), "new contents");
}

TEST(AtomicFile, AbandonedWriteLeavesTargetAndNoTemporary) {
  std::string dir = testing::scratch_dir() + "/abandon";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/out.bin";
  { std::ofstream(path) << "keep"; }
  {
    AtomicFile f(path);
    f.write("partial");
  }  // no commit: as if an exception unwound the writer
  EXPECT_EQ(slurp(path), "keep");
  int files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

// A device is written in place, never renamed over: /dev/null stays a device.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// A writer killed by SIGKILL mid-write leaves its temporary file; the next write
// of the same target removes it (docs/reliability.md). Without the cleanup the
// killed writers' files pile up beside the model.
TEST(AtomicFile, NextWriteRemovesTemporariesOfKilledWriters) {
  const std::string dir = testing::scratch_dir() + "/killed";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/model.txt";
  { std::ofstream(path) << "old"; }
  for (int i = 0; i < 2; ++i) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      AtomicFile f(path);
      f.write("partial");
      std::fflush(f.stream());
      ::raise(SIGKILL);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    // The target and the killed writer's file: the second writer removed the first's.
    ASSERT_EQ(names_in(dir).size(), 2u);
  }
  // Files that are not a dead writer's of this host stay: a live process's (this
  // one's), another host's, another target's, and one of an unknown form.
  const std::string live = path + ".tmp-" + std::string("elsewhere") + "-1-abcdef";
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string own = path + ".tmp-" + std::string(host) + "-" + std::to_string(::getpid()) + "-abcdef";
  for (const std::string& keep : {live, own, dir + "/other.txt.tmp-x-1-abcdef", path + ".tmp-abcdef"})
    std::ofstream(keep) << "keep";
  {
    AtomicFile f(path);
    f.write("new");
    f.commit();
  }
  EXPECT_EQ(slurp(path), "new");
  std::vector<std::string> expected{"model.txt", "model.txt.tmp-abcdef", "model.txt.tmp-elsewhere-1-abcdef",
                                    std::filesystem::path(own).filename().string(), "other.txt.tmp-x-1-abcdef"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names_in(dir), expected);
}

TEST(AtomicFile, DevicesAreWrittenInPlace) {
  {
    AtomicFile f("/dev/null");
    f.write("discarded");
    f.commit();
  }
  EXPECT_FALSE(std::filesystem::is_regular_file("/dev/null"));
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

TEST(AtomicFile, UnwritableDirectoryIsAnIoError) {
  EXPECT_THROW(AtomicFile("/nonexistent-dir-snapml/x"), IoError);
}

}  // namespace
}  // namespace snapml
