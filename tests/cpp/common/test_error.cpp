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

// Bytes from an input file or a path reach messages: a NUL cut them short and an
// escape sequence reached the terminal (docs/reliability.md).
TEST(Printable, EscapesControlBytesAndKeepsUtf8) {
  using namespace std::string_literals;
  EXPECT_EQ(snapml::printable("plain text: 1.5 'x' \\ end"), "plain text: 1.5 'x' \\ end");
  EXPECT_EQ(snapml::printable("a\0b"s), "a\\x00b");
  EXPECT_EQ(snapml::printable("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(snapml::printable("tab\there\nline\r"), "tab\\there\\nline\\r");
  EXPECT_EQ(snapml::printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
  EXPECT_EQ(snapml::printable("\xc2\x9b" "2J"), "\\xc2\\x9b2J");           // C1 CSI in UTF-8
  EXPECT_EQ(snapml::printable("\x9b\xff\xc0\xaf\xe2\x82"), "\\x9b\\xff\\xc0\\xaf\\xe2\\x82");  // not UTF-8
  EXPECT_EQ(snapml::printable(snapml::printable("\x1b\n")), "\\x1b\\n");  // idempotent
}

TEST(InputError, MessageKeepsBytesAfterANulAndEscapesThem) {
  using namespace std::string_literals;
  const snapml::InputError error("da\x1bta", 2, 6, "bad value '\x1b[31mred\0tail'"s);
  EXPECT_STREQ(error.what(), "da\\x1bta:2:6: bad value '\\x1b[31mred\\x00tail'");
}
