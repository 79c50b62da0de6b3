// A text file truncated by another process while it is read must not end the
// process with SIGBUS (as a memory-mapped file did at the first page past the
// new end): the reader copies the file (text_input.h), so a parse sees either
// the whole file or a shorter one, and answers with data or an InputError.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>

#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "test_data.h"

namespace {

using namespace snapml;

TEST(TruncatedText, ReadingWhileAnotherThreadTruncatesNeverCrashes) {
  const std::string path = snapml::testing::scratch_dir() + "/shrinking.txt";
  std::string text;
  for (int row = 0; row < 400000; ++row) text += "1 1:0.5 7:1.25 19:3\n";  // 8 MB
  std::atomic<bool> done{false};
  std::ofstream(path) << text;
  std::thread truncator([&] {
    while (!done.load()) {
      ::truncate(path.c_str(), 4096);
      std::ofstream(path) << text;
    }
  });
  int read = 0;
  for (int attempt = 0; attempt < 40; ++attempt) {
    try {
      datasets::SvmlightOptions options;
      options.threads = 2;
      read += datasets::read_svmlight(path, options).n_rows() > 0;
    } catch (const Error&) {
      // an empty or cut file: a clean error is what is asked for
    }
  }
  done = true;
  truncator.join();
  SUCCEED() << read << " of 40 reads returned rows";
}

}  // namespace
