#include <gtest/gtest.h>

#include <string>

#include "snapml/error.h"

namespace snapml {
namespace {

TEST(InputError, MessageNamesFileLineAndColumn) {
  InputError e("data.svm", 12, 7, "bad number 'x1'");
  EXPECT_STREQ(e.what(), "data.svm:12:7: bad number 'x1'");
  EXPECT_EQ(e.line(), 12);
  EXPECT_EQ(e.column(), 7);
  EXPECT_EQ(e.problem(), "bad number 'x1'");
}

TEST(InputError, OmitsUnknownParts) {
  EXPECT_STREQ(InputError("f", 0, 0, "empty file").what(), "f: empty file");
  EXPECT_STREQ(InputError("", 3, 0, "x").what(), "<input>:3: x");
}

TEST(Require, BuildsALazyMessageOnlyOnFailure) {
  int built = 0;
  auto message = [&] {
    ++built;
    return std::string("row 7 is bad");
  };
  EXPECT_NO_THROW(require(true, message));
  EXPECT_EQ(built, 0);
  try {
    require(false, message);
    FAIL() << "require(false, ...) must throw";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "row 7 is bad");
  }
  EXPECT_EQ(built, 1);
  EXPECT_THROW(require(false, "plain message"), InvalidArgument);
}

}  // namespace
}  // namespace snapml
