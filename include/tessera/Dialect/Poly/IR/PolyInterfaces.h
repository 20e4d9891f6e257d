//===- PolyInterfaces.h - the symbolic shape op interface -------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// `SymbolicShapeOpInterface`: the symbolic shape rule of an op, and the
// values it computes with (`SymbolicValue`) and the services the driver
// (`poly-infer`) provides to it (`SymbolicShapeContext`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYINTERFACES_H
#define TESSERA_DIALECT_POLY_IR_POLYINTERFACES_H

#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Scope.h"
#include "tessera/SymbolicShape/Solve.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::tessera::poly {

/// What is known symbolically about one SSA value: nothing, the symbolic
/// shape of a ranked shaped value (optionally with the values of its elements
/// when it is a small rank-1 integer/index tensor, e.g. a shape operand), or
/// the symbolic value of an index/integer scalar.
class SymbolicValue {
public:
  /// Nothing is known.
  SymbolicValue() = default;
  /// A shaped value with symbolic shape `dims`.
  static SymbolicValue getShaped(ArrayRef<symbolic::DimExpr> dims) {
    SymbolicValue v;
    v.kind = Kind::Shaped;
    v.dims.assign(dims.begin(), dims.end());
    return v;
  }
  /// A rank-1 integer/index tensor with known `elements`.
  static SymbolicValue
  getTensorOfElements(ArrayRef<symbolic::DimExpr> elements) {
    SymbolicValue v =
        getShaped({symbolic::DimExpr(static_cast<int64_t>(elements.size()))});
    v.elements.emplace(elements.begin(), elements.end());
    return v;
  }
  /// An index/integer scalar with symbolic value `value`.
  static SymbolicValue getScalar(const symbolic::DimExpr &value) {
    SymbolicValue v;
    v.kind = Kind::Scalar;
    v.dims.push_back(value);
    return v;
  }

  /// True when nothing is known.
  bool isUnknown() const { return kind == Kind::Unknown; }
  /// True for a shaped value.
  bool hasShape() const { return kind == Kind::Shaped; }
  /// True for a scalar with a known value.
  bool hasScalar() const { return kind == Kind::Scalar; }
  /// True for a rank-1 tensor whose elements are known.
  bool hasElements() const { return elements.has_value(); }

  /// The symbolic shape (shaped values only).
  ArrayRef<symbolic::DimExpr> getShape() const {
    assert(hasShape() && "not a shaped value");
    return dims;
  }
  /// The rank (shaped values only).
  unsigned getRank() const { return getShape().size(); }
  /// The scalar value (scalars only).
  const symbolic::DimExpr &getScalar() const {
    assert(hasScalar() && "not a scalar");
    return dims.front();
  }
  /// The scalar value if known and constant.
  std::optional<int64_t> getConstantScalar() const {
    return hasScalar() ? getScalar().getConstant() : std::nullopt;
  }
  /// The element values (only if `hasElements()`).
  ArrayRef<symbolic::DimExpr> getElements() const {
    assert(hasElements() && "elements unknown");
    return *elements;
  }
  /// The same value without element values (what flows through a loop
  /// carry, where only the shape is invariant).
  SymbolicValue withoutElements() const {
    SymbolicValue v = *this;
    v.elements.reset();
    return v;
  }

  /// The shape of a shaped value, or the empty shape of a scalar.
  ArrayRef<symbolic::DimExpr> getShapeOrScalarShape() const {
    return hasShape() ? ArrayRef<symbolic::DimExpr>(dims)
                      : ArrayRef<symbolic::DimExpr>();
  }

private:
  enum class Kind { Unknown, Shaped, Scalar };
  Kind kind = Kind::Unknown;
  /// The shape, or the single scalar value.
  SmallVector<symbolic::DimExpr, 4> dims;
  std::optional<SmallVector<symbolic::DimExpr, 4>> elements;
};

/// What a caller knows about a callee after analyzing it: JAX's `Exported`
/// (`in_avals` solved into a DimVarSolution, `out_avals`).
struct FunctionSignature {
  /// The callee's scope.
  symbolic::SymbolicScope *scope = nullptr;
  /// The solution of the callee's dimension variables from its argument
  /// shapes; null when no argument has a symbolic dimension.
  const symbolic::DimVarSolution *solution = nullptr;
  /// The callee's results, in the callee's scope.
  ArrayRef<SymbolicValue> results;
};

/// The services of the inference driver to the models. Implemented by
/// `poly-infer`; other drivers (e.g. a specializer) may implement it too.
class SymbolicShapeContext {
public:
  virtual ~SymbolicShapeContext();

  /// The scope of the function being analyzed.
  virtual symbolic::SymbolicScope &getScope() = 0;

  /// The symbolic value of `value`, which must dominate the op being
  /// inferred or belong to a region inferred through `inferRegion` (e.g. the
  /// operands of a region's terminator). Values the driver has no entry for
  /// are derived from their type (static shapes) or unknown.
  virtual SymbolicValue lookup(Value value) = 0;

  /// Runs inference over the ops of `region` (one block) with its block
  /// arguments bound to `arguments` (one per argument). Errors are reported
  /// at the failing op.
  virtual LogicalResult inferRegion(Region &region,
                                    ArrayRef<SymbolicValue> arguments) = 0;

  /// The signature of the function `call` calls, analyzing it first if
  /// needed. Reports an error at `call` and fails if the callee cannot be
  /// analyzed (recursion, no symbolic information, an error in the callee).
  virtual FailureOr<FunctionSignature>
  getCalleeSignature(CallOpInterface call) = 0;

  /// True if models may rewrite the op being inferred to keep the IR
  /// well-defined (e.g. replace `tensor.reshape`'s `-1`). Values created by
  /// a rewrite must be reported with `recordValue`.
  virtual bool allowsRewrites() const { return false; }

  /// Records the symbolic value of a value created by a rewrite.
  virtual void recordValue(Value value, const SymbolicValue &symbolicValue) = 0;

  /// Reports `error` (a symbolic-shape library error: JAX's message) at
  /// `op`.
  InFlightDiagnostic emitError(Operation *op, const symbolic::DimError &error);
};

} // namespace mlir::tessera::poly

#include "tessera/Dialect/Poly/IR/PolyInterfaces.h.inc"

#endif // TESSERA_DIALECT_POLY_IR_POLYINTERFACES_H
