// Where tests find the shared real datasets, and a scratch directory.
//
// Datasets are read from $SNAPML_DATA_DIR, else from ../shared/datasets beside the
// checkout. A missing dataset fails the test under CI (CI=true) and skips it
// elsewhere, with a message that says which file and where it was looked for.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace snapml::testing {

// Full path of a shared dataset file, or "" when it is missing.
std::string shared_dataset(const std::string& name);
// The directory looked in, for messages.
std::string shared_data_dir();
bool running_in_ci();
// A fresh, empty directory for this test's files, removed at process exit.
std::string scratch_dir();

}  // namespace snapml::testing

// Declares `std::string var` holding the dataset's path, or skips/fails the test.
#define SNAPML_REQUIRE_DATASET(var, name)                                                  \
  const std::string var = ::snapml::testing::shared_dataset(name);                         \
  if (var.empty()) {                                                                       \
    if (::snapml::testing::running_in_ci())                                                \
      FAIL() << "dataset " << (name) << " missing in " << ::snapml::testing::shared_data_dir(); \
    GTEST_SKIP() << "dataset " << (name) << " missing in " << ::snapml::testing::shared_data_dir(); \
  }
