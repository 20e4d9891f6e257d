//===- SymbolicShape.cpp - Tessera C API: symbolic dimensions -------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera-c/SymbolicShape.h"

#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/Parser.h"
#include "tessera/SymbolicShape/Scope.h"
#include "tessera/SymbolicShape/Solve.h"

#include "mlir/CAPI/Support.h"
#include "llvm/ADT/STLExtras.h"

#include <memory>

using namespace mlir::tessera::symbolic;

namespace {
/// What a TesseraSymbolicScope points to: the storage and the scope.
struct ScopeHandle {
  DimContext context;
  std::unique_ptr<SymbolicScope> scope;
};
} // namespace

static ScopeHandle &unwrapScope(TesseraSymbolicScope scope) {
  return *static_cast<ScopeHandle *>(scope.ptr);
}

static void report(MlirStringCallback callback, void *userData,
                   const std::string &message) {
  if (callback)
    callback(mlirStringRefCreate(message.data(), message.size()), userData);
}

/// True if `text` has a comma outside parentheses (a shape spec).
static bool isShapeSpec(llvm::StringRef text) {
  int depth = 0;
  for (char c : text) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (c == ',' && depth <= 0)
      return true;
  }
  return false;
}

TesseraSymbolicScope
tesseraSymbolicScopeCreate(intptr_t numConstraints,
                           const MlirStringRef *constraints, bool jaxExact,
                           MlirStringCallback errorCallback, void *userData) {
  auto handle = std::make_unique<ScopeHandle>();
  std::vector<std::string> texts;
  for (intptr_t i = 0; i < numConstraints; ++i)
    texts.push_back(unwrap(constraints[i]).str());
  ScopeOptions options;
  options.mode = jaxExact ? DecisionMode::JaxExact : DecisionMode::Strong;
  options.location = "<C API>";
  auto scope = SymbolicScope::create(handle->context, texts, options);
  if (scope.failed()) {
    report(errorCallback, userData, scope.getError().getMessage());
    return TesseraSymbolicScope{nullptr};
  }
  handle->scope = std::move(*scope);
  DimStatus status = handle->scope->verifyConstraints();
  if (status.failed()) {
    report(errorCallback, userData, status.getError().getMessage());
    return TesseraSymbolicScope{nullptr};
  }
  return TesseraSymbolicScope{handle.release()};
}

void tesseraSymbolicScopeDestroy(TesseraSymbolicScope scope) {
  delete static_cast<ScopeHandle *>(scope.ptr);
}

MlirLogicalResult tesseraSymbolicNormalize(TesseraSymbolicScope scope,
                                           MlirStringRef expr,
                                           MlirStringCallback callback,
                                           void *userData) {
  SymbolicScope &s = *unwrapScope(scope).scope;
  llvm::StringRef text = unwrap(expr);
  if (isShapeSpec(text)) {
    auto shape = parseShapeSpec(text, s);
    if (shape.failed()) {
      report(callback, userData, shape.getError().getMessage());
      return mlirLogicalResultFailure();
    }
    report(callback, userData, formatShape(*shape));
    return mlirLogicalResultSuccess();
  }
  auto e = parseDimExpr(text, s);
  if (e.failed()) {
    report(callback, userData, e.getError().getMessage());
    return mlirLogicalResultFailure();
  }
  report(callback, userData, e->str());
  return mlirLogicalResultSuccess();
}

TesseraCompareResult tesseraSymbolicCompare(TesseraSymbolicScope scope,
                                            MlirStringRef lhs, MlirStringRef op,
                                            MlirStringRef rhs,
                                            MlirStringCallback errorCallback,
                                            void *userData) {
  SymbolicScope &s = *unwrapScope(scope).scope;
  std::optional<CompareOp> cmp;
  for (CompareOp candidate : {CompareOp::GE, CompareOp::LE, CompareOp::GT,
                              CompareOp::LT, CompareOp::EQ, CompareOp::NE})
    if (getCompareOpSpelling(candidate) == unwrap(op).trim())
      cmp = candidate;
  if (!cmp) {
    report(errorCallback, userData,
           "invalid comparison operator '" + unwrap(op).str() +
               "' (expected one of >= <= > < == !=)");
    return TesseraCompareError;
  }
  auto l = parseDimExpr(unwrap(lhs), s);
  if (l.failed()) {
    report(errorCallback, userData, l.getError().getMessage());
    return TesseraCompareError;
  }
  auto r = parseDimExpr(unwrap(rhs), s);
  if (r.failed()) {
    report(errorCallback, userData, r.getError().getMessage());
    return TesseraCompareError;
  }
  auto result = compare(*l, *cmp, *r);
  if (result.failed()) {
    report(errorCallback, userData, result.getError().getMessage());
    return result.getError().getKind() == DimErrorKind::Inconclusive
               ? TesseraCompareInconclusive
               : TesseraCompareError;
  }
  return *result ? TesseraCompareTrue : TesseraCompareFalse;
}

MlirLogicalResult tesseraSymbolicSolve(TesseraSymbolicScope scope,
                                       MlirStringRef spec, intptr_t rank,
                                       const int64_t *dims,
                                       TesseraDimVarCallback callback,
                                       MlirStringCallback errorCallback,
                                       void *userData) {
  SymbolicScope &s = *unwrapScope(scope).scope;
  auto shape = parseShapeSpec(unwrap(spec), s);
  if (shape.failed()) {
    report(errorCallback, userData, shape.getError().getMessage());
    return mlirLogicalResultFailure();
  }
  ArgShapeSpec arg{"args[0]", llvm::SmallVector<DimExpr>(*shape)};
  auto solution = solveDimVars(arg);
  if (solution.failed()) {
    report(errorCallback, userData, solution.getError().getMessage());
    return mlirLogicalResultFailure();
  }
  ConcreteShape concrete(dims, dims + rank);
  auto values = solution->checkConcreteShapes(concrete);
  if (values.failed()) {
    report(errorCallback, userData, values.getError().getMessage());
    return mlirLogicalResultFailure();
  }
  for (auto &[name, value] : *values)
    callback(mlirStringRefCreate(name.data(), name.size()), value, userData);
  return mlirLogicalResultSuccess();
}
