//===- PolyInsertAssertions.cpp - runtime shape checks at function entry --===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The `poly-insert-assertions` pass: the shape checks `jax.export` puts in an
// exported `main` (`_wrap_main_func` in JAX's export/_export.py, with the
// checks of `solve_dim_vars` in shape_poly.py). The dimension variables
// are solved from the argument specs as `poly-infer` solves them; the entry
// of the function computes every symbolic argument dimension with
// `tensor.dim`, evaluates every check in JAX's order and asserts it with
// `poly.shape_assertion` and JAX's message, and computes the value of every
// dimension variable for the body.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Transforms/Passes.h"

#include "tessera/Dialect/Poly/IR/PolyDialect.h"
#include "tessera/Dialect/Poly/IR/PolyOps.h"
#include "tessera/Dialect/Poly/IR/PolyUtils.h"
#include "tessera/Dialect/Poly/Transforms/DimExprToArith.h"
#include "tessera/Dialect/Poly/Transforms/FunctionShapes.h"
#include "tessera/SymbolicShape/Decision.h"
#include "tessera/SymbolicShape/Evaluate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ShapedOpInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tessera::poly {
#define GEN_PASS_DEF_POLYINSERTASSERTIONSPASS
#include "tessera/Dialect/Poly/Transforms/Passes.h.inc"
} // namespace mlir::tessera::poly

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using symbolic::DimExpr;
using symbolic::DimResult;

//===----------------------------------------------------------------------===//
// Static decisions
//===----------------------------------------------------------------------===//

/// Decides `check` at compile time, knowing only that every synthetic
/// variable is a dimension size (>= 0): true if it always holds, false if it
/// never holds, std::nullopt otherwise. The explicit constraints are not
/// assumed (they are what the checks verify), so the expressions are moved to
/// `sizes`, a scope without constraints, where each synthetic variable `s`
/// becomes `s' - 1` with `s' >= 1`.
static std::optional<bool> decideStatically(const symbolic::ShapeCheck &check,
                                            symbolic::SymbolicScope &sizes) {
  auto shifted = [&](StringRef name) -> std::optional<DimExpr> {
    DimResult<DimExpr> var = sizes.getVariable(name);
    if (!var)
      return std::nullopt;
    DimResult<DimExpr> value = symbolic::sub(*var, 1);
    if (!value)
      return std::nullopt;
    return *value;
  };
  DimResult<DimExpr> lhs =
      symbolic::substitute(check.lhs, shifted, sizes, /*keepUnbound=*/false);
  DimResult<DimExpr> rhs =
      symbolic::substitute(check.rhs, shifted, sizes, /*keepUnbound=*/false);
  if (!lhs || !rhs)
    return std::nullopt;
  DimResult<DimExpr> diff = symbolic::sub(*lhs, *rhs);
  if (!diff)
    return std::nullopt;
  DimResult<symbolic::DimBounds> bounds = symbolic::getBounds(*diff);
  if (!bounds)
    return std::nullopt;
  const symbolic::Bound &lower = bounds->lower;
  const symbolic::Bound &upper = bounds->upper;
  if (check.cmp == symbolic::Comparator::GEQ) {
    if (lower >= 0)
      return true;
    if (upper < 0)
      return false;
    return std::nullopt;
  }
  if (lower == symbolic::Bound::finite(0) &&
      upper == symbolic::Bound::finite(0))
    return true;
  if (lower > 0 || upper < 0)
    return false;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Insertion
//===----------------------------------------------------------------------===//

namespace {
/// Inserts the assertions of one function.
class AssertionInserter {
public:
  AssertionInserter(FunctionOpInterface func, const FunctionShapes &shapes,
                    ScopeCache &scopes)
      : func(func), shapes(shapes), scopes(scopes) {}

  LogicalResult run();

private:
  LogicalResult emitEntry(OpBuilder &builder, DimExprToArith &emitter);
  void replaceInBody(ArrayRef<Operation *> dimOps,
                     ArrayRef<std::pair<Operation *, unsigned>> annotated);
  InFlightDiagnostic emitLibraryError(const symbolic::DimError &error) {
    return func->emitOpError() << error.getMessage();
  }

  FunctionOpInterface func;
  const FunctionShapes &shapes;
  ScopeCache &scopes;
  /// The value of each symbolic argument dimension, by (argument, dim).
  DenseMap<std::pair<unsigned, unsigned>, Value> dimValues;
  /// The value of each dimension variable.
  llvm::StringMap<Value> variableValues;
};
} // namespace

LogicalResult AssertionInserter::emitEntry(OpBuilder &builder,
                                           DimExprToArith &emitter) {
  const symbolic::DimVarSolution &solution = *shapes.solution;
  Block &entry = func.getFunctionBody().front();
  Location loc = func.getLoc();

  // JAX's synthetic variables: the actual sizes of the symbolic dimensions.
  for (const symbolic::SyntheticDim &dim : solution.getSyntheticDims()) {
    Value arg = entry.getArgument(dim.argIndex);
    Value index = emitter.getConstant(dim.dimIndex);
    Value size;
    if (isa<RankedTensorType>(arg.getType()))
      size = tensor::DimOp::create(builder, loc, arg, index);
    else if (isa<MemRefType>(arg.getType()))
      size = memref::DimOp::create(builder, loc, arg, index);
    else
      return func->emitOpError("not supported by poly-insert-assertions: arg ")
             << dim.argIndex << " has symbolic dimensions but its type "
             << arg.getType() << " is neither a ranked tensor nor a memref";
    emitter.bind(dim.name, size);
    dimValues[{dim.argIndex, dim.dimIndex}] = size;
  }

  // The checks, in JAX's order.
  DimResult<std::unique_ptr<symbolic::SymbolicScope>> sizes =
      symbolic::SymbolicScope::create(scopes.getContext());
  if (!sizes)
    return emitLibraryError(sizes.getError());
  for (const symbolic::ShapeCheck &check : solution.getChecks()) {
    std::optional<bool> decided = decideStatically(check, **sizes);
    if (decided == true)
      continue;
    if (decided == false) {
      // Never holds: a compile-time error with the message; values that
      // are not constants print as expressions over the argument sizes.
      DimResult<std::string> message = check.formatMessage(
          [](const DimExpr &e) -> DimResult<std::string> { return e.str(); });
      if (!message)
        return emitLibraryError(message.getError());
      return func->emitOpError() << *message;
    }
    DimResult<Value> lhs = emitter.emit(check.lhs);
    if (!lhs)
      return emitLibraryError(lhs.getError());
    DimResult<Value> rhs = emitter.emit(check.rhs);
    if (!rhs)
      return emitLibraryError(rhs.getError());
    arith::CmpIPredicate predicate = check.cmp == symbolic::Comparator::EQ
                                         ? arith::CmpIPredicate::eq
                                         : arith::CmpIPredicate::sge;
    Value holds = arith::CmpIOp::create(builder, loc, predicate, *lhs, *rhs);
    symbolic::AssertionTemplate assertion =
        check.getAssertionTemplate(ShapeAssertionOp::kMaxInputs);
    SmallVector<Value> inputs;
    for (const DimExpr &operand : assertion.operands) {
      DimResult<Value> value = emitter.emit(operand);
      if (!value)
        return emitLibraryError(value.getError());
      inputs.push_back(*value);
    }
    ShapeAssertionOp::create(builder, loc, holds, inputs, assertion.message);
  }

  // The dimension variables, for the body.
  for (const auto &[name, expr] : solution.getSolvedVariables()) {
    DimResult<Value> value = emitter.emit(expr);
    if (!value)
      return emitLibraryError(value.getError());
    variableValues[name] = *value;
  }
  return success();
}

void AssertionInserter::replaceInBody(
    ArrayRef<Operation *> dimOps,
    ArrayRef<std::pair<Operation *, unsigned>> annotated) {
  Block &entry = func.getFunctionBody().front();
  DenseSet<Operation *> erased;

  // `tensor.dim %arg, %cJ` of a symbolic argument dimension.
  for (Operation *op : dimOps) {
    auto dimOp = cast<ShapedDimOpInterface>(op);
    auto arg = dyn_cast<BlockArgument>(dimOp.getShapedValue());
    std::optional<int64_t> index = getConstantIntValue(dimOp.getDimension());
    if (!arg || arg.getOwner() != &entry || !index || *index < 0)
      continue;
    Value size =
        dimValues.lookup({arg.getArgNumber(), static_cast<unsigned>(*index)});
    if (!size)
      continue;
    op->getResult(0).replaceAllUsesWith(size);
    op->erase();
    erased.insert(op);
  }

  // Index values whose symbolic value is a dimension variable or a symbolic
  // argument dimension.
  if (annotated.empty())
    return;
  DenseMap<DimExpr, Value> argumentDims;
  for (const symbolic::SyntheticDim &dim : shapes.solution->getSyntheticDims())
    argumentDims.try_emplace(shapes.args[dim.argIndex].shape[dim.dimIndex],
                             dimValues.lookup({dim.argIndex, dim.dimIndex}));
  for (auto [op, index] : annotated) {
    if (erased.contains(op))
      continue;
    OpResult result = op->getResult(index);
    DimResult<DimExpr> expr = getValueAnnotation(result).parse(*shapes.scope);
    if (!expr)
      continue;
    Value replacement;
    if (std::optional<StringRef> var = expr->getVariable())
      replacement = variableValues.lookup(*var);
    if (!replacement)
      replacement = argumentDims.lookup(*expr);
    if (!replacement)
      continue;
    result.replaceAllUsesWith(replacement);
    if (isOpTriviallyDead(op)) {
      op->erase();
      erased.insert(op);
    }
  }
}

LogicalResult AssertionInserter::run() {
  // What the body may reuse, collected before the entry grows: dimension ops
  // and annotated index values outside nested isolated regions.
  SmallVector<Operation *> dimOps;
  SmallVector<std::pair<Operation *, unsigned>> annotated;
  func.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->hasTrait<OpTrait::IsIsolatedFromAbove>())
      return WalkResult::skip();
    if (isa<ShapedDimOpInterface>(op))
      dimOps.push_back(op);
    for (OpResult result : op->getResults())
      if (result.getType().isIndex() && getValueAnnotation(result))
        annotated.push_back({op, result.getResultNumber()});
    return WalkResult::advance();
  });

  // Everything is built at the entry, in order.
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
  DimExprToArith emitter(builder, func.getLoc());
  if (failed(emitEntry(builder, emitter)))
    return failure();
  replaceInBody(dimOps, annotated);
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct PolyInsertAssertionsPass
    : public poly::impl::PolyInsertAssertionsPassBase<
          PolyInsertAssertionsPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedAny = false;
    getOperation()->walk([&](FunctionOpInterface func) {
      if (failed(insertAssertions(func)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  /// Inserts the assertions of `func` unless it has none or has them.
  static LogicalResult insertAssertions(FunctionOpInterface func) {
    if (func.isExternal() || !hasArgumentSpecs(func) ||
        func->hasAttr(PolyDialect::kAssertionsInsertedAttrName))
      return success();
    ScopeCache scopes;
    FailureOr<FunctionShapes> shapes = solveFunctionShapes(func, scopes);
    if (failed(shapes))
      return failure();
    if (shapes->solution) {
      AssertionInserter inserter(func, *shapes, scopes);
      if (failed(inserter.run()))
        return failure();
    }
    func->setAttr(PolyDialect::kAssertionsInsertedAttrName,
                  UnitAttr::get(func->getContext()));
    return success();
  }
};
} // namespace
