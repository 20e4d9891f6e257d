//===- LinalgExtension.cpp - symbolic shape rules of linalg ops -----------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// One model for every structured op (named ops, generic, map, reduce,
// transpose, broadcast, ...), derived from the indexing maps: each loop's
// size is the size of every operand dimension its map result is exactly that
// loop, and they must all agree.
//
// - A contraction (a reduction loop indexed by two inputs) is JAX's
//   `dot_general`: its batch and contracting sizes are checked first, with
//   JAX's messages (`dot_general requires contracting dimensions to have the
//   same shape, got (4,) and (v,).`).
// - Any other disagreement is reported as JAX's broadcasting error, named
//   after the op's JAX primitive (`add got incompatible shapes for
//   broadcasting: (b,), (c,).`).
// - A map result that combines loops linearly (convolutions, `d0 + d1`) or is
//   a constant must stay within its operand dimension: its largest index is
//   proved smaller than the dimension.
//
// The results have the shapes of the `outs` operands.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Poly/Extensions/SymbolicShapeExternalModels.h"

#include "ModelUtils.h"

#include "tessera/SymbolicShape/Decision.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::poly;
using namespace mlir::tessera::poly::models;
using symbolic::DimResult;

/// The JAX primitive of a structured op.
static StringRef getLinalgJaxName(Operation *op) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (linalg::isaContractionOpInterface(linalgOp))
    return "dot_general";
  if (linalg::isaConvolutionOpInterface(linalgOp))
    return "conv_general_dilated";
  StringRef name = op->getName().getStringRef();
  return llvm::StringSwitch<StringRef>(name)
      .Case("linalg.abs", "abs")
      .Case("linalg.add", "add")
      .Case("linalg.broadcast", "broadcast_in_dim")
      .Case("linalg.ceil", "ceil")
      .Case("linalg.copy", "copy")
      .Cases({"linalg.div", "linalg.div_unsigned"}, "div")
      .Case("linalg.erf", "erf")
      .Case("linalg.exp", "exp")
      .Case("linalg.floor", "floor")
      .Case("linalg.log", "log")
      .Case("linalg.max", "max")
      .Case("linalg.min", "min")
      .Case("linalg.mul", "mul")
      .Case("linalg.negf", "neg")
      .Case("linalg.powf", "pow")
      .Case("linalg.reduce", "reduce")
      .Case("linalg.rsqrt", "rsqrt")
      .Case("linalg.select", "select_n")
      .Case("linalg.sqrt", "sqrt")
      .Case("linalg.square", "square")
      .Case("linalg.sub", "sub")
      .Case("linalg.tanh", "tanh")
      .Case("linalg.transpose", "transpose")
      .Default(name);
}

/// An operand dimension indexed by a map result.
struct OperandDim {
  unsigned operand;
  unsigned dim;
};

/// `expr` as `constant + sum(coefficients[d] * d)`, or failure if it is not
/// linear in the loops.
static LogicalResult decomposeLinear(AffineExpr expr,
                                     SmallVectorImpl<int64_t> &coefficients,
                                     int64_t &constant, int64_t scale = 1) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    coefficients[dim.getPosition()] += scale;
    return success();
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    constant += scale * c.getValue();
    return success();
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return failure();
  if (binary.getKind() == AffineExprKind::Add)
    return success(succeeded(decomposeLinear(binary.getLHS(), coefficients,
                                             constant, scale)) &&
                   succeeded(decomposeLinear(binary.getRHS(), coefficients,
                                             constant, scale)));
  if (binary.getKind() == AffineExprKind::Mul) {
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS()))
      return decomposeLinear(binary.getLHS(), coefficients, constant,
                             scale * c.getValue());
    if (auto c = dyn_cast<AffineConstantExpr>(binary.getLHS()))
      return decomposeLinear(binary.getRHS(), coefficients, constant,
                             scale * c.getValue());
  }
  return failure();
}

/// Prints an affine expression for messages.
static std::string exprString(AffineExpr expr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  expr.print(os);
  return s;
}

/// JAX's `dot_general` checks of a contraction: the two inputs that share a
/// reduction loop are the lhs and rhs; their shared reduction loops are the
/// contracting dimensions and their shared parallel loops the batch
/// dimensions.
static LogicalResult checkContraction(linalg::LinalgOp op,
                                      ArrayRef<SmallVector<OperandDim>> users,
                                      ArrayRef<ArrayRef<DimExpr>> shapes,
                                      ArrayRef<SymbolicValue> operands,
                                      SymbolicShapeContext &context) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numInputs = op.getNumDpsInputs();
  // The first reduction loop indexed by two inputs picks lhs and rhs.
  std::optional<std::pair<unsigned, unsigned>> sides;
  for (auto [loop, loopUsers] : llvm::enumerate(users)) {
    if (iterators[loop] != utils::IteratorType::reduction)
      continue;
    SmallVector<unsigned> inputs;
    for (const OperandDim &u : loopUsers)
      if (u.operand < numInputs && !llvm::is_contained(inputs, u.operand))
        inputs.push_back(u.operand);
    if (inputs.size() >= 2) {
      sides = {inputs[0], inputs[1]};
      break;
    }
  }
  if (!sides)
    return success();
  auto [lhs, rhs] = *sides;
  Shape lhsBatch, rhsBatch, lhsContracting, rhsContracting;
  for (auto [loop, loopUsers] : llvm::enumerate(users)) {
    const OperandDim *l = nullptr, *r = nullptr;
    for (const OperandDim &u : loopUsers) {
      if (u.operand == lhs && !l)
        l = &u;
      if (u.operand == rhs && !r)
        r = &u;
    }
    if (!l || !r)
      continue;
    const DimExpr &lsize = shapes[lhs][l->dim];
    const DimExpr &rsize = shapes[rhs][r->dim];
    if (iterators[loop] == utils::IteratorType::reduction) {
      lhsContracting.push_back(lsize);
      rhsContracting.push_back(rsize);
    } else {
      lhsBatch.push_back(lsize);
      rhsBatch.push_back(rsize);
    }
  }
  if (symbolic::DimStatus status =
          checkDotGeneral(lhsBatch, rhsBatch, lhsContracting, rhsContracting);
      status.failed())
    return failWithOrigins(op, operands, context, status.getError());
  return success();
}

/// The rule of every structured op.
static LogicalResult inferStructured(Operation *op,
                                     ArrayRef<SymbolicValue> operands,
                                     SmallVectorImpl<SymbolicValue> &results,
                                     SymbolicShapeContext &context) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  unsigned numLoops = linalgOp.getNumLoops();
  SmallVector<SmallVector<OperandDim>> users(numLoops);
  struct Compound {
    OperandDim at;
    AffineExpr expr;
  };
  SmallVector<Compound> compounds;
  SmallVector<ArrayRef<DimExpr>> shapes(op->getNumOperands());
  SmallVector<ArrayRef<DimExpr>> shapedOperandShapes;
  for (OpOperand &opOperand : op->getOpOperands()) {
    unsigned k = opOperand.getOperandNumber();
    if (!isa<ShapedType>(opOperand.get().getType()))
      continue;
    shapes[k] = shapeOf(operands[k]);
    shapedOperandShapes.push_back(shapes[k]);
    AffineMap map = linalgOp.getMatchingIndexingMap(&opOperand);
    // The linalg verifier guarantees one result per dimension and no
    // symbols.
    assert(map.getNumResults() == shapes[k].size() &&
           map.getNumSymbols() == 0 && "verified indexing map");
    for (auto [j, expr] : llvm::enumerate(map.getResults())) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        users[dim.getPosition()].push_back({k, static_cast<unsigned>(j)});
      else
        compounds.push_back({{k, static_cast<unsigned>(j)}, expr});
    }
  }

  if (failed(checkContraction(linalgOp, users, shapes, operands, context)))
    return failure();

  // Every loop's size, from the operand dimensions it indexes.
  Shape loopSizes;
  for (auto [loop, loopUsers] : llvm::enumerate(users)) {
    // The linalg verifier requires invertible maps: every loop is some
    // operand dimension.
    assert(!loopUsers.empty() && "verified: invertible indexing maps");
    const DimExpr &size = shapes[loopUsers[0].operand][loopUsers[0].dim];
    for (const OperandDim &u : ArrayRef(loopUsers).drop_front())
      if (!definitelyEqual(size, shapes[u.operand][u.dim]))
        return failWithOrigins(
            op, operands, context,
            symbolic::DimError::value(
                getJaxName(op) + " got incompatible shapes for broadcasting: " +
                formatShapes(shapedOperandShapes) + "."));
    loopSizes.push_back(size);
  }

  // Map results combining loops must stay within their dimension.
  for (const Compound &c : compounds) {
    SmallVector<int64_t> coefficients(numLoops, 0);
    int64_t constant = 0;
    if (failed(decomposeLinear(c.expr, coefficients, constant)))
      return op->emitOpError("not supported by poly-infer: the indexing map "
                             "result '")
             << exprString(c.expr) << "' of operand #" << c.at.operand
             << " is not linear in the loops";
    DimResult<DimExpr> lowest = DimExpr(constant);
    DimResult<DimExpr> highest = DimExpr(constant);
    for (auto [loop, coefficient] : llvm::enumerate(coefficients)) {
      if (coefficient == 0)
        continue;
      DimResult<DimExpr> reach =
          symbolic::mul(symbolic::sub(loopSizes[loop], 1), coefficient);
      if (coefficient > 0)
        highest = symbolic::add(highest, reach);
      else
        lowest = symbolic::add(lowest, reach);
    }
    DimResult<DimExpr> needed = symbolic::add(highest, 1);
    if (!lowest || !needed)
      return fail(op, context, !lowest ? lowest.getError() : needed.getError());
    const DimExpr &size = shapes[c.at.operand][c.at.dim];
    DimResult<bool> fits = symbolic::geq(size, *needed);
    if (!fits)
      return fail(op, context, fits.getError());
    DimResult<bool> nonNegative = symbolic::geq(*lowest, DimExpr(0));
    if (!nonNegative)
      return fail(op, context, nonNegative.getError());
    if (!*fits || !*nonNegative)
      return op->emitOpError("operand #")
             << c.at.operand << " dimension " << c.at.dim << " (size '"
             << size.str() << "') does not contain the indices "
             << lowest->str() << " to " << needed->str()
             << " (exclusive) of its indexing map result '"
             << exprString(c.expr) << "'";
  }

  // The results have the shapes of the tensor inits.
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (isa<RankedTensorType>(init.get().getType()))
      results.push_back(
          SymbolicValue::getShaped(shapes[init.getOperandNumber()]));
  assert(results.size() == op->getNumResults() &&
         "verified: one tensor init per result");
  return success();
}

namespace {
/// The model of every structured op.
template <typename OpTy>
struct LinalgModel
    : public SymbolicShapeOpInterface::ExternalModel<LinalgModel<OpTy>, OpTy> {
  LogicalResult inferSymbolicShapes(Operation *op,
                                    ArrayRef<SymbolicValue> operands,
                                    SmallVectorImpl<SymbolicValue> &results,
                                    SymbolicShapeContext &context) const {
    return inferStructured(op, operands, results, context);
  }
  StringRef getJaxPrimitiveName(Operation *op) const {
    return getLinalgJaxName(op);
  }
};

/// `linalg.yield` ends the scalar body of a structured op; it is never
/// inferred but touches no shape.
struct LinalgYieldModel
    : public SymbolicShapeOpInterface::ExternalModel<LinalgYieldModel,
                                                     linalg::YieldOp> {
  LogicalResult inferSymbolicShapes(Operation *op, ArrayRef<SymbolicValue>,
                                    SmallVectorImpl<SymbolicValue> &,
                                    SymbolicShapeContext &) const {
    return success();
  }
};
} // namespace

template <typename... OpTys>
static void attachLinalgModels(MLIRContext *context) {
  (OpTys::template attachInterface<LinalgModel<OpTys>>(*context), ...);
}

void poly::registerLinalgSymbolicShapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachLinalgModels<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
    linalg::YieldOp::attachInterface<LinalgYieldModel>(*context);
  });
}
