// The svmlight reader's rejections: one test per kind of bad input, each
// checking the line, the column and the problem named in the InputError.
#include <gtest/gtest.h>

#include <string>

#include "dataset_compare.h"
#include "snapml/datasets/svmlight.h"
#include "snapml/error.h"

namespace snapml {
namespace {

using datasets::IndexBase;
using datasets::SvmlightOptions;
using testing::parse_text;

struct Expected {
  std::int64_t line;
  std::int64_t column;
  std::string problem;  // a part of the problem text
};

void expect_input_error(const std::string& text, const Expected& expected, const SvmlightOptions& options = {}) {
  try {
    parse_text(text, options);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "input.svm");
    EXPECT_EQ(e.line(), expected.line) << e.what();
    EXPECT_EQ(e.column(), expected.column) << e.what();
    EXPECT_NE(e.problem().find(expected.problem), std::string::npos)
        << "problem '" << e.problem() << "' does not contain '" << expected.problem << "'";
    // The message reads "file:line:column: problem".
    std::string where = "input.svm";
    if (expected.line > 0) where += ":" + std::to_string(expected.line);
    if (expected.line > 0 && expected.column > 0) where += ":" + std::to_string(expected.column);
    EXPECT_EQ(std::string(e.what()).rfind(where + ": ", 0), 0u) << e.what();
  }
}

TEST(SvmlightErrors, MissingLabel) {
  expect_input_error("1 1:2\n2:3 4:5\n", {2, 1, "missing label: the line starts with the pair '2:3'"});
}

TEST(SvmlightErrors, BadLabel) {
  expect_input_error("1 1:2\n\nyes 1:2\n", {3, 1, "bad label 'yes': expected a number"});
  expect_input_error("1x 1:2\n", {1, 1, "bad label '1x'"});
}

TEST(SvmlightErrors, NonFiniteLabel) {
  expect_input_error("nan 1:2\n", {1, 1, "label 'nan' is NaN or infinite"});
  expect_input_error("1 1:1\n-inf 1:2\n", {2, 1, "label '-inf' is NaN or infinite"});
}

TEST(SvmlightErrors, BadValue) {
  expect_input_error("1 1:2\n-1 3:x\n", {2, 6, "bad value 'x' for index 3: expected a number"});
  expect_input_error("1 3:1:2\n", {1, 5, "bad value '1:2' for index 3"});
}

TEST(SvmlightErrors, MissingValue) {
  expect_input_error("1 1:2 3:\n", {1, 7, "missing value after '3:'"});
  expect_input_error("1 1:2 3: 4:1\n", {1, 7, "missing value after '3:'"});
}

TEST(SvmlightErrors, NonFiniteValue) {
  expect_input_error("1 1:2 5:NaN\n", {1, 9, "value 'NaN' for index 5 is NaN or infinite"});
  expect_input_error("1 1:1e999\n", {1, 5, "value '1e999' for index 1 is NaN or infinite"});
}

TEST(SvmlightErrors, ValueOutsideFloatRange) {
  expect_input_error("1 1:2\n1 2:-1e39\n", {2, 5, "value '-1e39' for index 2 is out of the float32 range"});
}

TEST(SvmlightErrors, MalformedPair) {
  expect_input_error("1 1:2 7\n", {1, 7, "malformed pair '7'"});
  expect_input_error("1 1=2\n", {1, 3, "malformed pair '1=2'"});
  expect_input_error("1 a:2\n", {1, 3, "malformed pair 'a:2': expected index:value"});
  expect_input_error("1 2.0:1\n", {1, 3, "malformed pair '2.0:1'"});
}

TEST(SvmlightErrors, QueryIdOnlyRightAfterTheLabel) {
  expect_input_error("1 qid:x 1:2\n", {1, 3, "bad query id 'qid:x'"});
  expect_input_error("1 1:2 qid:4\n", {1, 7, "malformed pair 'qid:4'"});
}

TEST(SvmlightErrors, NegativeIndex) {
  expect_input_error("1 -1:2\n", {1, 3, "negative index -1"});
}

TEST(SvmlightErrors, IndexTooLargeForInt32) {
  expect_input_error("1 2147483647:1\n", {1, 3, "index 2147483647 is too large (the largest index allowed is 2147483646)"});
  expect_input_error("1 99999999999999999999999:1\n", {1, 3, "is too large"});
  // The largest index allowed still gives an int32 n_features.
  EXPECT_EQ(parse_text("1 0:1 2147483646:1\n").n_features(), 2147483647);
}

TEST(SvmlightErrors, IndexAtOrPastFeatureCount) {
  SvmlightOptions options;
  options.n_features = 4;
  expect_input_error("1 1:1 5:1\n", {1, 7, "index 5 is out of range for n_features=4"}, options);
  options.index_base = IndexBase::Zero;
  expect_input_error("1 1:1\n1 4:1\n", {2, 3, "index 4 is out of range for n_features=4 (allowed: 0..3)"}, options);
}

TEST(SvmlightErrors, IndexEqualToFeatureCountInAZeroBasedFileFoundLater) {
  // Index 4 is fine one-based; index 0 on line 3 makes the file zero-based, and
  // the error then points back at line 2.
  SvmlightOptions options;
  options.n_features = 4;
  for (int threads : {1, 3}) {
    options.threads = threads;
    expect_input_error("1 1:1\n1 2:1 4:1\n1 0:1\n", {2, 7, "index 4 is out of range for n_features=4"}, options);
  }
}

TEST(SvmlightErrors, IndexZeroWhenOneBasedIsForced) {
  SvmlightOptions options;
  options.index_base = IndexBase::One;
  expect_input_error("1 1:1\n-1 0:1\n", {2, 4, "index 0 in a file read as one-based"}, options);
}

TEST(SvmlightErrors, UnsortedIndices) {
  expect_input_error("1 3:1 2:1\n", {1, 7, "index 2 after index 3: indices must be strictly increasing"});
}

TEST(SvmlightErrors, DuplicateIndices) {
  expect_input_error("1 1:1\n1 3:1 3:2\n", {2, 7, "duplicate index 3: indices must be strictly increasing"});
}

TEST(SvmlightErrors, EmptyInput) {
  expect_input_error("", {0, 0, "no examples"});
  expect_input_error("# only a comment\n\n  \r\n", {0, 0, "no examples"});
}

TEST(SvmlightErrors, ColumnsCountFromTheLineStartWithCrlf) {
  expect_input_error("1 1:1\r\n-1 2:1\r\n1 1:1 2:z\r\n", {3, 9, "bad value 'z'"});
}

TEST(SvmlightErrors, LongTokensAreShortenedInMessages) {
  std::string token(100, 'x');
  try {
    parse_text("1 1:" + token + "\n");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_LT(e.problem().size(), 100u) << e.problem();
    EXPECT_NE(e.problem().find("xxx..."), std::string::npos) << e.problem();
  }
}

TEST(SvmlightErrors, FirstErrorOfTheFileWhateverTheThreadCount) {
  // Errors on lines 3000 and 7000; every split must report line 3000.
  std::string text;
  for (int line = 1; line <= 10000; ++line) {
    if (line == 3000) text += "1 5:1 4:1\n";
    else if (line == 7000) text += "1 5:bad\n";
    else text += (line % 2 ? "1" : "-1") + std::string(" 1:0.5 4:") + std::to_string(line) + "\n";
  }
  for (int threads : {1, 2, 3, 5, 8}) {
    SvmlightOptions options;
    options.threads = threads;
    expect_input_error(text, {3000, 7, "indices must be strictly increasing"}, options);
  }
}

}  // namespace
}  // namespace snapml
