//===- PolyUtils.h - scopes, annotations and their readers ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// How passes get at symbolic shapes:
//
// - `ScopeCache` owns a `symbolic::DimContext` and one `SymbolicScope` per
//   function (the function's `poly.constraints`). Every pass that computes
//   with symbolic shapes makes one (scopes are not thread-safe).
// - `getShapeAnnotation` / `getValueAnnotation` return the `#poly.shape` /
//   `#poly.expr` that `poly-infer` (or the user, on arguments) attached to a
//   value, without parsing.
// - `SymbolicShapeReader` parses them in the right scope and caches the
//   result: `getShape(value)` is the symbolic shape of any ranked shaped
//   value of an analyzed function.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_IR_POLYUTILS_H
#define TESSERA_DIALECT_POLY_IR_POLYUTILS_H

#include "tessera/Dialect/Poly/IR/PolyAttrs.h"
#include "tessera/SymbolicShape/DimExpr.h"
#include "tessera/SymbolicShape/Scope.h"

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::tessera::poly {

/// The constraint strings of a `poly.constraints` attribute, with JAX's
/// errors for a value that is not a sequence of strings (`The symbolic
/// constraints should be a sequence of strings. Got 'a >= 1'`,
/// `SymbolicScope constraint must be a string: got 5 : i64`).
symbolic::DimResult<std::vector<std::string>>
getConstraintStrings(Attribute constraints);

/// Owns the symbolic scopes of functions. Not thread-safe.
class ScopeCache {
public:
  explicit ScopeCache(
      symbolic::DecisionMode mode = symbolic::DecisionMode::Strong);
  ~ScopeCache();
  ScopeCache(const ScopeCache &) = delete;
  ScopeCache &operator=(const ScopeCache &) = delete;

  /// The context owning every expression of these scopes.
  symbolic::DimContext &getContext() { return *context; }

  /// The scope of `func`: its `poly.constraints` processed in order (JAX's
  /// `SymbolicScope(constraints)`), created at the first request. The scope
  /// prints as created at the function's location (`f.mlir:3:1 (@f)`).
  /// Fails with JAX's constraint errors, including the lazy
  /// `Unsatisfiable constraint(s)` ones.
  symbolic::DimResult<symbolic::SymbolicScope *>
  getScope(FunctionOpInterface func);

  /// The scope of the function that is or encloses `op`; a scope without
  /// constraints when there is none.
  symbolic::DimResult<symbolic::SymbolicScope *> getScopeFor(Operation *op);

private:
  std::unique_ptr<symbolic::DimContext> context;
  symbolic::DecisionMode mode;
  std::unique_ptr<symbolic::SymbolicScope> unconstrained;
  llvm::DenseMap<Operation *, std::unique_ptr<symbolic::SymbolicScope>> scopes;
};

/// The value whose symbolic shape a region argument has: for a block
/// argument of a function, the argument itself; for a region argument of a
/// RegionBranchOpInterface op, the operand forwarded to it on entry (or, for
/// a region only entered from another region such as `scf.while`'s `after`
/// region, the terminator operand forwarded to it). Null if unknown.
/// poly-infer keeps loop-carried shapes invariant, so any forwarded value
/// has the argument's shape.
Value getRegionArgumentSource(BlockArgument arg);

/// The `#poly.shape` annotating `value`: a function argument's
/// `poly.shape`, the entry for an op result in its op's `poly.shape`, the
/// annotation of the source of a region argument. Null if none.
ShapeAttr getShapeAnnotation(Value value);

/// The `#poly.expr` annotating an index/integer op result (`poly.value`).
/// Null if none.
ExprAttr getValueAnnotation(Value value);

/// Replaces the `poly.shape` and `poly.value` attributes of `op` with one
/// entry per result (`shapes[i]` / `values[i]`, null for none), using the
/// single-attribute form for one result and an array (`unit` for null
/// entries) for several; an attribute with no entries is removed.
void setResultAnnotations(Operation *op, ArrayRef<ShapeAttr> shapes,
                          ArrayRef<ExprAttr> values);

/// Parses the annotations of values in the scope of their function, with a
/// cache. After `poly-infer`, every ranked shaped value of an analyzed
/// function has a symbolic shape. Not thread-safe.
class SymbolicShapeReader {
public:
  explicit SymbolicShapeReader(ScopeCache &scopes) : scopes(scopes) {}

  /// The symbolic shape of the ranked shaped `value`: its annotation parsed
  /// in its function's scope, or its static shape. Fails (with a message,
  /// no diagnostic) when `value` has a dynamic dimension and no annotation,
  /// or the annotation does not parse.
  symbolic::DimResult<SmallVector<symbolic::DimExpr>> getShape(Value value);

  /// The symbolic value of an index/integer `value`: its `poly.value`, or
  /// its constant (`arith.constant`). std::nullopt if unknown.
  std::optional<symbolic::DimExpr> getValue(Value value);

  /// The scope `value` is read in.
  symbolic::DimResult<symbolic::SymbolicScope *> getScope(Value value);

private:
  ScopeCache &scopes;
  llvm::DenseMap<std::pair<Attribute, symbolic::SymbolicScope *>,
                 SmallVector<symbolic::DimExpr>>
      parsedShapes;
};

} // namespace mlir::tessera::poly

#endif // TESSERA_DIALECT_POLY_IR_POLYUTILS_H
