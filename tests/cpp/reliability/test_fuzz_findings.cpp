// What the fuzzers found (tests/fuzz, docs/reliability.md "Fuzzers"), one test
// each, with the input that showed it. Each input is in the seed corpus too.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"
#include "snapml/model.h"
#include "test_data.h"

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

std::string write_model(const std::string& name, const std::string& text) {
  const std::string path = snapml::testing::scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Exits 0 when `load` throws InputError with 1 GB more address space than the
// process has now (room for the loader's own small allocations, under
// AddressSanitizer too), 1 when it returns or throws anything else, and dies when
// the allocator gives up.
void exit_with_load_under_memory_limit(const std::function<void()>& load) {
  long pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
  const rlimit address_space{limit, limit};
  ::setrlimit(RLIMIT_AS, &address_space);
  try {
    load();
  } catch (const InputError&) {
    std::_Exit(0);
  } catch (...) {
  }
  std::_Exit(1);
}

// fuzz_model_text and fuzz_model_liblinear (libFuzzer's malloc limit): a header
// announcing 2e9 features made a 300-byte model file allocate 16 GB for its
// weights before the file was found to end early. The allocation is now bounded
// by what the file can hold, and the error is the truncation's.
TEST(FuzzFindingsDeathTest, ModelHeaderCountsDoNotSizeAllocations) {
  const std::string ours = write_model("huge_n_features.model",
                                       "snapml-model 2\nloss logistic\npenalty l2\nn_features 2000000000\n"
                                       "classes 2 -1 1\nintercept_scaling 0\nC 1\ntol 0.001\nepsilon 0\n"
                                       "max_iter 1000\nclass_weight 2 1 1\noutputs 1\nintercept 0\ncoef\n0.5\n");
  const std::string liblinear = write_model("huge_nr_feature.model",
                                            "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2000000000\n"
                                            "bias -1\nw\n0.5\n");
  EXPECT_EXIT(exit_with_load_under_memory_limit([&] { Model::load(ours); }), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(exit_with_load_under_memory_limit([&] { Model::load_liblinear(liblinear); }),
              ::testing::ExitedWithCode(0), "");
}

// fuzz_model_liblinear (AddressSanitizer): a second nr_class and label line made
// the label list longer than nr_class, and the weights were read past their
// rows (heap-buffer-overflow). A repeated header keyword is now an InputError.
TEST(FuzzFindings, LiblinearHeaderKeywordTwice) {
  const std::string path = write_model("label_twice.model",
                                       "solver_type L2R_LR\nnr_class 2\nlabel 1 2\nnr_class 3\nlabel 3 4 5\n"
                                       "nr_feature 1\nbias -1\nw\n0.5 0.25 1\n");
  try {
    Model::load_liblinear(path);
    FAIL() << "a repeated nr_class was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.problem().find("'nr_class' appears twice"), std::string::npos) << e.what();
  }
}

}  // namespace
