//===- FunctionShapes.cpp - argument specs and their solution -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/FunctionShapes.h"

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/SymbolicShape/Evaluate.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;
using symbolic::DimResult;

bool poly::hasArgumentSpecs(FunctionOpInterface func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, PolyDialect::kShapeAttrName))
      return true;
  return false;
}

FailureOr<FunctionShapes> poly::solveFunctionShapes(FunctionOpInterface func,
                                                    ScopeCache &scopes) {
  FunctionShapes result;
  DimResult<symbolic::SymbolicScope *> scope = scopes.getScope(func);
  if (!scope)
    return func->emitOpError(PolyDialect::kConstraintsAttrName)
           << " - " << scope.getError().getMessage();
  result.scope = *scope;

  bool anySymbolic = false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto shaped = dyn_cast<ShapedType>(func.getArgumentTypes()[i]);
    auto spec =
        func.getArgAttrOfType<ShapeAttr>(i, PolyDialect::kShapeAttrName);
    symbolic::ArgShapeSpec arg;
    arg.name = ("args[" + Twine(i) + "]").str();
    if (spec) {
      if (!shaped || !shaped.hasRank())
        return func->emitOpError("arg ")
               << i << " - 'poly.shape' requires a ranked shaped type";
      DimResult<SmallVector<DimExpr>> dims =
          parseShapeForType(spec, shaped, SpecKind::Argument, *result.scope);
      if (!dims)
        return func->emitOpError("arg ")
               << i << " - " << dims.getError().getMessage();
      arg.shape.assign(dims->begin(), dims->end());
      anySymbolic |= llvm::any_of(
          arg.shape, [](const DimExpr &d) { return !d.isConstant(); });
    } else if (shaped && shaped.hasStaticShape()) {
      for (int64_t size : shaped.getShape())
        arg.shape.push_back(DimExpr(size));
    } else if (shaped) {
      return func->emitOpError("arg ")
             << i
             << " - has dynamic dimensions but no 'poly.shape' (every "
                "argument of a polymorphic function needs a spec)";
    }
    result.hasSpec.push_back(static_cast<bool>(spec));
    result.args.push_back(std::move(arg));
  }
  if (!anySymbolic) {
    // Without symbolic arguments no variable of a constraint has a value.
    for (const symbolic::ExplicitConstraint &c :
         result.scope->getConstraints()) {
      SmallVector<std::string> vars = c.lhs.getVariables();
      if (vars.empty())
        vars = c.rhs.getVariables();
      if (!vars.empty())
        return func->emitOpError()
               << symbolic::formatUnexpectedDimVar(vars.front(), {});
    }
    return result;
  }
  StringRef name = SymbolTable::getSymbolName(func).getValue();
  DimResult<symbolic::DimVarSolution> solution =
      symbolic::solveDimVars(result.args, name);
  if (!solution)
    return func->emitOpError() << solution.getError().getMessage();
  result.solution = std::move(*solution);
  return result;
}
