//===- Solve.cpp - solving dimension variables; shape assertions ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// JAX's `solve_dim_vars` / `_solve_dim_equations` and `ShapeConstraint`
// (shape_poly.py), with the same check order and message pieces.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Solve.h"

#include "llvm/ADT/StringMap.h"

#include <set>

using namespace mlir::tessera::symbolic;
using namespace mlir::tessera::symbolic::detail;

static const char kAssertionTrailer[] =
    ". Please see https://docs.jax.dev/en/latest/export/"
    "shape_poly.html#shape-assertion-errors for more details.";
static const char kMismatchPrefix[] =
    "Input shapes do not match the polymorphic shapes specification. ";

//===----------------------------------------------------------------------===//
// ShapeCheck
//===----------------------------------------------------------------------===//

DimResult<DimExpr> ShapeCheck::getPredicate() const { return sub(lhs, rhs); }

AssertionTemplate ShapeCheck::getAssertionTemplate(unsigned maxOperands) const {
  AssertionTemplate result;
  llvm::DenseMap<DimExpr, std::string> specifiers;
  for (const MessagePiece &piece : pieces) {
    if (!piece.expr) {
      result.message += piece.text;
      continue;
    }
    auto it = specifiers.find(*piece.expr);
    if (it != specifiers.end()) {
      result.message += it->second;
      continue;
    }
    if (result.operands.size() >= maxOperands) {
      result.message += "N/A";
      continue;
    }
    std::string spec = "{" + std::to_string(result.operands.size()) + "}";
    specifiers[*piece.expr] = spec;
    result.message += spec;
    result.operands.push_back(*piece.expr);
  }
  return result;
}

DimResult<std::string> ShapeCheck::formatMessage(
    llvm::function_ref<DimResult<std::string>(const DimExpr &)> printValue,
    unsigned maxOperands) const {
  std::string message;
  llvm::DenseMap<DimExpr, std::string> values;
  unsigned numOperands = 0;
  for (const MessagePiece &piece : pieces) {
    if (!piece.expr) {
      message += piece.text;
      continue;
    }
    auto it = values.find(*piece.expr);
    if (it != values.end()) {
      message += it->second;
      continue;
    }
    if (numOperands >= maxOperands) {
      message += "N/A";
      continue;
    }
    ++numOperands;
    DIM_TRY_ASSIGN(v, printValue(*piece.expr));
    values[*piece.expr] = v;
    message += v;
  }
  return message;
}

//===----------------------------------------------------------------------===//
// Solving
//===----------------------------------------------------------------------===//

namespace {
struct Equation {
  DimExpr expr;
  std::string dimName;
};

MessagePiece text(std::string s) { return MessagePiece{std::move(s), {}}; }
MessagePiece value(const DimExpr &e) { return MessagePiece{"", e}; }

/// Python's repr of a set of strings (sorted for determinism).
std::string formatNameSet(const std::set<std::string> &names) {
  if (names.empty())
    return "set()";
  std::string s = "{";
  bool first = true;
  for (const std::string &n : names) {
    if (!first)
      s += ", ";
    first = false;
    s += pythonRepr(n);
  }
  return s + "}";
}
} // namespace

std::optional<DimExpr> DimVarSolution::lookup(llvm::StringRef var) const {
  for (auto &[name, value] : solved)
    if (name == var)
      return value;
  return std::nullopt;
}

llvm::SmallVector<std::string> DimVarSolution::getDimVars() const {
  std::set<std::string> vars;
  for (const ArgShapeSpec &arg : args)
    for (const DimExpr &d : arg.shape)
      for (const std::string &v : d.getVariables())
        vars.insert(v);
  return llvm::SmallVector<std::string>(vars.begin(), vars.end());
}

DimResult<DimVarSolution>
mlir::tessera::symbolic::solveDimVars(llvm::ArrayRef<ArgShapeSpec> args,
                                      llvm::StringRef functionName) {
  DimVarSolution sol;
  sol.args.assign(args.begin(), args.end());

  // All symbolic dimensions must share the scope of the first one.
  SymbolicScope *scope = nullptr;
  std::string firstArg;
  for (const ArgShapeSpec &arg : args) {
    for (const DimExpr &d : arg.shape) {
      if (d.isConstant())
        continue;
      if (!scope) {
        scope = d.getScope();
        firstArg = arg.name;
        continue;
      }
      DIM_TRY_STATUS(
          checkSameScope(*scope, d, ("when exporting " + functionName).str(),
                         "current (from " + firstArg + ") ", arg.name));
    }
  }
  sol.scope = scope;
  if (!scope)
    return sol;

  std::vector<Equation> eqns;
  for (auto [argIndex, arg] : llvm::enumerate(args)) {
    if (llvm::all_of(arg.shape,
                     [](const DimExpr &d) { return d.isConstant(); }))
      continue;
    sol.specTexts.push_back(arg.name + ".shape = " + formatShape(arg.shape));
    for (auto [dimIndex, d] : llvm::enumerate(arg.shape)) {
      if (d.isConstant())
        continue;
      std::string name = arg.name + ".shape[" + std::to_string(dimIndex) + "]";
      sol.syntheticDims.push_back({name, static_cast<unsigned>(argIndex),
                                   static_cast<unsigned>(dimIndex)});
      eqns.push_back({d, name});
    }
  }

  std::string specsMsg = " Using the following polymorphic shapes "
                         "specifications: ";
  for (auto [i, t] : llvm::enumerate(sol.specTexts)) {
    if (i)
      specsMsg += ",";
    specsMsg += t;
  }
  specsMsg += ".";

  llvm::SmallVector<MessagePiece> solutionPieces{
      text(" Obtained dimension variables: ")};
  llvm::StringMap<DimExpr> env;
  auto lookup = [&](llvm::StringRef v) -> std::optional<DimExpr> {
    auto it = env.find(v);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  };
  auto withSolution = [&](llvm::SmallVector<MessagePiece> pieces) {
    pieces.append(solutionPieces.begin(), solutionPieces.end());
    pieces.push_back(text(kAssertionTrailer));
    return pieces;
  };

  // Returns true if the equation was used (solved or turned into a check).
  auto processOne = [&](const Equation &eqn) -> DimResult<bool> {
    std::optional<std::string> var;
    int64_t varK = 0;
    DIM_TRY_ASSIGN(synthetic, scope->getVariable(eqn.dimName));
    DimExpr dimValue = synthetic;
    for (const TermCoeff &tc : eqn.expr.getImpl()->terms) {
      DimExpr termExpr = makeRawExpr(TermCoeff{tc.term, 1}, *scope);
      auto termValue = substitute(termExpr, lookup, *scope, false);
      if (termValue.failed()) {
        if (termValue.getError().getKind() != DimErrorKind::UnexpectedDimVar)
          return termValue.getError();
        // Only a single unknown variable to the first power can be solved.
        if (auto v = termExpr.getVariable(); v && !var) {
          var = v->str();
          varK = tc.coeff;
          continue;
        }
        return false;
      }
      DimResult<DimExpr> scaled = *termValue;
      if (termValue->getConstant() == 1)
        scaled = DimExpr(tc.coeff);
      else if (tc.coeff != 1)
        scaled = mul(*termValue, tc.coeff);
      DIM_TRY_ASSIGN(next, add(dimValue, mul(DimExpr(-1), scaled)));
      dimValue = next;
    }
    if (var) {
      DimExpr varValue = dimValue;
      if (varK != 1) {
        DIM_TRY_ASSIGN(qr, divMod(dimValue, varK));
        varValue = qr.first;
        sol.checks.push_back(ShapeCheck{
            ShapeCheckKind::DivisionRemainder, Comparator::EQ, qr.second,
            DimExpr(0),
            withSolution(
                {text(std::string(kMismatchPrefix) + "Division had remainder "),
                 value(qr.second),
                 text(" when computing the value of '" + *var + "'." +
                      specsMsg)}),
            *var});
      }
      env[*var] = varValue;
      sol.solved.push_back({*var, varValue});
      solutionPieces.append({text("'" + *var + "' = "), value(varValue),
                             text(" from specification '" + eqn.expr.str() +
                                  "' for dimension " + eqn.dimName + " (= "),
                             value(synthetic), text("), ")});
      sol.checks.push_back(ShapeCheck{
          ShapeCheckKind::VariableAtLeastOne, Comparator::GEQ, varValue,
          DimExpr(1),
          withSolution({text(std::string(kMismatchPrefix) +
                             "Expected value >= 1 for dimension variable '" +
                             *var + "'." + specsMsg)}),
          *var});
      return true;
    }
    DIM_TRY_ASSIGN(evaluated, substitute(eqn.expr, lookup, *scope, false));
    sol.checks.push_back(ShapeCheck{
        ShapeCheckKind::Consistency, Comparator::EQ, synthetic, evaluated,
        withSolution(
            {text(std::string(kMismatchPrefix) +
                  "Found inconsistency between dimension size " + eqn.dimName +
                  " (= "),
             value(synthetic),
             text(") and the specification '" + eqn.expr.str() + "' (= "),
             value(evaluated), text(")." + specsMsg)}),
        eqn.dimName});
    return true;
  };

  while (true) {
    std::vector<Equation> remaining;
    for (const Equation &eqn : eqns) {
      DIM_TRY_ASSIGN(used, processOne(eqn));
      if (!used)
        remaining.push_back(eqn);
    }
    if (remaining.empty())
      break;
    if (remaining.size() >= eqns.size()) {
      std::set<std::string> unsolved;
      for (const Equation &eqn : remaining)
        for (const std::string &v : eqn.expr.getVariables())
          if (!env.count(v))
            unsolved.insert(v);
      std::string msg = "Cannot solve for values of dimension variables " +
                        formatNameSet(unsolved) +
                        ". We can only solve linear uni-variate constraints." +
                        specsMsg + " Unprocessed specifications: ";
      for (auto [i, eqn] : llvm::enumerate(remaining)) {
        if (i)
          msg += ", ";
        msg += "'" + eqn.expr.str() + "' for dimension size " + eqn.dimName;
      }
      msg += ". Please see https://docs.jax.dev/en/latest/export/"
             "shape_poly.html#dimension-variables-must-be-solvable-from-the-"
             "input-shapes for more details.";
      return DimError::value(msg);
    }
    eqns = std::move(remaining);
  }

  // One check per explicit constraint, last.
  if (env.empty())
    return sol;
  llvm::SmallVector<std::string> dimVars = sol.getDimVars();
  for (const ExplicitConstraint &c : scope->getConstraints()) {
    DimExpr cDiff = c.diff;
    if (!c.diff.isConstant()) {
      std::string missing;
      auto recording = [&](llvm::StringRef v) -> std::optional<DimExpr> {
        auto r = lookup(v);
        if (!r)
          missing = v.str();
        return r;
      };
      auto r = substitute(c.diff, recording, *scope, false);
      if (r.failed()) {
        if (r.getError().getKind() == DimErrorKind::UnexpectedDimVar)
          return DimError(DimErrorKind::UnexpectedDimVar,
                          formatUnexpectedDimVar(missing, dimVars));
        return r.getError();
      }
      cDiff = *r;
    }
    bool geq = c.cmp == Comparator::GEQ;
    sol.checks.push_back(ShapeCheck{
        ShapeCheckKind::ExplicitConstraint, c.cmp, cDiff, DimExpr(0),
        withSolution(
            {text("Input shapes do not match the symbolic shape constraint " +
                  c.text + ". Expected '" + c.diff.str() + "' to be " +
                  (geq ? "greater or equal" : "equal") + " to 0, but found "),
             value(cDiff), text(". " + specsMsg)}),
        c.text});
  }
  return sol;
}

//===----------------------------------------------------------------------===//
// Checking actual shapes
//===----------------------------------------------------------------------===//

/// Python's repr of a concrete shape.
static std::string formatConcreteShape(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<DimExpr> dims;
  for (int64_t d : shape)
    dims.push_back(DimExpr(d));
  return formatShape(dims);
}

DimResult<std::vector<std::pair<std::string, int64_t>>>
DimVarSolution::checkConcreteShapes(
    llvm::ArrayRef<ConcreteShape> shapes) const {
  if (shapes.size() != args.size())
    return DimError::value("Expected " + llvm::Twine(args.size()) +
                           " arguments and called with " +
                           llvm::Twine(shapes.size()));
  DimBindings env;
  for (auto [i, arg] : llvm::enumerate(args)) {
    const ConcreteShape &actual = shapes[i];
    if (actual.size() != arg.shape.size())
      return DimError::value("Rank mismatch for " + arg.name + ": expected " +
                             formatShape(arg.shape) + " and called with " +
                             formatConcreteShape(actual));
    for (auto [j, d] : llvm::enumerate(arg.shape)) {
      if (auto c = d.getConstant(); c && *c != actual[j])
        return DimError::value(
            "Shape mismatch for " + arg.name + ".shape[" + llvm::Twine(j) +
            "] (expected same constant): expected " + formatShape(arg.shape) +
            " and called with " + formatConcreteShape(actual));
    }
  }
  for (const SyntheticDim &s : syntheticDims)
    env[s.name] = shapes[s.argIndex][s.dimIndex];

  auto printer = [&](const DimExpr &e) -> DimResult<std::string> {
    DIM_TRY_ASSIGN(v, evaluate(e, env));
    return std::to_string(v);
  };
  for (const ShapeCheck &check : checks) {
    DIM_TRY_ASSIGN(l, evaluate(check.lhs, env));
    DIM_TRY_ASSIGN(r, evaluate(check.rhs, env));
    bool ok = check.cmp == Comparator::EQ ? l == r : l >= r;
    if (ok)
      continue;
    DIM_TRY_ASSIGN(msg, check.formatMessage(printer));
    return DimError::value(msg);
  }
  std::vector<std::pair<std::string, int64_t>> values;
  for (auto &[name, e] : solved) {
    DIM_TRY_ASSIGN(v, evaluate(e, env));
    values.push_back({name, v});
  }
  llvm::sort(values);
  return values;
}

DimResult<std::vector<std::pair<std::string, DimExpr>>>
DimVarSolution::checkSymbolicShapes(llvm::ArrayRef<SymbolicShape> shapes,
                                    SymbolicScope &callerScope) const {
  if (shapes.size() != args.size())
    return DimError::value("Expected " + llvm::Twine(args.size()) +
                           " arguments and called with " +
                           llvm::Twine(shapes.size()));
  llvm::StringMap<DimExpr> env;
  for (auto [i, arg] : llvm::enumerate(args)) {
    const SymbolicShape &actual = shapes[i];
    for (const DimExpr &d : actual)
      DIM_TRY_STATUS(checkSameScope(callerScope, d, "for the caller shapes"));
    if (actual.size() != arg.shape.size())
      return DimError::value("Rank mismatch for " + arg.name + ": expected " +
                             formatShape(arg.shape) + " and called with " +
                             formatShape(actual));
    for (auto [j, d] : llvm::enumerate(arg.shape)) {
      auto c = d.getConstant();
      if (c && actual[j].getConstant() != c)
        return DimError::value(
            "Shape mismatch for " + arg.name + ".shape[" + llvm::Twine(j) +
            "] (expected same constant): expected " + formatShape(arg.shape) +
            " and called with " + formatShape(actual));
    }
  }
  for (const SyntheticDim &s : syntheticDims)
    env[s.name] = shapes[s.argIndex][s.dimIndex];
  auto lookup = [&](llvm::StringRef v) -> std::optional<DimExpr> {
    auto it = env.find(v);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  };
  auto eval = [&](const DimExpr &e) {
    return substitute(e, lookup, callerScope, /*keepUnbound=*/false);
  };
  auto printer = [&](const DimExpr &e) -> DimResult<std::string> {
    DIM_TRY_ASSIGN(v, eval(e));
    return v.str();
  };
  for (const ShapeCheck &check : checks) {
    DIM_TRY_ASSIGN(l, eval(check.lhs));
    DIM_TRY_ASSIGN(r, eval(check.rhs));
    bool ok;
    if (check.cmp == Comparator::EQ) {
      ok = l == r;
    } else {
      auto geqResult = geq(l, r);
      if (geqResult.failed()) {
        if (geqResult.getError().getKind() != DimErrorKind::Inconclusive)
          return geqResult.getError();
        ok = false;
      } else {
        ok = *geqResult;
      }
    }
    if (ok)
      continue;
    DIM_TRY_ASSIGN(msg, check.formatMessage(printer));
    return DimError::value(msg);
  }
  std::vector<std::pair<std::string, DimExpr>> values;
  for (auto &[name, e] : solved) {
    DIM_TRY_ASSIGN(v, eval(e));
    values.push_back({name, v});
  }
  llvm::sort(values,
             [](const auto &a, const auto &b) { return a.first < b.first; });
  return values;
}
