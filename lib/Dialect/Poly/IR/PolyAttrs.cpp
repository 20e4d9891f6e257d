//===- PolyAttrs.cpp - poly attributes ------------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"

#include "VerifierCache.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Poly/IR/PolyAttrs.cpp.inc"

void PolyDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/Poly/IR/PolyAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ShapeAttr
//===----------------------------------------------------------------------===//

/// The verifier cache of the poly dialect of `context`, or null.
static poly::detail::VerifierCache *getVerifierCache(MLIRContext *context) {
  auto *dialect = context->getLoadedDialect<PolyDialect>();
  return dialect ? &dialect->getVerifierCache() : nullptr;
}

LogicalResult ShapeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringAttr spec) {
  if (poly::detail::VerifierCache *cache = getVerifierCache(spec.getContext()))
    if (std::optional<std::string> error =
            cache->checkSyntax(spec, /*isExpr=*/false))
      return emitError() << *error;
  return success();
}

ShapeAttr ShapeAttr::get(MLIRContext *context, ArrayRef<DimExpr> dims) {
  std::string spec;
  llvm::raw_string_ostream os(spec);
  llvm::interleave(
      dims, os, [&](const DimExpr &d) { d.print(os); }, ", ");
  return get(context, StringRef(spec));
}

symbolic::DimResult<SmallVector<DimExpr>>
ShapeAttr::parse(symbolic::SymbolicScope &scope,
                 std::optional<ArrayRef<symbolic::LikeDim>> like) const {
  return symbolic::parseShapeSpec(getSpec().getValue(), scope, like);
}

SmallVector<StringRef> ShapeAttr::getDimStrings() const {
  StringRef spec = getSpec().getValue().trim();
  if (spec.starts_with("(") && spec.ends_with(")"))
    spec = spec.drop_front().drop_back().trim();
  SmallVector<StringRef> dims;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0, e = spec.size(); i <= e; ++i) {
    if (i < e && spec[i] == '(')
      ++depth;
    else if (i < e && spec[i] == ')')
      --depth;
    if (i == e || (spec[i] == ',' && depth == 0)) {
      StringRef dim = spec.slice(start, i).trim();
      if (!dim.empty() || i != e)
        dims.push_back(dim);
      start = i + 1;
    }
  }
  return dims;
}

//===----------------------------------------------------------------------===//
// ExprAttr
//===----------------------------------------------------------------------===//

LogicalResult ExprAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringAttr expr) {
  if (poly::detail::VerifierCache *cache = getVerifierCache(expr.getContext()))
    if (std::optional<std::string> error =
            cache->checkSyntax(expr, /*isExpr=*/true))
      return emitError() << *error;
  return success();
}

ExprAttr ExprAttr::get(MLIRContext *context, const DimExpr &expr) {
  return get(context, StringRef(expr.str()));
}

symbolic::DimResult<DimExpr>
ExprAttr::parse(symbolic::SymbolicScope &scope) const {
  return symbolic::parseDimExpr(getExpr().getValue(), scope);
}

//===----------------------------------------------------------------------===//
// Checks of a spec against a type
//===----------------------------------------------------------------------===//

SmallVector<symbolic::LikeDim> poly::getLikeShape(ShapedType type) {
  SmallVector<symbolic::LikeDim> like;
  for (int64_t size : type.getShape())
    like.push_back(ShapedType::isDynamic(size) ? symbolic::LikeDim()
                                               : symbolic::LikeDim(size));
  return like;
}

bool poly::specHasPlaceholder(StringRef spec) {
  if (spec.contains("..."))
    return true;
  auto isNameChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  for (size_t i = 0, e = spec.size(); i < e; ++i) {
    if (spec[i] != '_')
      continue;
    bool startsName = i == 0 || !isNameChar(spec[i - 1]);
    bool endsName = i + 1 == e || !isNameChar(spec[i + 1]);
    if (startsName && endsName)
      return true;
  }
  return false;
}

/// Prints `type` for messages.
static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

symbolic::DimStatus poly::checkShapeAgainstType(ArrayRef<DimExpr> dims,
                                                StringRef spec, ShapedType type,
                                                SpecKind kind) {
  auto error = [](const Twine &message) {
    return symbolic::DimStatus(symbolic::DimError::value(message));
  };
  if (static_cast<int64_t>(dims.size()) != type.getRank())
    return error("spec '" + spec + "' has " + Twine(dims.size()) +
                 (dims.size() == 1 ? " dimension" : " dimensions") + " but '" +
                 typeString(type) + "' has rank " + Twine(type.getRank()));
  for (auto [i, dim] : llvm::enumerate(dims)) {
    int64_t size = type.getDimSize(i);
    std::optional<int64_t> constant = dim.getConstant();
    // A `?` may hold any expression: for arguments, JAX's parser has
    // already rejected constants and placeholders there (`like` is None).
    if (ShapedType::isDynamic(size))
      continue;
    if (constant && *constant == size)
      continue;
    if (!constant && kind == SpecKind::Argument)
      return error("symbolic dimension '" + dim.str() + "' (dimension " +
                   Twine(i) + " of spec '" + spec + "') needs '?' in '" +
                   typeString(type) + "', which has the static size " +
                   Twine(size));
    return error("dimension " + Twine(i) + " of spec '" + spec + "' is '" +
                 dim.str() + "' but '" + typeString(type) +
                 "' has the static size " + Twine(size) + " there");
  }
  return symbolic::DimStatus::success();
}

symbolic::DimResult<SmallVector<DimExpr>>
poly::parseShapeForType(ShapeAttr spec, ShapedType type, SpecKind kind,
                        symbolic::SymbolicScope &scope) {
  SmallVector<symbolic::LikeDim> like;
  std::optional<ArrayRef<symbolic::LikeDim>> likeRef;
  if (kind == SpecKind::Argument) {
    like = getLikeShape(type);
    likeRef = ArrayRef<symbolic::LikeDim>(like);
  }
  symbolic::DimResult<SmallVector<DimExpr>> dims = spec.parse(scope, likeRef);
  if (!dims)
    return dims;
  symbolic::DimStatus status =
      checkShapeAgainstType(*dims, spec.getSpec().getValue(), type, kind);
  if (status.failed())
    return status.getError();
  return dims;
}
