//===- PolyVerifiers.cpp - poly attribute hooks and op verifiers ----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyOps.h"
#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/SymbolicShape/Decision.h"

#include "VerifierCache.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;

//===----------------------------------------------------------------------===//
// VerifierCache
//===----------------------------------------------------------------------===//

poly::detail::VerifierCache::VerifierCache() {
  symbolic::DimResult<std::unique_ptr<symbolic::SymbolicScope>> scope =
      symbolic::SymbolicScope::create(context);
  assert(scope && "a scope without constraints cannot fail");
  unconstrained = std::move(*scope);
}

poly::detail::VerifierCache::~VerifierCache() = default;

std::optional<std::string>
poly::detail::VerifierCache::checkSyntax(StringAttr text, bool isExpr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = syntax.try_emplace({text, isExpr ? 1u : 0u});
  if (!inserted)
    return it->second;
  std::optional<std::string> error;
  if (isExpr) {
    symbolic::DimResult<DimExpr> expr =
        symbolic::parseDimExpr(text.getValue(), *unconstrained);
    if (!expr)
      error = expr.getError().getMessage();
  } else {
    symbolic::DimResult<SmallVector<DimExpr>> dims =
        symbolic::parseShapeSpec(text.getValue(), *unconstrained);
    if (!dims && !specHasPlaceholder(text.getValue()))
      error = dims.getError().getMessage();
  }
  it->second = error;
  return error;
}

symbolic::SymbolicScope *
poly::detail::VerifierCache::getScope(Attribute constraints,
                                      std::optional<std::string> &error) {
  if (!constraints)
    return unconstrained.get();
  if (auto it = scopes.find(constraints); it != scopes.end())
    return it->second.get();
  if (auto it = scopeErrors.find(constraints); it != scopeErrors.end()) {
    error = it->second;
    return nullptr;
  }
  auto fail = [&](const symbolic::DimError &e) -> symbolic::SymbolicScope * {
    scopeErrors[constraints] = e.getMessage();
    error = e.getMessage();
    return nullptr;
  };
  symbolic::DimResult<std::vector<std::string>> strings =
      getConstraintStrings(constraints);
  if (!strings)
    return fail(strings.getError());
  symbolic::DimResult<std::unique_ptr<symbolic::SymbolicScope>> scope =
      symbolic::SymbolicScope::create(context, *strings);
  if (!scope)
    return fail(scope.getError());
  if (symbolic::DimStatus status = (*scope)->verifyConstraints();
      status.failed())
    return fail(status.getError());
  symbolic::SymbolicScope *result = scope->get();
  scopes[constraints] = std::move(*scope);
  return result;
}

std::optional<std::string>
poly::detail::VerifierCache::checkConstraints(Attribute constraints) {
  std::lock_guard<std::mutex> lock(mutex);
  std::optional<std::string> error;
  (void)getScope(constraints, error);
  return error;
}

std::optional<std::string>
poly::detail::VerifierCache::checkShape(ShapeAttr spec, ShapedType type,
                                        SpecKind kind, Attribute constraints) {
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(Attribute(spec), Type(type),
                             static_cast<int>(kind), constraints);
  if (auto it = shapes.find(key); it != shapes.end())
    return it->second;
  std::optional<std::string> scopeError;
  symbolic::SymbolicScope *scope = getScope(constraints, scopeError);
  std::optional<std::string> error;
  if (scope) {
    symbolic::DimResult<SmallVector<DimExpr>> dims =
        parseShapeForType(spec, type, kind, *scope);
    if (!dims)
      error = dims.getError().getMessage();
  }
  shapes[key] = error;
  return error;
}

std::optional<std::string>
poly::detail::VerifierCache::checkExpr(ExprAttr expr, Attribute constraints) {
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_pair(Attribute(expr), constraints);
  if (auto it = exprs.find(key); it != exprs.end())
    return it->second;
  std::optional<std::string> scopeError;
  symbolic::SymbolicScope *scope = getScope(constraints, scopeError);
  std::optional<std::string> error;
  if (scope) {
    symbolic::DimResult<DimExpr> value = expr.parse(*scope);
    if (!value)
      error = value.getError().getMessage();
  }
  exprs[key] = error;
  return error;
}

//===----------------------------------------------------------------------===//
// Attribute hooks
//===----------------------------------------------------------------------===//

/// The `poly.constraints` of the function that is or encloses `op`.
static Attribute getEnclosingConstraints(Operation *op) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    func = op->getParentOfType<FunctionOpInterface>();
  return func ? func->getAttr(PolyDialect::kConstraintsAttrName) : Attribute();
}

/// True for the types `poly.value` may annotate.
static bool isIndexOrInteger(Type type) {
  return type.isIndex() || type.isSignlessInteger();
}

/// The `result - ` / `result #i - ` prefix of a message about result `i` of
/// an op with `numResults` results.
static std::string resultPrefix(unsigned i, unsigned numResults) {
  if (numResults == 1)
    return "result - ";
  return ("result #" + Twine(i) + " - ").str();
}

/// Verifies the `poly.shape` entry `entry` of result `i` of `op`.
static LogicalResult verifyResultShape(Operation *op, unsigned i,
                                       Attribute entry,
                                       poly::detail::VerifierCache &cache,
                                       Attribute constraints) {
  std::string prefix = resultPrefix(i, op->getNumResults());
  if (isa<UnitAttr>(entry) && op->getNumResults() > 1)
    return success();
  auto spec = dyn_cast<ShapeAttr>(entry);
  if (!spec)
    return op->emitOpError(prefix)
           << "'poly.shape' must be a #poly.shape attribute"
           << (op->getNumResults() > 1 ? " or unit" : "");
  auto type = dyn_cast<ShapedType>(op->getResult(i).getType());
  if (!type || !type.hasRank())
    return op->emitOpError(prefix)
           << "'poly.shape' requires a ranked shaped type, got "
           << op->getResult(i).getType();
  if (std::optional<std::string> error =
          cache.checkShape(spec, type, SpecKind::Result, constraints))
    return op->emitOpError(prefix) << *error;
  return success();
}

/// Verifies the `poly.value` entry `entry` of result `i` of `op`.
static LogicalResult verifyResultValue(Operation *op, unsigned i,
                                       Attribute entry,
                                       poly::detail::VerifierCache &cache,
                                       Attribute constraints) {
  std::string prefix = resultPrefix(i, op->getNumResults());
  if (isa<UnitAttr>(entry) && op->getNumResults() > 1)
    return success();
  auto expr = dyn_cast<ExprAttr>(entry);
  if (!expr)
    return op->emitOpError(prefix)
           << "'poly.value' must be a #poly.expr attribute"
           << (op->getNumResults() > 1 ? " or unit" : "");
  if (!isIndexOrInteger(op->getResult(i).getType()))
    return op->emitOpError(prefix)
           << "'poly.value' requires an index or integer type, got "
           << op->getResult(i).getType();
  if (std::optional<std::string> error = cache.checkExpr(expr, constraints))
    return op->emitOpError(prefix) << *error;
  return success();
}

/// Verifies a per-result annotation (`poly.shape` / `poly.value`) of `op`:
/// one attribute for one result, an array with one entry per result for
/// several.
static LogicalResult verifyPerResultAttr(
    Operation *op, NamedAttribute attr,
    function_ref<LogicalResult(unsigned, Attribute)> verifyEntry) {
  StringRef name = attr.getName().getValue();
  if (isa<FunctionOpInterface>(op))
    return op->emitOpError("'")
           << name
           << "' belongs on the arguments and results of a function, not "
              "on the function";
  unsigned numResults = op->getNumResults();
  if (numResults == 0)
    return op->emitOpError("'") << name << "' requires an op with results";
  if (numResults == 1)
    return verifyEntry(0, attr.getValue());
  auto array = dyn_cast<ArrayAttr>(attr.getValue());
  if (!array)
    return op->emitOpError("'")
           << name << "' of an op with " << numResults
           << " results must be an array with one entry per result";
  if (array.size() != numResults)
    return op->emitOpError("'")
           << name << "' has " << array.size() << " entries but the op has "
           << numResults << " results";
  for (auto [i, entry] : llvm::enumerate(array.getValue()))
    if (failed(verifyEntry(i, entry)))
      return failure();
  return success();
}

LogicalResult PolyDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  poly::detail::VerifierCache &cache = getVerifierCache();
  if (name == kConstraintsAttrName) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError("'")
             << kConstraintsAttrName << "' is only allowed on functions";
    if (std::optional<std::string> error =
            cache.checkConstraints(attr.getValue()))
      return op->emitOpError(kConstraintsAttrName) << " - " << *error;
    return success();
  }
  if (name == kShapeAttrName) {
    Attribute constraints = getEnclosingConstraints(op);
    return verifyPerResultAttr(op, attr, [&](unsigned i, Attribute entry) {
      return verifyResultShape(op, i, entry, cache, constraints);
    });
  }
  if (name == kValueAttrName) {
    Attribute constraints = getEnclosingConstraints(op);
    return verifyPerResultAttr(op, attr, [&](unsigned i, Attribute entry) {
      return verifyResultValue(op, i, entry, cache, constraints);
    });
  }
  if (name == kAssertionsInsertedAttrName) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError("'")
             << kAssertionsInsertedAttrName << "' is only allowed on functions";
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError("'")
             << kAssertionsInsertedAttrName << "' must be a unit attribute";
    return success();
  }
  return op->emitOpError("unknown poly attribute '") << name << "'";
}

/// Verifies a `poly.shape` on argument or result `index` (of type `type`) of
/// the function `op`.
static LogicalResult
verifyFunctionValueAttr(Operation *op, Type type, unsigned index,
                        StringRef kind, NamedAttribute attr, SpecKind specKind,
                        poly::detail::VerifierCache &cache) {
  auto emitError = [&]() {
    return op->emitOpError(kind) << " " << index << " - ";
  };
  if (attr.getName() != PolyDialect::kShapeAttrName)
    return emitError() << "unknown poly " << kind << " attribute '"
                       << attr.getName().getValue() << "'";
  auto spec = dyn_cast<ShapeAttr>(attr.getValue());
  if (!spec)
    return emitError() << "'poly.shape' must be a #poly.shape attribute";
  auto shaped = dyn_cast_if_present<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return emitError() << "'poly.shape' requires a ranked shaped type, got "
                       << type;
  if (std::optional<std::string> error =
          cache.checkShape(spec, shaped, specKind, getEnclosingConstraints(op)))
    return emitError() << *error;
  return success();
}

LogicalResult PolyDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op)) {
    if (argIndex < func.getNumArguments())
      type = func.getArgumentTypes()[argIndex];
  }
  return verifyFunctionValueAttr(op, type, argIndex, "arg", attr,
                                 SpecKind::Argument, getVerifierCache());
}

LogicalResult PolyDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  Type type;
  if (auto func = dyn_cast<FunctionOpInterface>(op)) {
    if (resultIndex < func.getNumResults())
      type = func.getResultTypes()[resultIndex];
  }
  return verifyFunctionValueAttr(op, type, resultIndex, "result", attr,
                                 SpecKind::Result, getVerifierCache());
}

//===----------------------------------------------------------------------===//
// ShapeAssertionOp
//===----------------------------------------------------------------------===//

LogicalResult ShapeAssertionOp::verify() {
  unsigned numInputs = getInputs().size();
  if (numInputs > kMaxInputs)
    return emitOpError("expects at most ")
           << kMaxInputs << " error message inputs, got " << numInputs;
  StringRef message = getErrorMessage();
  for (size_t i = 0, e = message.size(); i < e; ++i) {
    if (message[i] != '{')
      continue;
    if (i + 1 < e && message[i + 1] == '{') {
      ++i;
      continue;
    }
    size_t end = message.find('}', i);
    StringRef digits =
        end == StringRef::npos ? StringRef() : message.slice(i + 1, end);
    unsigned index;
    if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
        digits.getAsInteger(10, index))
      return emitOpError("expects error_message to contain only format "
                         "specifiers '{N}' and escaped braces '{{', found '")
             << message.substr(i, end == StringRef::npos ? 8 : end - i + 1)
             << "' at offset " << i;
    if (index >= numInputs)
      return emitOpError("expects error_message to contain format "
                         "specifiers with error_message_input index less "
                         "than ")
             << numInputs << ", found specifier '" << message.slice(i, end + 1)
             << "'";
    i = end;
  }
  return success();
}
