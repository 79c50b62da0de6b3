// What the fuzzers found (tests/fuzz, docs/reliability.md "Fuzzers"), one test
// each, with the input that showed it. Each input is in the seed corpus too.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"

namespace {

using namespace snapml;

// `text` copied to the end of a page whose next page is inaccessible: a reader
// that touches one byte past the end of its input crashes here, in any build
// (a std::string would hide it behind its terminating NUL).
class AtGuardPage {
 public:
  explicit AtGuardPage(const std::string& text) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    pages_ = (text.size() + page - 1) / page + 1;
    bytes_ = pages_ * page;
    void* map = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<char*>(map);
    ::mprotect(base_ + bytes_ - page, page, PROT_NONE);
    data_ = base_ + bytes_ - page - text.size();
    std::memcpy(data_, text.data(), text.size());
    size_ = text.size();
  }
  ~AtGuardPage() { ::munmap(base_, bytes_); }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  char* base_ = nullptr;
  char* data_ = nullptr;
  std::size_t pages_ = 0, bytes_ = 0, size_ = 0;
};

// fuzz_svmlight_arrays: a multilabel label set that ends the input (no newline
// after it) read the byte past the end (svmlight_range_parser.h tested *parsed
// before parsed == end). ASan: heap-buffer-overflow; a file whose size is a
// multiple of the page size: SIGSEGV.
TEST(FuzzFindings, MultilabelLabelSetAtTheEndOfTheInput) {
  datasets::SvmlightArraysOptions options;
  options.multilabel = true;
  options.threads = 1;
  for (const std::string text : {"3", "1,2", "1 1:1\n2,3"}) {
    const AtGuardPage input(text);
    const datasets::SvmlightArrays arrays = datasets::parse_svmlight_arrays(input.data(), input.size(), "in", options);
    EXPECT_FALSE(arrays.labels.empty()) << text;
  }
}

}  // namespace
