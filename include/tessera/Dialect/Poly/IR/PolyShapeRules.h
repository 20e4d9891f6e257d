//===- PolyShapeRules.h - JAX's shape rules on symbolic shapes --*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The shape rules of JAX's primitives (jax/_src/lax), on symbolic shapes,
// with JAX's error messages. The external models of the upstream dialects
// are written with them; Tessera's own ops can use them too. Every rule
// returns the library's `DimError` (JAX's text) on failure; comparisons that
// JAX's `>=` cannot decide fail with JAX's inconclusive message.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYSHAPERULES_H
#define TESSERA_DIALECT_POLY_IR_POLYSHAPERULES_H

#include "tessera/SymbolicShape/DimExpr.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tessera::poly {

using symbolic::DimExpr;
using symbolic::DimResult;
using symbolic::DimStatus;

/// A symbolic shape.
using Shape = SmallVector<DimExpr, 4>;

/// JAX's `core.definitely_equal` on two dimensions (identical expressions
/// are equal without normalization).
bool definitelyEqual(const DimExpr &lhs, const DimExpr &rhs);

/// JAX's `definitely_equal_shape`: same rank and every dimension definitely
/// equal.
bool definitelyEqualShapes(ArrayRef<DimExpr> lhs, ArrayRef<DimExpr> rhs);

/// Prints shapes as JAX lists them in messages: `(b,), (4,)`.
std::string formatShapes(ArrayRef<ArrayRef<DimExpr>> shapes);

/// JAX's `broadcasting_shape_rule(name, ...)` over the non-scalar `shapes`:
/// at every position the sizes other than 1 must all be definitely equal.
/// Errors: `<name>: arrays must have same number of dimensions, got (b,),
/// (b, 4).` and `<name> got incompatible shapes for broadcasting: (v,),
/// (4,).`
DimResult<Shape> broadcastShapes(StringRef name,
                                 ArrayRef<ArrayRef<DimExpr>> shapes);

/// JAX's `_dot_general_shape_rule` checks on the batch and contracting
/// sizes: `dot_general requires lhs batch dimensions and rhs batch
/// dimensions to have the same shape, got (b,) and (c,).` and `dot_general
/// requires contracting dimensions to have the same shape, got (4,) and
/// (v,).`
DimStatus checkDotGeneral(ArrayRef<DimExpr> lhsBatch,
                          ArrayRef<DimExpr> rhsBatch,
                          ArrayRef<DimExpr> lhsContracting,
                          ArrayRef<DimExpr> rhsContracting);

/// The number of elements of `shape` (1 for rank 0).
DimResult<DimExpr> getNumElements(ArrayRef<DimExpr> shape);

/// JAX's `core.divide_shape_sizes(s1, s2)`: the `q` with
/// `q * size(s2) == size(s1)`. Fails with `Cannot divide evenly the sizes of
/// shapes (b, 2, 4) and (b, -1, 3). The remainder mod(8*b, - 3*b) should be
/// 0.` (inconclusive, with JAX's help text).
DimResult<DimExpr> divideShapeSizes(ArrayRef<DimExpr> s1, ArrayRef<DimExpr> s2);

/// JAX's `_compute_newshape` for a reshape of `operand` into `newShape`,
/// where at most one entry may be `-1`: returns `newShape` with the `-1`
/// replaced by the inferred size. Errors: `can only specify one unknown axis
/// size with a `-1` value, got (-1, -1)`, `cannot reshape array of shape (4,
/// 6) (size 24) into shape (-1, 5) because the product of specified axis
/// sizes (5) does not evenly divide 24` (integer sizes, or other sizes whose
/// product is 0), the message of `divideShapeSizes`, and, for a shape without
/// `-1` whose size is not
/// definitely the operand's, `cannot reshape array of shape (b, 2) (size
/// 2*b) into shape (b, 3) (size 3*b)`.
DimResult<Shape> computeReshapeShape(ArrayRef<DimExpr> operand,
                                     ArrayRef<DimExpr> newShape);

/// JAX's `_slice_shape_rule` bound checks for `lax.slice(operand,
/// start_indices, limit_indices)`, in JAX's order: `slice limit_indices must
/// be less than or equal to operand shape, got limit_indices (16,) for
/// operand shape (b,).`, `slice start_indices must be greater than or equal
/// to zero, got start_indices of (-1,).`, `slice limit_indices must be
/// greater than or equal to start_indices, got start_indices (2,) and
/// limit_indices (1,).`; an undecidable comparison fails with JAX's
/// inconclusive message (`Symbolic dimension comparison 'b' >= '16' is
/// inconclusive.`).
DimStatus checkSliceBounds(ArrayRef<DimExpr> operand,
                           ArrayRef<DimExpr> startIndices,
                           ArrayRef<DimExpr> limitIndices);

/// JAX's check that strides are positive: `slice strides must be positive,
/// got (0,)`.
DimStatus checkSliceStrides(ArrayRef<DimExpr> strides);

/// JAX's `_dynamic_update_slice_shape_rule` size check: `dynamic_update_slice
/// update shape must be smaller than operand shape, got update shape (c,)
/// for operand shape (b,).`
DimStatus checkUpdateFits(ArrayRef<DimExpr> update, ArrayRef<DimExpr> operand);

/// JAX's `_pad_shape_rule` without interior padding: `low + d + high` per
/// dimension, each of which must be `>= 0`: `Dimension size after padding is
/// not at least 0, got result shape (b - 5,), for padding_config ((-5, 0,
/// 0),) and operand shape (b,)`.
DimResult<Shape> padShape(ArrayRef<DimExpr> operand, ArrayRef<DimExpr> low,
                          ArrayRef<DimExpr> high);

/// JAX's `_concatenate_shape_rule` along `dimension`: the other dimensions
/// must be definitely equal (`Cannot concatenate arrays with shapes that
/// differ in dimensions other than the one being concatenated: concatenating
/// along dimension 1 for shapes (b, 2), (c, 3).`); the result has the sum.
DimResult<Shape> concatenateShapes(ArrayRef<ArrayRef<DimExpr>> shapes,
                                   unsigned dimension);

/// JAX's `str_short()` of an array type: `float32[b,4]`, `int32[]`.
std::string formatJaxAval(Type elementType, ArrayRef<DimExpr> shape);

/// One mismatch of a loop carry or of branch outputs: the position and the
/// two JAX-style types.
struct TypeMismatch {
  unsigned index;
  std::string first;
  std::string second;
};

/// JAX's `_check_carry_type` message for a loop whose carry changes type:
/// `<name> function carry input and carry output must have equal types, but
/// they differ:\n\nThe input carry at path [0] has type float32[b] but the
/// corresponding output carry component has type float32[b + 1].\n\nRevise
/// the function so that all output types match the corresponding input
/// types.` (`name` is e.g. `while_loop body`).
std::string formatCarryMismatch(StringRef name,
                                ArrayRef<TypeMismatch> mismatches);

/// JAX's message for branches whose outputs differ: `<name> branches must
/// have equal output types but they differ.\n\nThe output of <first> at path
/// [0] has type float32[b] but the corresponding output of <second> has type
/// float32[c].\n\nRevise <first> and/or <second> so that all output types
/// match.` (`name` is `cond` or `switch`).
std::string formatBranchMismatch(StringRef name, StringRef first,
                                 StringRef second,
                                 ArrayRef<TypeMismatch> mismatches);

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_IR_POLYSHAPERULES_H
