#include <gtest/gtest.h>

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
