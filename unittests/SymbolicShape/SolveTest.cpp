//===- SolveTest.cpp - solving dimension variables; shape assertions ------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "SymbolicShapeTestBase.h"

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::testing;

namespace {

static const char kTrailer[] =
    ". Please see https://docs.jax.dev/en/latest/export/"
    "shape_poly.html#shape-assertion-errors for more details.";
static const char kSolveTrailer[] =
    ". Please see https://docs.jax.dev/en/latest/export/"
    "shape_poly.html#dimension-variables-must-be-solvable-from-the-input-"
    "shapes for more details.";

class SolveTest : public SymbolicShapeTest {
protected:
  /// Parses `specs` (args[0], args[1], ...) in one scope with `constraints`.
  std::vector<ArgShapeSpec> args(std::vector<const char *> specs,
                                 std::vector<std::string> constraints = {}) {
    SymbolicScope &s = scope(constraints);
    std::vector<ArgShapeSpec> result;
    for (auto [i, spec] : llvm::enumerate(specs)) {
      auto dims = parseShapeSpec(spec, s);
      EXPECT_TRUE(dims.succeeded()) << spec;
      result.push_back({"args[" + std::to_string(i) + "]",
                        llvm::SmallVector<DimExpr>(*dims)});
    }
    return result;
  }

  /// Solves and checks concrete shapes: "b = 3, d = 2" or the error message.
  std::string solve(std::vector<const char *> specs,
                    std::vector<ConcreteShape> shapes,
                    std::vector<std::string> constraints = {}) {
    auto sol = solveDimVars(args(specs, constraints));
    if (sol.failed())
      return sol.getError().getMessage();
    auto values = sol->checkConcreteShapes(shapes);
    if (values.failed())
      return values.getError().getMessage();
    std::string s;
    for (auto &[name, v] : *values)
      s += (s.empty() ? "" : ", ") + name + " = " + std::to_string(v);
    return s;
  }
};

TEST_F(SolveTest, Simple) {
  EXPECT_EQ(solve({"b, b, 2*d"}, {{3, 3, 4}}), "b = 3, d = 2");
  EXPECT_EQ(solve({"a, b"}, {{2, 5}}), "a = 2, b = 5");
  EXPECT_EQ(solve({"3, a, a + 8"}, {{3, 4, 12}}), "a = 4");
  EXPECT_EQ(solve({"3, 4, 6*a"}, {{3, 4, 12}}), "a = 2");
  EXPECT_EQ(solve({"3, 4, 12"}, {{3, 4, 12}}), "");
  EXPECT_EQ(solve({"b1 + 6, b1 + 14, b2"}, {{10, 18, 5}}), "b1 = 4, b2 = 5");
  EXPECT_EQ(solve({"2*b1, 4*b2, b1 + b2 + 18"}, {{4, 8, 22}}),
            "b1 = 2, b2 = 2");
  // b2 comes from dimension 1 first, which makes dimension 0 linear.
  EXPECT_EQ(solve({"b1 + 2*b2, 4*b2, b1*b1 + 16"}, {{7, 8, 25}}),
            "b1 = 3, b2 = 2");
  EXPECT_EQ(solve({"a, b", "b, c"}, {{2, 3}, {3, 4}}), "a = 2, b = 3, c = 4");
  EXPECT_EQ(solve({"2*a - 3"}, {{7}}), "a = 5");
  EXPECT_EQ(solve({"0, k"}, {{0, 3}}), "k = 3");
}

TEST_F(SolveTest, DocumentationExample) {
  EXPECT_EQ(solve({"b, b, 2*d"}, {{3, 3, 5}}),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Division had remainder 1 when "
                        "computing the value of 'd'. Using the following "
                        "polymorphic shapes specifications: args[0].shape = "
                        "(b, b, 2*d). Obtained dimension variables: 'b' = 3 "
                        "from specification 'b' for dimension args[0].shape[0] "
                        "(= 3), ") +
                kTrailer);
}

TEST_F(SolveTest, AssertionMessages) {
  EXPECT_TRUE(llvm::StringRef(solve({"3 * b, 36"}, {{5, 36}}))
                  .starts_with("Input shapes do not match the polymorphic "
                               "shapes specification. Division had remainder "
                               "2 when computing the value of 'b'. Using the "
                               "following polymorphic"));
  EXPECT_EQ(solve({"3, 4, a + 1"}, {{3, 4, 1}}),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Expected value >= 1 for dimension "
                        "variable 'a'. Using the following polymorphic shapes "
                        "specifications: args[0].shape = (3, 4, a + 1). "
                        "Obtained dimension variables: 'a' = 0 from "
                        "specification 'a + 1' for dimension args[0].shape[2] "
                        "(= 1), ") +
                kTrailer);
  EXPECT_EQ(solve({"3 * b + 10"}, {{10}}),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Expected value >= 1 for dimension "
                        "variable 'b'. Using the following polymorphic shapes "
                        "specifications: args[0].shape = (3*b + 10,). Obtained "
                        "dimension variables: 'b' = 0 from specification "
                        "'3*b + 10' for dimension args[0].shape[0] (= 10), ") +
                kTrailer);
  EXPECT_EQ(solve({"3, 4, 6*a"}, {{3, 4, 13}}),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Division had remainder 1 when "
                        "computing the value of 'a'. Using the following "
                        "polymorphic shapes specifications: args[0].shape = "
                        "(3, 4, 6*a). Obtained dimension variables: ") +
                kTrailer);
  EXPECT_EQ(solve({"3, a, a + 8"}, {{3, 4, 13}}),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Found inconsistency between dimension "
                        "size args[0].shape[2] (= 13) and the specification "
                        "'a + 8' (= 12). Using the following polymorphic "
                        "shapes specifications: args[0].shape = (3, a, a + 8). "
                        "Obtained dimension variables: 'a' = 4 from "
                        "specification 'a' for dimension args[0].shape[1] (= "
                        "4), ") +
                kTrailer);
  EXPECT_TRUE(llvm::StringRef(solve({"2*b1, 4*b2, b1 + b2 + 18"}, {{4, 8, 21}}))
                  .starts_with("Input shapes do not match the polymorphic "
                               "shapes specification. Found inconsistency "
                               "between dimension size args[0].shape[2] (= "
                               "21) and the specification 'b2 + b1 + 18' (= "
                               "22)"));
  EXPECT_EQ(solve({"a, b", "b, c"}, {{2, 3}, {4, 4}}),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Found inconsistency between dimension "
                        "size args[1].shape[0] (= 4) and the specification "
                        "'b' (= 3). Using the following polymorphic shapes "
                        "specifications: args[0].shape = (a, b),args[1].shape "
                        "= (b, c). Obtained dimension variables: 'a' = 2 from "
                        "specification 'a' for dimension args[0].shape[0] (= "
                        "2), 'b' = 3 from specification 'b' for dimension "
                        "args[0].shape[1] (= 3), ") +
                kTrailer);
}

TEST_F(SolveTest, ShapeMismatches) {
  EXPECT_EQ(solve({"3, 4, 12"}, {{3, 4, 13}}),
            "Shape mismatch for args[0].shape[2] (expected same constant): "
            "expected (3, 4, 12) and called with (3, 4, 13)");
  EXPECT_EQ(solve({"b, b, 2*d"}, {{3, 3}}),
            "Rank mismatch for args[0]: expected (b, b, 2*d) and called with "
            "(3, 3)");
  EXPECT_EQ(solve({"b"}, {{3}, {4}}), "Expected 1 arguments and called with 2");
}

TEST_F(SolveTest, ExplicitConstraintChecks) {
  EXPECT_EQ(solve({"a, b"}, {{3, 2}}, {"a >= b + 2"}),
            std::string("Input shapes do not match the symbolic shape "
                        "constraint a >= b + 2. Expected '- b + a - 2' to be "
                        "greater or equal to 0, but found -1.  Using the "
                        "following polymorphic shapes specifications: "
                        "args[0].shape = (a, b). Obtained dimension variables: "
                        "'a' = 3 from specification 'a' for dimension "
                        "args[0].shape[0] (= 3), 'b' = 2 from specification "
                        "'b' for dimension args[0].shape[1] (= 2), ") +
                kTrailer);
  EXPECT_EQ(solve({"a, b"}, {{5, 2}}, {"a >= b + 2"}), "a = 5, b = 2");
  EXPECT_EQ(solve({"a, b"}, {{3, 4}}, {"4*a == b + 8"}), "a = 3, b = 4");
  EXPECT_TRUE(llvm::StringRef(solve({"a, b"}, {{3, 5}}, {"4*a == b + 8"}))
                  .starts_with("Input shapes do not match the symbolic shape "
                               "constraint 4*a == b + 8. Expected '- b + 4*a - "
                               "8' to be equal to 0, but found -1.  Using the "
                               "following"));
  EXPECT_TRUE(llvm::StringRef(solve({"b"}, {{6}}, {"mod(b, 4) == 0"}))
                  .starts_with("Input shapes do not match the symbolic shape "
                               "constraint 4*floordiv(b, 4) == b. Expected "
                               "'4*floordiv(b, 4) - b' to be equal to 0, but "
                               "found -2.  Using the following"));
  EXPECT_EQ(solve({"b"}, {{8}}, {"mod(b, 4) == 0"}), "b = 8");
}

TEST_F(SolveTest, Unsolvable) {
  auto sol = solveDimVars(args({"a^2"}));
  ASSERT_TRUE(sol.failed());
  EXPECT_EQ(sol.getError().getMessage(),
            std::string("Cannot solve for values of dimension variables "
                        "{'a'}. We can only solve linear uni-variate "
                        "constraints. Using the following polymorphic shapes "
                        "specifications: args[0].shape = (a^2,). Unprocessed "
                        "specifications: 'a^2' for dimension size "
                        "args[0].shape[0]") +
                kSolveTrailer);
  auto bd = solveDimVars(args({"b*b, b*d*d, d"}));
  ASSERT_TRUE(bd.failed());
  EXPECT_EQ(bd.getError().getMessage(),
            std::string("Cannot solve for values of dimension variables "
                        "{'b'}. We can only solve linear uni-variate "
                        "constraints. Using the following polymorphic shapes "
                        "specifications: args[0].shape = (b^2, b*d^2, d). "
                        "Unprocessed specifications: 'b^2' for dimension size "
                        "args[0].shape[0], 'b*d^2' for dimension size "
                        "args[0].shape[1]") +
                kSolveTrailer);
  auto two = solveDimVars(args({"a + b"}));
  ASSERT_TRUE(two.failed());
  EXPECT_TRUE(llvm::StringRef(two.getError().getMessage())
                  .starts_with("Cannot solve for values of dimension "
                               "variables {'a', 'b'}."));
  auto op = solveDimVars(args({"floordiv(a, 2)"}));
  ASSERT_TRUE(op.failed());
}

TEST_F(SolveTest, UnexpectedDimVar) {
  auto sol = solveDimVars(args({"m"}, {"m >= m1"}));
  ASSERT_TRUE(sol.failed());
  EXPECT_EQ(sol.getError().getKind(), DimErrorKind::UnexpectedDimVar);
  EXPECT_EQ(sol.getError().getMessage(),
            "Encountered dimension variable 'm1' that is not appearing in the "
            "shapes of the function arguments.\nThe following dimension "
            "variables are appearing in the shapes of the function "
            "arguments: ['m']\nPlease see "
            "https://docs.jax.dev/en/latest/export/"
            "shape_poly.html#dimension-variables-must-be-solvable-from-the-"
            "input-shapes for more details.");
}

TEST_F(SolveTest, ScopeMixingAtExport) {
  SymbolicScope &s1 = scope(), &s2 = scope();
  std::vector<ArgShapeSpec> a{{"args[0]", {expr(s1, "h")}},
                              {"args[1]", {expr(s2, "w")}}};
  auto sol = solveDimVars(a, "f");
  ASSERT_TRUE(sol.failed());
  EXPECT_EQ(sol.getError().getMessage(),
            "Invalid mixing of symbolic scopes when exporting f.\nExpected "
            "current (from args[0]) scope " +
                s1.str() + "\nand found for 'w' (args[1]) scope " + s2.str() +
                "\nSee https://docs.jax.dev/en/latest/export/"
                "shape_poly.html#user-specified-symbolic-constraints.");
}

TEST_F(SolveTest, SolutionStructure) {
  auto sol = solveDimVars(args({"b, b, 2*d"}));
  ASSERT_TRUE(sol.succeeded());
  ASSERT_EQ(sol->getSyntheticDims().size(), 3u);
  EXPECT_EQ(sol->getSyntheticDims()[2].name, "args[0].shape[2]");
  EXPECT_EQ(sol->getSyntheticDims()[2].dimIndex, 2u);
  EXPECT_EQ(sol->getSpecTexts()[0], "args[0].shape = (b, b, 2*d)");
  ASSERT_EQ(sol->getSolvedVariables().size(), 2u);
  EXPECT_EQ(sol->getSolvedVariables()[0].first, "b");
  EXPECT_EQ(sol->getSolvedVariables()[0].second.str(), "args[0].shape[0]");
  EXPECT_EQ(sol->lookup("d")->str(), "floordiv(args[0].shape[2], 2)");
  EXPECT_FALSE(sol->lookup("x"));
  EXPECT_EQ(sol->getDimVars(), (llvm::SmallVector<std::string>{"b", "d"}));

  // The four checks JAX emits, in order.
  llvm::ArrayRef<ShapeCheck> checks = sol->getChecks();
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].kind, ShapeCheckKind::VariableAtLeastOne);
  EXPECT_EQ(checks[0].cmp, Comparator::GEQ);
  EXPECT_EQ(checks[0].lhs.str(), "args[0].shape[0]");
  EXPECT_EQ(checks[0].rhs.str(), "1");
  EXPECT_EQ(checks[1].kind, ShapeCheckKind::Consistency);
  EXPECT_EQ(checks[1].lhs.str(), "args[0].shape[1]");
  EXPECT_EQ(checks[1].rhs.str(), "args[0].shape[0]");
  EXPECT_EQ(checks[2].kind, ShapeCheckKind::DivisionRemainder);
  EXPECT_EQ(checks[2].subject, "d");
  EXPECT_EQ(checks[2].lhs.str(), "mod(args[0].shape[2], 2)");
  EXPECT_EQ(checks[3].kind, ShapeCheckKind::VariableAtLeastOne);
  EXPECT_EQ(checks[3].lhs.str(), "floordiv(args[0].shape[2], 2)");
  EXPECT_EQ(str(checks[3].getPredicate()), "floordiv(args[0].shape[2], 2) - 1");
  EXPECT_EQ(str(checks[1].getPredicate()),
            "args[0].shape[1] - args[0].shape[0]");
}

TEST_F(SolveTest, AssertionTemplates) {
  auto sol = solveDimVars(args({"b, b, 2*d"}));
  ASSERT_TRUE(sol.succeeded());
  const std::string specs = " Using the following polymorphic shapes "
                            "specifications: args[0].shape = (b, b, 2*d).";
  AssertionTemplate t0 = sol->getChecks()[0].getAssertionTemplate();
  EXPECT_EQ(t0.message,
            "Input shapes do not match the polymorphic shapes specification. "
            "Expected value >= 1 for dimension variable 'b'." +
                specs +
                " Obtained dimension variables: 'b' = {0} from specification "
                "'b' for dimension args[0].shape[0] (= {0}), " +
                kTrailer);
  ASSERT_EQ(t0.operands.size(), 1u);
  EXPECT_EQ(t0.operands[0].str(), "args[0].shape[0]");

  AssertionTemplate t1 = sol->getChecks()[1].getAssertionTemplate();
  EXPECT_EQ(t1.message,
            "Input shapes do not match the polymorphic shapes specification. "
            "Found inconsistency between dimension size args[0].shape[1] (= "
            "{0}) and the specification 'b' (= {1})." +
                specs +
                " Obtained dimension variables: 'b' = {1} from specification "
                "'b' for dimension args[0].shape[0] (= {1}), " +
                kTrailer);
  ASSERT_EQ(t1.operands.size(), 2u);

  AssertionTemplate t2 = sol->getChecks()[2].getAssertionTemplate();
  EXPECT_EQ(t2.message,
            "Input shapes do not match the polymorphic shapes specification. "
            "Division had remainder {0} when computing the value of 'd'." +
                specs +
                " Obtained dimension variables: 'b' = {1} from specification "
                "'b' for dimension args[0].shape[0] (= {1}), " +
                kTrailer);
  EXPECT_EQ(t2.operands[0].str(), "mod(args[0].shape[2], 2)");

  AssertionTemplate t3 = sol->getChecks()[3].getAssertionTemplate();
  EXPECT_EQ(t3.message,
            "Input shapes do not match the polymorphic shapes specification. "
            "Expected value >= 1 for dimension variable 'd'." +
                specs +
                " Obtained dimension variables: 'b' = {0} from specification "
                "'b' for dimension args[0].shape[0] (= {0}), 'd' = {1} from "
                "specification '2*d' for dimension args[0].shape[2] (= {2}), " +
                kTrailer);
  ASSERT_EQ(t3.operands.size(), 3u);
  EXPECT_EQ(t3.operands[1].str(), "floordiv(args[0].shape[2], 2)");
  EXPECT_EQ(t3.operands[2].str(), "args[0].shape[2]");

  // At most `maxOperands` operands; the rest print N/A.
  AssertionTemplate limited = sol->getChecks()[3].getAssertionTemplate(2);
  EXPECT_EQ(limited.operands.size(), 2u);
  EXPECT_NE(limited.message.find("(= N/A)"), std::string::npos);
}

TEST_F(SolveTest, SymbolicCallerShapes) {
  auto sol = solveDimVars(args({"a, b + a"}));
  ASSERT_TRUE(sol.succeeded());
  SymbolicScope &caller = scope();
  auto fail =
      sol->checkSymbolicShapes({{DimExpr(4), expr(caller, "c")}}, caller);
  ASSERT_TRUE(fail.failed());
  EXPECT_EQ(fail.getError().getMessage(),
            std::string("Input shapes do not match the polymorphic shapes "
                        "specification. Expected value >= 1 for dimension "
                        "variable 'b'. Using the following polymorphic shapes "
                        "specifications: args[0].shape = (a, b + a). Obtained "
                        "dimension variables: 'a' = 4 from specification 'a' "
                        "for dimension args[0].shape[0] (= 4), 'b' = c - 4 "
                        "from specification 'b + a' for dimension "
                        "args[0].shape[1] (= c), ") +
                kTrailer);
  SymbolicScope &bigCaller = scope({"c >= 10"});
  auto ok =
      sol->checkSymbolicShapes({{DimExpr(4), expr(bigCaller, "c")}}, bigCaller);
  ASSERT_TRUE(ok.succeeded()) << ok.getError().getMessage();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].first, "a");
  EXPECT_EQ((*ok)[0].second.str(), "4");
  EXPECT_EQ((*ok)[1].second.str(), "c - 4");

  auto div = solveDimVars(args({"5*a"}));
  ASSERT_TRUE(div.succeeded());
  auto rem = div->checkSymbolicShapes({{expr(caller, "c")}}, caller);
  ASSERT_TRUE(rem.failed());
  EXPECT_TRUE(llvm::StringRef(rem.getError().getMessage())
                  .starts_with("Input shapes do not match the polymorphic "
                               "shapes specification. Division had remainder "
                               "mod(c, 5) when computing the value of 'a'."));
  auto exact = div->checkSymbolicShapes({{expr(caller, "5*c")}}, caller);
  ASSERT_TRUE(exact.succeeded());
  EXPECT_EQ((*exact)[0].second.str(), "c");

  // `a, a` called with (c, d): c == d is not known, so the call fails early.
  auto same = solveDimVars(args({"a, a"}));
  auto cd = same->checkSymbolicShapes({{expr(caller, "c"), expr(caller, "d")}},
                                      caller);
  ASSERT_TRUE(cd.failed());
  EXPECT_TRUE(llvm::StringRef(cd.getError().getMessage())
                  .contains("Found inconsistency between dimension size "
                            "args[0].shape[1] (= d) and the specification 'a' "
                            "(= c)."));
  auto constMismatch =
      same->checkSymbolicShapes({{DimExpr(3), expr(caller, "c")}}, caller);
  EXPECT_TRUE(constMismatch.failed());
}

TEST_F(SolveTest, NoSymbolicDimensions) {
  auto sol = solveDimVars(args({"3, 4"}));
  ASSERT_TRUE(sol.succeeded());
  EXPECT_EQ(sol->getScope(), nullptr);
  EXPECT_TRUE(sol->getChecks().empty());
  EXPECT_TRUE(sol->checkConcreteShapes({{3, 4}}).succeeded());
}

} // namespace
