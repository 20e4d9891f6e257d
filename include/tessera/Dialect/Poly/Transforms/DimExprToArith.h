//===- DimExprToArith.h - dimension expressions as arith ops ----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Emits `arith` operations on `index` that compute a dimension expression at
// run time, with the semantics JAX gives it (Python integers):
//
// - `floordiv(E, D)` rounds toward negative infinity (`arith.floordivsi`);
// - `mod(E, D)` is `E - D * floordiv(E, D)`, so it takes the sign of the
//   divisor;
// - `max`/`min` are `arith.maxsi`/`arith.minsi`; products and powers are
//   `arith.muli` chains; sums are `arith.addi`/`arith.subi`.
//
// A divisor that is not a constant may be 0 at run time (the dimension sizes
// are not validated yet when the assertions compute their messages): the
// emitter then guards the division and gives XLA's results for integer
// division by zero (`floordiv(E, 0) = -1`, hence `mod(E, 0) = E`), never a
// trap.
//
// Every expression, term, factor and constant is emitted once and reused, so
// `floordiv(E, 2)` and `mod(E, 2)` share one division. Values are created at
// the builder's insertion point; a value emitted earlier is reused later, so
// all emissions through one emitter must be at points that the earlier ones
// dominate (e.g. one block, in order).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_TRANSFORMS_DIMEXPRTOARITH_H
#define TESSERA_DIALECT_POLY_TRANSFORMS_DIMEXPRTOARITH_H

#include "tessera/SymbolicShape/DimExpr.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tessera::poly {

/// Emits `arith` ops on `index` computing dimension expressions.
class DimExprToArith {
public:
  /// Emits at `builder`'s insertion point, with location `loc`.
  DimExprToArith(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  /// Binds the variable `name` (a dimension variable or a synthetic variable
  /// such as `args[0].shape[1]`) to the index value `value`.
  void bind(StringRef name, Value value);
  /// The value bound to `name`, or null.
  Value lookup(StringRef name) const { return variables.lookup(name); }

  /// The index value of `expr`. Fails with JAX's `UnexpectedDimVar` message
  /// when `expr` has a variable that is not bound.
  symbolic::DimResult<Value> emit(const symbolic::DimExpr &expr);

  /// The index constant `value` (emitted once).
  Value getConstant(int64_t value);

private:
  symbolic::DimResult<Value> emitTerm(const symbolic::DimTerm &term);
  symbolic::DimResult<Value> emitFactor(const symbolic::DimFactor &factor);
  /// `floordiv(lhs, rhs)`, guarded when `rhs` is not a constant.
  Value emitFloorDiv(Value lhs, Value rhs);
  /// `base` to the power `exponent` (>= 1).
  Value emitPower(Value base, int64_t exponent);
  /// `value * coeff`.
  Value emitScaled(Value value, int64_t coeff);

  OpBuilder &builder;
  Location loc;
  llvm::StringMap<Value> variables;
  llvm::DenseMap<symbolic::DimExpr, Value> exprs;
  llvm::DenseMap<const void *, Value> terms;
  llvm::DenseMap<const void *, Value> factors;
  llvm::DenseMap<std::pair<Value, Value>, Value> floorDivs;
  llvm::DenseMap<int64_t, Value> constants;
};

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_TRANSFORMS_DIMEXPRTOARITH_H
