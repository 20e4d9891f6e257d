//===- ParserTest.cpp - shape specs, placeholders and parse errors --------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

/// Parses `spec` with an optional `like` shape; returns the printed tuple or
/// the error message.
class ParserTest : public SymbolicShapeTest {
protected:
  std::string shape(llvm::StringRef spec,
                    std::optional<std::vector<LikeDim>> like = std::nullopt) {
    std::optional<llvm::ArrayRef<LikeDim>> likeRef;
    if (like)
      likeRef = llvm::ArrayRef<LikeDim>(*like);
    auto r = parseShapeSpec(spec, defaultScope(), likeRef);
    if (r.failed())
      return r.getError().getMessage();
    return formatShape(*r);
  }
};

TEST_F(ParserTest, Shapes) {
  EXPECT_EQ(shape("", std::vector<LikeDim>{}), "()");
  EXPECT_EQ(shape("()", std::vector<LikeDim>{}), "()");
  EXPECT_EQ(shape(""), "()");
  EXPECT_EQ(shape("...", std::vector<LikeDim>{2, 3}), "(2, 3)");
  EXPECT_EQ(shape("2, 3,", std::vector<LikeDim>{2, 3}), "(2, 3)");
  EXPECT_EQ(shape("2, _", std::vector<LikeDim>{2, 3}), "(2, 3)");
  EXPECT_EQ(shape("2, ...", std::vector<LikeDim>{2, 3}), "(2, 3)");
  EXPECT_EQ(shape("2, ...", std::vector<LikeDim>{2}), "(2,)");
  EXPECT_EQ(shape(" ( 2 , 3 ) "), "(2, 3)");
  EXPECT_EQ(shape("(a, ...) ", std::vector<LikeDim>{std::nullopt, 3}),
            "(a, 3)");
  EXPECT_EQ(shape("a"), "(a,)");
  EXPECT_EQ(shape("a,"), "(a,)");
  EXPECT_EQ(shape("(a)"), "(a,)");
  EXPECT_EQ(shape("((a, b))"), "(a, b)");
  EXPECT_EQ(shape("b, b, 2*d"), "(b, b, 2*d)");
  EXPECT_EQ(shape("3, a, a + b"), "(3, a, b + a)");
  EXPECT_EQ(shape("a,\nb"), "(a, b)");
  EXPECT_EQ(shape("batch, seq_len"), "(batch, seq_len)");
}

TEST_F(ParserTest, PrintedFormsRoundTrip) {
  for (const char *spec : {"b + a", "- b + a", "3*a*mod(a + 2, b + 2)",
                           "mod(b + 1, - 2)", "floordiv(- 11, a + 1)",
                           "- a*b^2 - 2*a^2*b", "max(2, b)", "min(a, b) + 3"}) {
    DimExpr e = expr(spec);
    EXPECT_TRUE(expr(e.str()).isIdenticalTo(e)) << spec;
  }
}

struct ErrorCase {
  const char *spec;
  const char *message;
};

class ParseErrorTest : public ParserTest,
                       public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(ParseErrorTest, Message) {
  EXPECT_EQ(shape(GetParam().spec), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    JaxErrors, ParseErrorTest,
    ::testing::Values(
        ErrorCase{"2.5", "syntax error in symbolic shape '2.5' in dimension 0: "
                         "expecting integer, found 2.5. Parsed '', remaining "
                         "'2.5'."},
        ErrorCase{"a + a a",
                  "syntax error in symbolic shape 'a + a a' in dimension 0: "
                  "expecting one of {STAR} but found NAME. Parsed 'a + a ', "
                  "remaining 'a'."},
        ErrorCase{"a ^ a",
                  "syntax error in symbolic shape 'a ^ a' in dimension 0: "
                  "expecting one of {NUMBER} but found NAME. Parsed 'a ^ ', "
                  "remaining 'a'."},
        ErrorCase{"a; a",
                  "syntax error in symbolic shape 'a; a' in dimension 0: "
                  "expecting one of {STAR} but found SEMI. Parsed 'a', "
                  "remaining '; a'."},
        ErrorCase{"_", "syntax error in symbolic shape '_' in dimension 0: "
                       "spec contains ... but no 'like' shape was given. "
                       "Parsed '', remaining '_'."},
        ErrorCase{"...", "syntax error in symbolic shape '...' in dimension 0: "
                         "spec contains ... but no 'like' shape was given. "
                         "Parsed '', remaining '...'."},
        ErrorCase{")(", "syntax error in symbolic shape ')(' in dimension 0: "
                        "expecting one of {ENDMARKER} but found RPAR. Parsed "
                        "'', remaining ')('."},
        ErrorCase{"2a", "syntax error in symbolic shape '2a' in dimension 0: "
                        "expecting one of {STAR} but found NAME. Parsed '2', "
                        "remaining 'a'."},
        ErrorCase{"a@", "syntax error in symbolic shape 'a@' in dimension 0: "
                        "expecting one of {STAR} but found AT. Parsed 'a', "
                        "remaining '@'."},
        ErrorCase{"'a'", "syntax error in symbolic shape \"'a'\" in dimension "
                         "0: expecting one of {NAME, MINUS, NUMBER} but found "
                         "STRING. Parsed '', remaining ''a''."},
        ErrorCase{"mod(a)", "syntax error in symbolic shape 'mod(a)' in "
                            "dimension 0: expecting one of {COMMA} but found "
                            "RPAR. Parsed 'mod(a', remaining ')'."},
        ErrorCase{"floordiv(a, b, c)",
                  "syntax error in symbolic shape 'floordiv(a, b, c)' in "
                  "dimension 0: expecting one of {RPAR} but found COMMA. "
                  "Parsed 'floordiv(a, b', remaining ', c)'."},
        ErrorCase{"..., 3", "syntax error in symbolic shape '..., 3' in "
                            "dimension 0: spec contains ... but no 'like' "
                            "shape was given. Parsed '', remaining '..., 3'."},
        ErrorCase{"non_negative(a - 2)",
                  "syntax error in symbolic shape 'non_negative(a - 2)' in "
                  "dimension 0: expecting one of {STAR} but found LPAR. "
                  "Parsed 'non_negative', remaining '(a - 2)'."},
        ErrorCase{"-(a)", "syntax error in symbolic shape '-(a)' in dimension "
                          "0: expecting one of {NAME, MINUS, NUMBER} but found "
                          "LPAR. Parsed '-', remaining '(a)'."},
        ErrorCase{"2*(a+1)", "syntax error in symbolic shape '2*(a+1)' in "
                             "dimension 0: expecting one of {NAME, MINUS, "
                             "NUMBER} but found LPAR. Parsed '2*', remaining "
                             "'(a+1)'."},
        ErrorCase{"a * -b", "syntax error in symbolic shape 'a * -b' in "
                            "dimension 0: expecting one of {NUMBER} but found "
                            "NAME. Parsed 'a * -', remaining 'b'."},
        ErrorCase{"a +", "syntax error in symbolic shape 'a +' in dimension 0: "
                         "expecting one of {NAME, MINUS, NUMBER} but found "
                         "ENDMARKER. Parsed '', remaining ''."},
        ErrorCase{"(a, b", "syntax error in symbolic shape '(a, b' in "
                           "dimension 1: unexpected end of string. "},
        ErrorCase{"max(a, b", "syntax error in symbolic shape 'max(a, b' in "
                              "dimension 0: unexpected end of string. "},
        ErrorCase{"a, b c", "syntax error in symbolic shape 'a, b c' in "
                            "dimension 1: expecting one of {STAR} but found "
                            "NAME. Parsed 'a, b ', remaining 'c'."},
        ErrorCase{"0x10", "syntax error in symbolic shape '0x10' in dimension "
                          "0: expecting integer, found 0x10. Parsed '', "
                          "remaining '0x10'."},
        ErrorCase{"a ** 2", "syntax error in symbolic shape 'a ** 2' in "
                            "dimension 0: expecting one of {STAR} but found "
                            "DOUBLESTAR. Parsed 'a ', remaining '** 2'."},
        ErrorCase{"a $", "syntax error in symbolic shape 'a $' in dimension 0: "
                         "expecting one of {STAR} but found ERRORTOKEN. Parsed "
                         "'a ', remaining '$'."},
        ErrorCase{"a,, b", "syntax error in symbolic shape 'a,, b' in "
                           "dimension 1: expecting one of {NAME, MINUS, "
                           "NUMBER} but found COMMA. Parsed 'a,', remaining "
                           "', b'."},
        ErrorCase{"a\tb", "syntax error in symbolic shape 'a\\tb' in dimension "
                          "0: expecting one of {STAR} but found NAME. Parsed "
                          "'a\t', remaining 'b'."}));

TEST_F(ParserTest, LikeErrors) {
  EXPECT_EQ(shape("3", std::vector<LikeDim>{4}),
            "syntax error in symbolic shape '3' in dimension 0: different size "
            "3 for known dimension; like=(4,). Parsed '', remaining ''.");
  EXPECT_EQ(shape("b, 3", std::vector<LikeDim>{std::nullopt, 4}),
            "syntax error in symbolic shape 'b, 3' in dimension 1: different "
            "size 3 for known dimension; like=(None, 4). Parsed '', remaining "
            "''.");
  EXPECT_EQ(shape("b, 5, _"),
            "syntax error in symbolic shape 'b, 5, _' in dimension 2: spec "
            "contains ... but no 'like' shape was given. Parsed 'b, 5, ', "
            "remaining '_'.");
  EXPECT_EQ(shape("b, 6, c, _", std::vector<LikeDim>{4, 6, 7}),
            "syntax error in symbolic shape 'b, 6, c, _' in dimension 3: "
            "cannot resolve placeholder '_' because we parsed 3 already and "
            "'like' shape has only 3 dimensions. Parsed 'b, 6, c, ', "
            "remaining '_'.");
  EXPECT_EQ(shape("b, 7, c, ...", std::vector<LikeDim>{4, 7}),
            "syntax error in symbolic shape 'b, 7, c, ...' in dimension 3: "
            "cannot resolve placeholder '...' because we parsed 3 already and "
            "'like' shape has only 2 dimensions. Parsed 'b, 7, c, ', "
            "remaining '...'.");
  EXPECT_EQ(shape("a, _", std::vector<LikeDim>{3, std::nullopt}),
            "syntax error in symbolic shape 'a, _' in dimension 1: unexpected "
            "placeholder for unknown dimension; like=(3, None). Parsed '', "
            "remaining ''.");
  EXPECT_EQ(shape("..., 3", std::vector<LikeDim>{2}),
            "syntax error in symbolic shape '..., 3' in dimension 1: "
            "expecting one of {ENDMARKER} but found COMMA. Parsed '...', "
            "remaining ', 3'.");
  EXPECT_EQ(shape("2, 3", std::vector<LikeDim>{2}),
            "syntax error in symbolic shape '2, 3' in dimension 1: dimension "
            "1 is beyond the 'like' shape (2,). Parsed '', remaining ''.");
}

TEST_F(ParserTest, SingleExpressions) {
  auto zero = parseDimExpr("", defaultScope());
  ASSERT_TRUE(zero.failed());
  EXPECT_EQ(zero.getError().getMessage(),
            "not enough values to unpack (expected 1, got 0)");
  auto two = parseDimExpr("a, b", defaultScope());
  ASSERT_TRUE(two.failed());
  EXPECT_EQ(two.getError().getMessage(),
            "too many values to unpack (expected 1)");
}

TEST_F(ParserTest, HugeNumbers) {
  std::string msg = shape("99999999999999999999");
  EXPECT_EQ(msg, "syntax error in symbolic shape '99999999999999999999' in "
                 "dimension 0: integer 99999999999999999999 does not fit in "
                 "64 bits. Parsed '', remaining '99999999999999999999'.");
  EXPECT_EQ(shape("9223372036854775807"), "(9223372036854775807,)");
  EXPECT_EQ(shape("-9223372036854775807"), "(-9223372036854775807,)");
  auto r = parseShapeSpec("2^64", defaultScope());
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.getError().getKind(), DimErrorKind::Overflow);
  auto m = parseShapeSpec("9223372036854775807*a + 9223372036854775807*a",
                          defaultScope());
  ASSERT_TRUE(m.failed());
  EXPECT_EQ(m.getError().getKind(), DimErrorKind::Overflow);
}

TEST_F(ParserTest, DeepNesting) {
  std::string ok = "a";
  for (int i = 0; i < 50; ++i)
    ok = "max(" + ok + ", 1)";
  EXPECT_EQ(shape(ok), "(a,)");
  std::string deep = "a";
  for (int i = 0; i < 1000; ++i)
    deep = "mod(" + deep + ", 2)";
  auto r = parseShapeSpec(deep, defaultScope());
  ASSERT_TRUE(r.failed());
  EXPECT_EQ(r.getError().getKind(), DimErrorKind::LimitExceeded);
  std::string parens(1000, '(');
  auto p = parseShapeSpec(parens, defaultScope());
  ASSERT_TRUE(p.failed());
}

TEST_F(ParserTest, PythonRepr) {
  EXPECT_EQ(pythonRepr("a"), "'a'");
  EXPECT_EQ(pythonRepr("'a'"), "\"'a'\"");
  EXPECT_EQ(pythonRepr("a\nb"), "'a\\nb'");
  EXPECT_EQ(pythonRepr("'\""), "'\\'\"'");
  EXPECT_EQ(formatLikeShape({std::nullopt, 4}), "(None, 4)");
  EXPECT_EQ(formatLikeShape({4}), "(4,)");
}

} // namespace
