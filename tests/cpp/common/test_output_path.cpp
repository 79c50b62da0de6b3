// Writing through links (output_path.h, issue 36 case 0): the write lands where
// the links lead and the links stay. Every link here is made in a scratch
// directory; no system path (/dev/stdout, ...) is written or replaced.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "snapml/atomic_file.h"
#include "snapml/error.h"
#include "snapml/output_path.h"
#include "test_data.h"

namespace snapml {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::scratch_dir() + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

void write_atomically(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

// Before: the temporary file was renamed over the link, which became a regular
// file holding the data while its target kept the old contents.
TEST(OutputPath, ALinkToAFileIsWrittenThroughAndKept) {
  const std::string dir = fresh_dir("links_file");
  fs::create_directories(dir + "/real");
  { std::ofstream(dir + "/real/model") << "old"; }
  fs::create_symlink("real/model", dir + "/relative");     // relative to the link's directory
  fs::create_symlink(dir + "/relative", dir + "/chained");  // a link to a link
  write_atomically(dir + "/chained", "new");
  EXPECT_TRUE(fs::is_symlink(dir + "/chained"));
  EXPECT_TRUE(fs::is_symlink(dir + "/relative"));
  EXPECT_EQ(slurp(dir + "/real/model"), "new");
  // The temporary file was made beside the target, and is gone.
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"chained", "real", "relative"}));
  EXPECT_EQ(names_in(dir + "/real"), std::vector<std::string>{"model"});
  const OutputTarget target = resolve_output(dir + "/chained");
  EXPECT_EQ(target.kind, OutputTarget::Kind::File);
  EXPECT_EQ(fs::canonical(target.path), fs::canonical(dir + "/real/model"));
}

TEST(OutputPath, ADanglingLinkCreatesItsTarget) {
  const std::string dir = fresh_dir("links_dangling");
  fs::create_symlink("made", dir + "/link");
  write_atomically(dir + "/link", "data");
  EXPECT_TRUE(fs::is_symlink(dir + "/link"));
  EXPECT_EQ(slurp(dir + "/made"), "data");
}

TEST(OutputPath, AnExistingFileKeepsItsPermissions) {
  const std::string dir = fresh_dir("links_mode");
  const std::string path = dir + "/model";
  { std::ofstream(path) << "old"; }
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  write_atomically(path, "new");
  struct stat status {};
  ASSERT_EQ(::stat(path.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0640u);
}

// `snap-predict data m /dev/stdout > out.txt`, made safe: a link of our own to
// /proc/self/fd/N, N a descriptor this process opened on a file in append mode
// as a shell's `>>` does. The write goes through the descriptor, after what it
// already holds, and the link and the file stay what they were.
TEST(OutputPath, ALinkToThisProcesssDescriptorIsWrittenThroughIt) {
  const std::string dir = fresh_dir("links_descriptor");
  const std::string out = dir + "/out.txt";
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "first\n", 6), 6);
  const std::string descriptor = "/proc/self/fd/" + std::to_string(fd);
  fs::create_symlink(descriptor, dir + "/stdout");
  fs::create_symlink("stdout", dir + "/link");
  EXPECT_EQ(resolve_output(dir + "/link").kind, OutputTarget::Kind::Descriptor);
  EXPECT_EQ(resolve_output(dir + "/link").descriptor, fd);
  write_atomically(dir + "/link", "second\n");
  // /dev/fd/N names the same descriptor.
  write_atomically("/dev/fd/" + std::to_string(fd), "third\n");
  ASSERT_EQ(::write(fd, "fourth\n", 7), 7);  // the descriptor is still open and ours
  ::close(fd);
  EXPECT_EQ(slurp(out), "first\nsecond\nthird\nfourth\n");
  EXPECT_TRUE(fs::is_symlink(dir + "/stdout"));
  EXPECT_EQ(fs::read_symlink(dir + "/stdout"), descriptor);
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"link", "out.txt", "stdout"}));
}

// A pipe behind the descriptor (standard output into `| wc`): written in place.
TEST(OutputPath, ALinkToAPipeDescriptorWritesIntoThePipe) {
  const std::string dir = fresh_dir("links_pipe");
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  fs::create_symlink("/proc/self/fd/" + std::to_string(ends[1]), dir + "/link");
  write_atomically(dir + "/link", "through the pipe");
  ::close(ends[1]);
  char buffer[64] = {};
  EXPECT_EQ(::read(ends[0], buffer, sizeof buffer - 1), 16);
  ::close(ends[0]);
  EXPECT_EQ(std::string(buffer), "through the pipe");
  EXPECT_TRUE(fs::is_symlink(dir + "/link"));
}

TEST(OutputPath, AFifoIsWrittenInPlace) {
  const std::string dir = fresh_dir("links_fifo");
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("fifo", dir + "/link");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // so that the writer's open returns
  ASSERT_GE(reader, 0);
  EXPECT_EQ(resolve_output(dir + "/link").kind, OutputTarget::Kind::Stream);
  write_atomically(dir + "/link", "fifo data");
  char buffer[64] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer - 1), 9);
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_symlink(dir + "/link"));
}

TEST(OutputPath, ADescriptorOpenForReadingOnlyIsAnIoError) {
  const std::string dir = fresh_dir("links_readonly");
  { std::ofstream(dir + "/in") << "keep"; }
  const int fd = ::open((dir + "/in").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  fs::create_symlink("/proc/self/fd/" + std::to_string(fd), dir + "/link");
  EXPECT_THROW(AtomicFile(dir + "/link"), IoError);
  ::close(fd);
  EXPECT_EQ(slurp(dir + "/in"), "keep");
}

TEST(OutputPath, ALinkToADirectoryOrALoopIsAnIoError) {
  const std::string dir = fresh_dir("links_bad");
  fs::create_directories(dir + "/sub");
  fs::create_symlink("sub", dir + "/to_dir");
  fs::create_symlink("loop_b", dir + "/loop_a");
  fs::create_symlink("loop_a", dir + "/loop_b");
  EXPECT_THROW(AtomicFile(dir + "/to_dir"), IoError);
  EXPECT_THROW(AtomicFile(dir + "/loop_a"), IoError);
  EXPECT_TRUE(fs::is_symlink(dir + "/to_dir"));
  EXPECT_TRUE(fs::is_symlink(dir + "/loop_a"));
}

// A killed writer's temporary file is beside the target, and removed from there.
TEST(OutputPath, LeftoversAreRemovedBesideTheTarget) {
  const std::string dir = fresh_dir("links_leftovers");
  fs::create_directories(dir + "/real");
  fs::create_symlink("real/ck", dir + "/ck");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  // Process id 0x7fffffff is above any pid_max: its writer is gone.
  const std::string stale = dir + "/real/ck.tmp-" + std::string(host) + "-2147483647-abcdef";
  { std::ofstream(stale) << "partial"; }
  AtomicFile::remove_leftovers(dir + "/ck");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::is_symlink(dir + "/ck"));
}

}  // namespace
}  // namespace snapml
