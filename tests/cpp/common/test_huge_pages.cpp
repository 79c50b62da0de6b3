// snapml/impl/huge_pages.h: advice that keeps contents and, where the kernel takes
// it, backs a large array with transparent huge pages.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "snapml/impl/huge_pages.h"

namespace {

// The system's THP setting: "always", "madvise" or "never" (the bracketed word).
std::string transparent_huge_pages_setting() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// AnonHugePages of the smaps entry holding `address`, in kB; -1 when not found.
long huge_kb_at(const void* address) {
  std::ifstream in("/proc/self/smaps");
  const auto target = reinterpret_cast<unsigned long>(address);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    unsigned long begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= target && target < end;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return -1;
}

TEST(HugePages, ReserveKeepsContentsAndCapacity) {
  std::vector<double> values{1.0, 2.0, 3.0};
  snapml::reserve_huge_pages(values, 1u << 20);
  ASSERT_GE(values.capacity(), 1u << 20);
  EXPECT_EQ(values, (std::vector<double>{1.0, 2.0, 3.0}));
  const double* before = values.data();
  snapml::reserve_huge_pages(values, 10);  // room enough already: nothing moves
  EXPECT_EQ(values.data(), before);
  snapml::advise_huge_pages(nullptr, 1u << 22);  // no memory, no advice
  snapml::advise_huge_pages(values.data(), 100);  // less than a huge page
}

TEST(HugePages, AdvisedArrayIsBackedByHugePagesWhereTheKernelOffersThem) {
#if !defined(__linux__)
  GTEST_SKIP() << "transparent huge pages are Linux's";
#else
  const std::string setting = transparent_huge_pages_setting();
  if (setting != "madvise" && setting != "always")
    GTEST_SKIP() << "transparent huge pages are off on this system (" << setting << ")";
  std::vector<double> values;
  const std::size_t n = std::size_t{16} << 20 >> 3;  // 16 MiB: several whole huge pages
  snapml::reserve_huge_pages(values, n);
  values.assign(n, 1.0);  // first touch, under the advice
  const long kb = huge_kb_at(values.data() + n / 2);
  // Memory too fragmented to hand out a huge page leaves small ones; a fresh
  // process on a machine with free memory gets them.
  EXPECT_GT(kb, 0) << "no huge pages behind a 16 MiB advised array (setting " << setting << ")";
#endif
}

}  // namespace
