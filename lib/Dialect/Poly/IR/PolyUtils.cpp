//===- PolyUtils.cpp - scopes, annotations and their readers --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/SymbolicShape/Decision.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;
using symbolic::DimResult;

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

/// Prints `attr` as a message value.
static std::string attrString(Attribute attr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  attr.print(os);
  return s;
}

DimResult<std::vector<std::string>>
poly::getConstraintStrings(Attribute constraints) {
  std::vector<std::string> result;
  if (!constraints)
    return result;
  auto array = dyn_cast<ArrayAttr>(constraints);
  if (!array) {
    std::string got =
        isa<StringAttr>(constraints)
            ? symbolic::pythonRepr(cast<StringAttr>(constraints).getValue())
            : attrString(constraints);
    return symbolic::DimError::value(
        "The symbolic constraints should be a sequence of strings. Got " + got);
  }
  for (Attribute element : array) {
    auto str = dyn_cast<StringAttr>(element);
    if (!str)
      return symbolic::DimError::value(
          "SymbolicScope constraint must be a string: got " +
          attrString(element));
    result.push_back(str.getValue().str());
  }
  return result;
}

//===----------------------------------------------------------------------===//
// ScopeCache
//===----------------------------------------------------------------------===//

ScopeCache::ScopeCache(symbolic::DecisionMode mode)
    : context(std::make_unique<symbolic::DimContext>()), mode(mode) {}

ScopeCache::~ScopeCache() {
  // Scopes refer to the context: destroy them first.
  scopes.clear();
  unconstrained.reset();
}

/// JAX prints where a scope was created as `<file>:<line>:<col>
/// (<function>)`; a function's scope was "created" at the function.
static std::string describeLocation(FunctionOpInterface func) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto loc = dyn_cast<FileLineColLoc>(func->getLoc()))
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn();
  else
    os << "unknown";
  os << " (@" << SymbolTable::getSymbolName(func).getValue() << ")";
  return s;
}

DimResult<symbolic::SymbolicScope *>
ScopeCache::getScope(FunctionOpInterface func) {
  auto it = scopes.find(func);
  if (it != scopes.end())
    return it->second.get();
  DimResult<std::vector<std::string>> constraints =
      getConstraintStrings(func->getAttr(PolyDialect::kConstraintsAttrName));
  if (!constraints)
    return constraints.getError();
  symbolic::ScopeOptions options;
  options.mode = mode;
  options.location = describeLocation(func);
  DimResult<std::unique_ptr<symbolic::SymbolicScope>> scope =
      symbolic::SymbolicScope::create(*context, *constraints, options);
  if (!scope)
    return scope.getError();
  if (symbolic::DimStatus status = (*scope)->verifyConstraints();
      status.failed())
    return status.getError();
  symbolic::SymbolicScope *result = scope->get();
  scopes[func] = std::move(*scope);
  return result;
}

DimResult<symbolic::SymbolicScope *> ScopeCache::getScopeFor(Operation *op) {
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    func = op->getParentOfType<FunctionOpInterface>();
  if (func)
    return getScope(func);
  if (!unconstrained) {
    symbolic::ScopeOptions options;
    options.mode = mode;
    DimResult<std::unique_ptr<symbolic::SymbolicScope>> scope =
        symbolic::SymbolicScope::create(*context, {}, options);
    if (!scope)
      return scope.getError();
    unconstrained = std::move(*scope);
  }
  return unconstrained.get();
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

Value poly::getRegionArgumentSource(BlockArgument arg) {
  Block *block = arg.getOwner();
  Region *region = block->getParent();
  Operation *parent = region ? region->getParentOp() : nullptr;
  if (!parent)
    return {};
  if (isa<FunctionOpInterface>(parent) && block->isEntryBlock())
    return arg;
  auto branch = dyn_cast<RegionBranchOpInterface>(parent);
  if (!branch || !block->isEntryBlock())
    return {};
  // The operands the parent forwards when it enters `region`.
  SmallVector<RegionSuccessor> successors;
  branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (const RegionSuccessor &successor : successors) {
    if (successor.getSuccessor() != region)
      continue;
    ValueRange inputs = successor.getSuccessorInputs();
    OperandRange operands = branch.getEntrySuccessorOperands(successor);
    for (auto [input, operand] : llvm::zip(inputs, operands))
      if (input == arg)
        return operand;
  }
  // The operands a terminator of another region forwards to `region`.
  for (Region &other : parent->getRegions()) {
    if (&other == region)
      continue;
    for (Block &otherBlock : other) {
      auto terminator = dyn_cast_if_present<RegionBranchTerminatorOpInterface>(
          otherBlock.getTerminator());
      if (!terminator)
        continue;
      SmallVector<RegionSuccessor> exits;
      SmallVector<Attribute> noConstants(terminator->getNumOperands());
      terminator.getSuccessorRegions(noConstants, exits);
      for (const RegionSuccessor &exit : exits) {
        if (exit.getSuccessor() != region)
          continue;
        ValueRange inputs = exit.getSuccessorInputs();
        OperandRange operands = terminator.getSuccessorOperands(exit);
        for (auto [input, operand] : llvm::zip(inputs, operands))
          if (input == arg)
            return operand;
      }
    }
  }
  return {};
}

/// The entry for result `index` of a per-result attribute `attr` of an op
/// with `numResults` results.
static Attribute getPerResultEntry(Attribute attr, unsigned index,
                                   unsigned numResults) {
  if (!attr)
    return {};
  if (numResults == 1)
    return attr;
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array || index >= array.size())
    return {};
  return array[index];
}

ShapeAttr poly::getShapeAnnotation(Value value) {
  // Follow region arguments to the values they are forwarded from (a chain
  // of nested loops forwards one value several times).
  for (unsigned depth = 0; depth < 64 && value; ++depth) {
    if (auto result = dyn_cast<OpResult>(value)) {
      Operation *op = result.getOwner();
      return dyn_cast_if_present<ShapeAttr>(
          getPerResultEntry(op->getAttr(PolyDialect::kShapeAttrName),
                            result.getResultNumber(), op->getNumResults()));
    }
    auto arg = cast<BlockArgument>(value);
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast_if_present<FunctionOpInterface>(parent);
        func && arg.getOwner()->isEntryBlock())
      return dyn_cast_if_present<ShapeAttr>(
          func.getArgAttr(arg.getArgNumber(), PolyDialect::kShapeAttrName));
    value = getRegionArgumentSource(arg);
  }
  return {};
}

ExprAttr poly::getValueAnnotation(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return {};
  Operation *op = result.getOwner();
  return dyn_cast_if_present<ExprAttr>(
      getPerResultEntry(op->getAttr(PolyDialect::kValueAttrName),
                        result.getResultNumber(), op->getNumResults()));
}

/// Sets the per-result attribute `name` of `op` from `entries`.
template <typename AttrT>
static void setPerResultAttr(Operation *op, StringRef name,
                             ArrayRef<AttrT> entries) {
  bool any = llvm::any_of(entries, [](AttrT a) { return bool(a); });
  if (!any) {
    op->removeAttr(name);
    return;
  }
  if (op->getNumResults() == 1) {
    op->setAttr(name, entries.front());
    return;
  }
  MLIRContext *context = op->getContext();
  SmallVector<Attribute> array;
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
    if (i < entries.size() && entries[i])
      array.push_back(entries[i]);
    else
      array.push_back(UnitAttr::get(context));
  }
  op->setAttr(name, ArrayAttr::get(context, array));
}

void poly::setResultAnnotations(Operation *op, ArrayRef<ShapeAttr> shapes,
                                ArrayRef<ExprAttr> values) {
  setPerResultAttr(op, PolyDialect::kShapeAttrName, shapes);
  setPerResultAttr(op, PolyDialect::kValueAttrName, values);
}

//===----------------------------------------------------------------------===//
// SymbolicShapeReader
//===----------------------------------------------------------------------===//

DimResult<symbolic::SymbolicScope *>
SymbolicShapeReader::getScope(Value value) {
  Operation *anchor = value.getDefiningOp();
  if (!anchor)
    anchor = cast<BlockArgument>(value).getOwner()->getParentOp();
  if (!anchor)
    return symbolic::DimError::value("the value is not in an operation");
  return scopes.getScopeFor(anchor);
}

DimResult<SmallVector<DimExpr>> SymbolicShapeReader::getShape(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasRank())
    return symbolic::DimError::value("the value does not have a ranked "
                                     "shaped type");
  ShapeAttr annotation = getShapeAnnotation(value);
  if (!annotation) {
    if (!type.hasStaticShape())
      return symbolic::DimError::value(
          "the value has dynamic dimensions but no 'poly.shape' annotation "
          "(run poly-infer first)");
    SmallVector<DimExpr> dims;
    for (int64_t size : type.getShape())
      dims.push_back(DimExpr(size));
    return dims;
  }
  DimResult<symbolic::SymbolicScope *> scope = getScope(value);
  if (!scope)
    return scope.getError();
  auto [it, inserted] = parsedShapes.try_emplace({annotation, *scope});
  if (!inserted)
    return it->second;
  // A function argument's spec may use placeholders, resolved against its
  // type; everything else is an inferred (result) spec.
  auto arg = dyn_cast<BlockArgument>(value);
  SpecKind kind = arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp())
                      ? SpecKind::Argument
                      : SpecKind::Result;
  DimResult<SmallVector<DimExpr>> dims =
      parseShapeForType(annotation, type, kind, **scope);
  if (!dims) {
    parsedShapes.erase({annotation, *scope});
    return dims;
  }
  parsedShapes[{annotation, *scope}] = *dims;
  return dims;
}

std::optional<DimExpr> SymbolicShapeReader::getValue(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)) &&
      constant.getSignificantBits() <= 64)
    return DimExpr(constant.getSExtValue());
  ExprAttr annotation = getValueAnnotation(value);
  if (!annotation)
    return std::nullopt;
  DimResult<symbolic::SymbolicScope *> scope = getScope(value);
  if (!scope)
    return std::nullopt;
  DimResult<DimExpr> expr = annotation.parse(**scope);
  if (!expr)
    return std::nullopt;
  return *expr;
}
