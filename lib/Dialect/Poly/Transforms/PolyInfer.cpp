//===- PolyInfer.cpp - symbolic shape inference and checking --------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `poly-infer` pass: JAX's shape polymorphism at compile time. Functions
// are analyzed callees first; each gets its own symbolic scope (its
// `poly.constraints`), its argument specs are parsed and its dimension
// variables solved (JAX's export-time `solve_dim_vars`), and every op of its
// body is inferred in order through `poly::SymbolicShapeOpInterface`. The
// results are written back as `poly.shape` / `poly.value` annotations.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/Passes.h"

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyInterfaces.h"
#include "tessera/Dialect/Poly/IR/PolyShapeRules.h"
#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/SymbolicShape/Evaluate.h"
#include "tessera/SymbolicShape/Solve.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tessera::poly {
#define GEN_PASS_DEF_POLYINFERPASS
#include "tessera/Dialect/Poly/Transforms/Passes.h.inc"
} // namespace mlir::tessera::poly

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;
using symbolic::DimResult;

namespace {

/// Where a function is in the analysis.
enum class FunctionState {
  /// Not analyzed (yet).
  Unvisited,
  /// Being analyzed: a call to it now is a recursive call.
  InProgress,
  /// Analyzed; its signature is known.
  Done,
  /// Analysis failed; the error was reported.
  Failed,
  /// Not a polymorphic function (a dynamic argument without a spec) and not
  /// asked to be one: left alone.
  NotPolymorphic,
};

/// Everything known about one function.
struct FunctionInfo {
  FunctionOpInterface func;
  FunctionState state = FunctionState::Unvisited;
  /// The function carries `poly.shape` / `poly.constraints`.
  bool annotated = false;
  /// The function must be analyzed (annotated, calls or is called by an
  /// analyzed function).
  bool relevant = false;
  /// The direct callees, in call order (deduplicated).
  SmallVector<FunctionOpInterface> callees;
  /// Why calling a NotPolymorphic function is not supported.
  std::string notPolymorphicReason;
  symbolic::SymbolicScope *scope = nullptr;
  SmallVector<SymbolicValue> args;
  std::optional<symbolic::DimVarSolution> solution;
  SmallVector<SymbolicValue> results;
  /// The symbolic value of every SSA value of the body.
  DenseMap<Value, SymbolicValue> values;
};

class PolyInferDriver;

/// The inference of one function body; the context the models see.
class FunctionAnalysis : public SymbolicShapeContext {
public:
  FunctionAnalysis(PolyInferDriver &driver, FunctionInfo &info)
      : driver(driver), info(info) {}

  symbolic::SymbolicScope &getScope() override { return *info.scope; }
  SymbolicValue lookup(Value value) override;
  LogicalResult inferRegion(Region &region,
                            ArrayRef<SymbolicValue> arguments) override;
  FailureOr<FunctionSignature>
  getCalleeSignature(CallOpInterface call) override;
  bool allowsRewrites() const override { return true; }
  void recordValue(Value value, const SymbolicValue &symbolicValue) override {
    info.values[value] = symbolicValue;
  }

private:
  LogicalResult inferOp(Operation *op);
  bool touchesSymbolicValues(Operation *op, ArrayRef<SymbolicValue> operands);
  LogicalResult checkResult(Operation *op, unsigned index,
                            SymbolicValue &value);

  PolyInferDriver &driver;
  FunctionInfo &info;
};

/// The pass's state over one module.
class PolyInferDriver {
public:
  PolyInferDriver(ModuleOp module, symbolic::DecisionMode mode)
      : module(module), scopes(mode) {}

  /// Analyzes every relevant function and annotates the successful ones.
  LogicalResult run();

  /// The info of `func` (null if it is not a function of the module).
  FunctionInfo *getInfo(Operation *func) {
    auto it = infos.find(func);
    return it == infos.end() ? nullptr : it->second.get();
  }

  SymbolTableCollection &getSymbolTables() { return symbolTables; }

private:
  void collectFunctions();
  void markRelevant();
  SmallVector<FunctionInfo *> getPostOrder();
  LogicalResult analyze(FunctionInfo &info);
  LogicalResult parseArguments(FunctionInfo &info,
                               SmallVectorImpl<symbolic::ArgShapeSpec> &specs);
  LogicalResult parseDeclaredResults(
      FunctionInfo &info,
      SmallVectorImpl<std::optional<SmallVector<DimExpr>>> &declared);
  void annotate(FunctionInfo &info);
  ShapeAttr getShapeAttr(ArrayRef<DimExpr> dims);
  ExprAttr getExprAttr(const DimExpr &expr);
  const std::string &print(const DimExpr &expr);

  ModuleOp module;
  ScopeCache scopes;
  SymbolTableCollection symbolTables;
  /// Every function, in module order.
  SmallVector<FunctionInfo *> moduleOrder;
  DenseMap<Operation *, std::unique_ptr<FunctionInfo>> infos;
  DenseMap<DimExpr, std::string> printed;
};

} // namespace

//===----------------------------------------------------------------------===//
// FunctionAnalysis
//===----------------------------------------------------------------------===//

/// The static shape of `type`, or std::nullopt.
static std::optional<Shape> getStaticShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  Shape shape;
  for (int64_t size : shaped.getShape())
    shape.push_back(DimExpr(size));
  return shape;
}

/// True for a type with a dynamic dimension or no rank.
static bool hasDynamicShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

SymbolicValue FunctionAnalysis::lookup(Value value) {
  auto it = info.values.find(value);
  if (it != info.values.end())
    return it->second;
  if (std::optional<Shape> shape = getStaticShape(value.getType()))
    return SymbolicValue::getShaped(*shape);
  return SymbolicValue();
}

LogicalResult FunctionAnalysis::inferRegion(Region &region,
                                            ArrayRef<SymbolicValue> arguments) {
  if (region.empty())
    return success();
  if (!region.hasOneBlock())
    return region.getParentOp()->emitOpError(
        "not supported by poly-infer: a region with several blocks");
  Block &block = region.front();
  if (arguments.size() != block.getNumArguments())
    return region.getParentOp()->emitOpError("expected ")
           << block.getNumArguments()
           << " symbolic values for the region arguments, got "
           << arguments.size();
  for (auto [arg, value] : llvm::zip_equal(block.getArguments(), arguments))
    if (!value.isUnknown())
      info.values[arg] = value;
  // A rewrite only inserts ops before the op being inferred.
  for (Operation &op : llvm::make_early_inc_range(block))
    if (failed(inferOp(&op)))
      return failure();
  return success();
}

bool FunctionAnalysis::touchesSymbolicValues(Operation *op,
                                             ArrayRef<SymbolicValue> operands) {
  if (llvm::any_of(op->getOperandTypes(), hasDynamicShape) ||
      llvm::any_of(op->getResultTypes(), hasDynamicShape))
    return true;
  for (const SymbolicValue &operand : operands)
    if (operand.hasScalar() && !operand.getScalar().isConstant())
      return true;
  if (op->getNumRegions() == 0)
    return false;
  WalkResult walk = op->walk([&](Operation *nested) {
    if (nested == op)
      return WalkResult::advance();
    if (llvm::any_of(nested->getOperandTypes(), hasDynamicShape) ||
        llvm::any_of(nested->getResultTypes(), hasDynamicShape))
      return WalkResult::interrupt();
    for (Value operand : nested->getOperands()) {
      if (op->isAncestor(operand.getParentBlock()->getParentOp()))
        continue;
      SymbolicValue value = lookup(operand);
      if (value.hasScalar() && !value.getScalar().isConstant())
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

LogicalResult FunctionAnalysis::checkResult(Operation *op, unsigned index,
                                            SymbolicValue &value) {
  Type type = op->getResult(index).getType();
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return success();
  if (!shaped.hasRank())
    return op->emitOpError("not supported by poly-infer: unranked result #")
           << index;
  if (!value.hasShape()) {
    if (std::optional<Shape> shape = getStaticShape(type)) {
      value = SymbolicValue::getShaped(*shape);
      return success();
    }
    return op->emitOpError("the symbolic shape of result #")
           << index << " is unknown";
  }
  if (value.getRank() != shaped.getRank())
    return op->emitOpError("result #")
           << index << " has rank " << shaped.getRank()
           << " but its symbolic shape "
           << symbolic::formatShape(value.getShape()) << " has rank "
           << value.getRank();
  for (auto [d, size] : llvm::enumerate(shaped.getShape())) {
    if (ShapedType::isDynamic(size) ||
        definitelyEqual(value.getShape()[d], DimExpr(size)))
      continue;
    return op->emitOpError("result #")
           << index << " has type " << type << " but its symbolic shape is "
           << symbolic::formatShape(value.getShape()) << ": dimension " << d
           << " is not provably " << size;
  }
  return success();
}

LogicalResult FunctionAnalysis::inferOp(Operation *op) {
  SmallVector<SymbolicValue, 4> operands;
  operands.reserve(op->getNumOperands());
  for (Value operand : op->getOperands())
    operands.push_back(lookup(operand));
  auto iface = dyn_cast<SymbolicShapeOpInterface>(op);
  if (!iface) {
    if (touchesSymbolicValues(op, operands))
      return op->emitOpError(
          "not supported by poly-infer: the op has no symbolic shape rule "
          "(poly::SymbolicShapeOpInterface) and uses or produces symbolic "
          "shapes or dimension values");
    return success();
  }
  // Every shaped value that reaches a model has a symbolic shape: values of
  // ops without a rule that produce dynamic or unranked shapes are rejected.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (isa<ShapedType>(operand.getType()) && !operands[i].hasShape())
      return op->emitOpError("the symbolic shape of operand #")
             << i << " is unknown";
  SmallVector<SymbolicValue, 2> results;
  if (failed(iface.inferSymbolicShapes(operands, results, *this)))
    return failure();
  if (results.size() != op->getNumResults())
    return op->emitOpError("the symbolic shape rule gave ")
           << results.size() << " values for " << op->getNumResults()
           << " results";
  for (auto [i, value] : llvm::enumerate(results)) {
    if (failed(checkResult(op, i, value)))
      return failure();
    if (!value.isUnknown())
      info.values[op->getResult(i)] = std::move(value);
  }
  return success();
}

FailureOr<FunctionSignature>
FunctionAnalysis::getCalleeSignature(CallOpInterface call) {
  Operation *callee = call.resolveCallableInTable(&driver.getSymbolTables());
  FunctionInfo *calleeInfo = callee ? driver.getInfo(callee) : nullptr;
  if (!calleeInfo)
    return call->emitOpError(
        "not supported by poly-infer: the callee is not a function of the "
        "module");
  StringRef name = SymbolTable::getSymbolName(callee).getValue();
  switch (calleeInfo->state) {
  case FunctionState::Done: {
    FunctionSignature signature;
    signature.scope = calleeInfo->scope;
    signature.solution =
        calleeInfo->solution ? &*calleeInfo->solution : nullptr;
    signature.results = calleeInfo->results;
    return signature;
  }
  case FunctionState::Failed:
    // The callee's error was reported.
    return failure();
  case FunctionState::NotPolymorphic:
    return call->emitOpError("not supported by poly-infer: calling @")
           << name << ", whose " << calleeInfo->notPolymorphicReason;
  case FunctionState::Unvisited:
  case FunctionState::InProgress:
    break;
  }
  return call->emitOpError("not supported by poly-infer: recursive call to @")
         << name;
}

//===----------------------------------------------------------------------===//
// PolyInferDriver
//===----------------------------------------------------------------------===//

/// True if `func` carries poly annotations.
static bool hasPolyAnnotations(FunctionOpInterface func) {
  if (func->hasAttr(PolyDialect::kConstraintsAttrName))
    return true;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, PolyDialect::kShapeAttrName))
      return true;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, PolyDialect::kShapeAttrName))
      return true;
  return false;
}

void PolyInferDriver::collectFunctions() {
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return WalkResult::advance();
    auto info = std::make_unique<FunctionInfo>();
    info->func = func;
    info->annotated = hasPolyAnnotations(func);
    moduleOrder.push_back(info.get());
    infos[op] = std::move(info);
    return WalkResult::skip();
  });
  // The direct callees of every function, in call order.
  for (FunctionInfo *info : moduleOrder) {
    llvm::SetVector<Operation *> callees;
    info->func->walk([&](CallOpInterface call) {
      Operation *callee = call.resolveCallableInTable(&symbolTables);
      if (callee && infos.count(callee))
        callees.insert(callee);
    });
    for (Operation *callee : callees)
      info->callees.push_back(cast<FunctionOpInterface>(callee));
  }
}

void PolyInferDriver::markRelevant() {
  // Callers of annotated functions, transitively.
  DenseMap<Operation *, SmallVector<FunctionInfo *>> callers;
  SmallVector<FunctionInfo *> relevant;
  for (FunctionInfo *info : moduleOrder) {
    for (FunctionOpInterface callee : info->callees)
      callers[callee].push_back(info);
    if (info->annotated) {
      info->relevant = true;
      relevant.push_back(info);
    }
  }
  SmallVector<FunctionInfo *> upward = relevant;
  while (!upward.empty()) {
    FunctionInfo *info = upward.pop_back_val();
    for (FunctionInfo *caller : callers[info->func])
      if (!caller->relevant) {
        caller->relevant = true;
        relevant.push_back(caller);
        upward.push_back(caller);
      }
  }
  // Callees of relevant functions, transitively.
  while (!relevant.empty()) {
    FunctionInfo *info = relevant.pop_back_val();
    for (FunctionOpInterface callee : info->callees) {
      FunctionInfo *calleeInfo = getInfo(callee);
      if (!calleeInfo->relevant) {
        calleeInfo->relevant = true;
        relevant.push_back(calleeInfo);
      }
    }
  }
}

SmallVector<FunctionInfo *> PolyInferDriver::getPostOrder() {
  SmallVector<FunctionInfo *> order;
  DenseSet<FunctionInfo *> visited;
  for (FunctionInfo *root : moduleOrder) {
    if (!root->relevant || !visited.insert(root).second)
      continue;
    // Iterative depth-first search, callees first.
    SmallVector<std::pair<FunctionInfo *, unsigned>> stack = {{root, 0}};
    while (!stack.empty()) {
      auto &[info, next] = stack.back();
      if (next < info->callees.size()) {
        FunctionInfo *callee = getInfo(info->callees[next++]);
        if (callee->relevant && visited.insert(callee).second)
          stack.push_back({callee, 0});
        continue;
      }
      order.push_back(info);
      stack.pop_back();
    }
  }
  return order;
}

LogicalResult PolyInferDriver::parseArguments(
    FunctionInfo &info, SmallVectorImpl<symbolic::ArgShapeSpec> &specs) {
  FunctionOpInterface func = info.func;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    Type type = func.getArgumentTypes()[i];
    auto shaped = dyn_cast<ShapedType>(type);
    auto spec =
        func.getArgAttrOfType<ShapeAttr>(i, PolyDialect::kShapeAttrName);
    symbolic::ArgShapeSpec argSpec;
    argSpec.name = ("args[" + Twine(i) + "]").str();
    if (spec) {
      if (!shaped || !shaped.hasRank())
        return func->emitOpError("arg ")
               << i << " - 'poly.shape' requires a ranked shaped type";
      DimResult<SmallVector<DimExpr>> dims =
          parseShapeForType(spec, shaped, SpecKind::Argument, *info.scope);
      if (!dims)
        return func->emitOpError("arg ")
               << i << " - " << dims.getError().getMessage();
      argSpec.shape.assign(dims->begin(), dims->end());
      info.args.push_back(SymbolicValue::getShaped(*dims));
    } else if (shaped && shaped.hasStaticShape()) {
      for (int64_t size : shaped.getShape())
        argSpec.shape.push_back(DimExpr(size));
      info.args.push_back(SymbolicValue::getShaped(argSpec.shape));
    } else if (shaped) {
      std::string reason = ("argument #" + Twine(i) +
                            " has dynamic dimensions but no 'poly.shape'")
                               .str();
      if (info.annotated)
        return func->emitOpError("arg ")
               << i
               << " - has dynamic dimensions but no 'poly.shape' (every "
                  "argument of a polymorphic function needs a spec)";
      info.notPolymorphicReason = reason;
      info.state = FunctionState::NotPolymorphic;
      return failure();
    } else {
      info.args.push_back(SymbolicValue());
    }
    specs.push_back(std::move(argSpec));
  }
  return success();
}

LogicalResult PolyInferDriver::parseDeclaredResults(
    FunctionInfo &info,
    SmallVectorImpl<std::optional<SmallVector<DimExpr>>> &declared) {
  FunctionOpInterface func = info.func;
  SmallVector<std::string> argVars;
  if (info.solution)
    argVars = info.solution->getDimVars();
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    declared.emplace_back();
    auto spec =
        func.getResultAttrOfType<ShapeAttr>(i, PolyDialect::kShapeAttrName);
    if (!spec)
      continue;
    auto shaped = dyn_cast<ShapedType>(func.getResultTypes()[i]);
    if (!shaped || !shaped.hasRank())
      return func->emitOpError("result ")
             << i << " - 'poly.shape' requires a ranked shaped type";
    DimResult<SmallVector<DimExpr>> dims =
        parseShapeForType(spec, shaped, SpecKind::Result, *info.scope);
    if (!dims)
      return func->emitOpError("result ")
             << i << " - " << dims.getError().getMessage();
    for (const DimExpr &d : *dims)
      for (const std::string &var : d.getVariables())
        if (!llvm::is_contained(argVars, var))
          return func->emitOpError("result ")
                 << i << " - "
                 << symbolic::formatUnexpectedDimVar(var, argVars);
    declared.back() = std::move(*dims);
  }
  return success();
}

LogicalResult PolyInferDriver::analyze(FunctionInfo &info) {
  FunctionOpInterface func = info.func;
  info.state = FunctionState::InProgress;
  auto fail = [&]() {
    if (info.state != FunctionState::NotPolymorphic)
      info.state = FunctionState::Failed;
    return failure();
  };

  DimResult<symbolic::SymbolicScope *> scope = scopes.getScope(func);
  if (!scope) {
    func->emitOpError(PolyDialect::kConstraintsAttrName)
        << " - " << scope.getError().getMessage();
    return fail();
  }
  info.scope = *scope;

  SmallVector<symbolic::ArgShapeSpec> specs;
  if (failed(parseArguments(info, specs)))
    return fail();

  // JAX's export-time solve: every dimension variable must be solvable.
  bool anySymbolic = llvm::any_of(specs, [](const symbolic::ArgShapeSpec &s) {
    return llvm::any_of(s.shape,
                        [](const DimExpr &d) { return !d.isConstant(); });
  });
  StringRef name = SymbolTable::getSymbolName(func).getValue();
  if (anySymbolic) {
    DimResult<symbolic::DimVarSolution> solution =
        symbolic::solveDimVars(specs, name);
    if (!solution) {
      func->emitOpError() << solution.getError().getMessage();
      return fail();
    }
    info.solution = std::move(*solution);
  } else if (!info.scope->getConstraints().empty()) {
    // Without symbolic arguments no variable of a constraint has a value.
    const symbolic::ExplicitConstraint &c = info.scope->getConstraints()[0];
    SmallVector<std::string> vars = c.lhs.getVariables();
    if (vars.empty())
      vars = c.rhs.getVariables();
    if (!vars.empty()) {
      func->emitOpError() << symbolic::formatUnexpectedDimVar(vars.front(), {});
      return fail();
    }
  }

  SmallVector<std::optional<SmallVector<DimExpr>>> declared;
  if (failed(parseDeclaredResults(info, declared)))
    return fail();

  // A declaration: the declared result shapes are its signature.
  if (func.isExternal()) {
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      if (declared[i])
        info.results.push_back(SymbolicValue::getShaped(*declared[i]));
      else if (std::optional<Shape> shape =
                   getStaticShape(func.getResultTypes()[i]))
        info.results.push_back(SymbolicValue::getShaped(*shape));
      else
        info.results.push_back(SymbolicValue());
    }
    info.state = FunctionState::Done;
    return success();
  }

  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock()) {
    func->emitOpError("not supported by poly-infer: a function body with "
                      "several blocks");
    return fail();
  }
  FunctionAnalysis analysis(*this, info);
  if (failed(analysis.inferRegion(body, info.args)))
    return fail();

  Operation *terminator = body.front().getTerminator();
  for (auto [i, operand] : llvm::enumerate(terminator->getOperands())) {
    SymbolicValue value = analysis.lookup(operand);
    if (i < declared.size() && declared[i] &&
        (!value.hasShape() ||
         !definitelyEqualShapes(value.getShape(), *declared[i]))) {
      InFlightDiagnostic diag =
          terminator->emitOpError("operand #")
          << i << " has the symbolic shape "
          << (value.hasShape() ? symbolic::formatShape(value.getShape())
                               : std::string("?"))
          << " but the function declares "
             "'poly.shape' "
          << symbolic::formatShape(*declared[i]) << " for result " << i;
      diag.attachNote(func->getLoc()) << "result " << i << " declared here";
      return fail();
    }
    info.results.push_back(value.withoutElements());
  }
  info.state = FunctionState::Done;
  return success();
}

const std::string &PolyInferDriver::print(const DimExpr &expr) {
  auto [it, inserted] = printed.try_emplace(expr);
  if (inserted)
    it->second = expr.str();
  return it->second;
}

ShapeAttr PolyInferDriver::getShapeAttr(ArrayRef<DimExpr> dims) {
  std::string spec;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i != 0)
      spec += ", ";
    spec += print(d);
  }
  return ShapeAttr::get(module.getContext(), StringRef(spec));
}

ExprAttr PolyInferDriver::getExprAttr(const DimExpr &expr) {
  return ExprAttr::get(module.getContext(), StringRef(print(expr)));
}

void PolyInferDriver::annotate(FunctionInfo &info) {
  FunctionOpInterface func = info.func;
  // Arguments: the resolved, normalized spec (JAX's in_avals).
  for (auto [i, arg] : llvm::enumerate(info.args)) {
    Type type = func.getArgumentTypes()[i];
    if (arg.hasShape() && (hasDynamicShape(type) ||
                           func.getArgAttr(i, PolyDialect::kShapeAttrName)))
      func.setArgAttr(i, PolyDialect::kShapeAttrName,
                      getShapeAttr(arg.getShape()));
  }
  // Results: JAX's out_avals.
  for (auto [i, result] : llvm::enumerate(info.results))
    if (result.hasShape() && hasDynamicShape(func.getResultTypes()[i]))
      func.setResultAttr(i, PolyDialect::kShapeAttrName,
                         getShapeAttr(result.getShape()));
  // Every op result with a dynamic dimension or a symbolic dimension value.
  SmallVector<ShapeAttr, 2> shapes;
  SmallVector<ExprAttr, 2> values;
  func.getFunctionBody().walk([&](Operation *op) {
    if (op->getNumResults() == 0)
      return;
    shapes.assign(op->getNumResults(), ShapeAttr());
    values.assign(op->getNumResults(), ExprAttr());
    bool any = false;
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      auto it = info.values.find(result);
      if (it == info.values.end())
        continue;
      const SymbolicValue &value = it->second;
      Type type = result.getType();
      if (value.hasShape() && hasDynamicShape(type)) {
        shapes[i] = getShapeAttr(value.getShape());
        any = true;
      } else if (value.hasScalar() && !value.getScalar().isConstant() &&
                 (type.isIndex() || type.isSignlessInteger())) {
        values[i] = getExprAttr(value.getScalar());
        any = true;
      }
    }
    if (any || op->hasAttr(PolyDialect::kShapeAttrName) ||
        op->hasAttr(PolyDialect::kValueAttrName))
      setResultAnnotations(op, shapes, values);
  });
}

LogicalResult PolyInferDriver::run() {
  collectFunctions();
  markRelevant();
  bool failedAny = false;
  SmallVector<FunctionInfo *> order = getPostOrder();
  for (FunctionInfo *info : order)
    if (failed(analyze(*info)) && info->state != FunctionState::NotPolymorphic)
      failedAny = true;
  if (failedAny)
    return failure();
  for (FunctionInfo *info : order)
    if (info->state == FunctionState::Done && !info->func.isExternal())
      annotate(*info);
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct PolyInferPass : public poly::impl::PolyInferPassBase<PolyInferPass> {
  using Base::Base;

  void runOnOperation() override {
    PolyInferDriver driver(getOperation(),
                           jaxExact ? symbolic::DecisionMode::JaxExact
                                    : symbolic::DecisionMode::Strong);
    if (failed(driver.run()))
      signalPassFailure();
  }
};
} // namespace
