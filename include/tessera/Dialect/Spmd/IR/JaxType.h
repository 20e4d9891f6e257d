//===- JaxType.h - JAX-style type strings of sharded values -------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The printed form of a JAX type (`jax.typeof(x)`, `aval.str_short()`), used
// by diagnostics and by `spmd-print-types`:
//
//   <dtype>[<d0>,<d1>,...]<annot>
//
// - `dtype`: JAX's short names (`f32`, `bf16`, `i32`, `u8`, `bool`, `c64`,
//   `f8_e4m3fn`), or NumPy's full names (`float32`) on request. A type JAX has
//   no name for keeps an MLIR spelling: `index`, `tf32`, `f80`, `f128`,
//   `i7`/`u7` for odd widths, `complex<bf16>`; any other element type prints
//   as MLIR prints it.
// - each dimension: its size, or for a dynamic dimension its symbolic
//   expression when known (`b`, `2*d`) and `?` otherwise; followed by
//   `@axis` or `@(a,b)` (axes major to minor) when sharded. A sub-axis prints
//   as `x:(m)k`, as in `#spmd.sharding` but without quotes: `8@x:(1)2`,
//   `8@(y,x:(2)2)`.
// - `annot`: `{U:x}`, `{U:(x,y)}`, `{U_max:x}`, `{U_min:x}` for unreduced
//   axes, in mesh order; nothing when there are none. Replicated axes, open
//   dimensions and priorities are not part of a JAX type and are not shown.
// - no spaces, except inside a symbolic expression (`f32[b + 1@x]`, as JAX).
//
// Only Explicit mesh axes are shown by default: JAX erases Auto and Manual
// axes from types, and a dimension whose axes are all erased prints as
// unsharded. The type of an axis is the one it has where the value lives:
// the mesh's `axis_types`, changed inside `spmd.manual_computation`
// (manual), `spmd.auto_axes` (auto) and `spmd.explicit_axes` (explicit). An
// axis whose type is unknown (the mesh could not be resolved, or does not
// declare the axis) counts as Auto, the default axis type.
//
// Non-tensor types: a rank-0 tensor and a scalar (integer, float, index or
// complex) both print as `f32[]`, since JAX gives a Python scalar the type of
// a rank-0 array (weak types, `~f32[]`, only show in JAX's long form); an
// unranked tensor prints as `f32[*]`; every other type prints as MLIR prints
// it (`vector<4xf32>`, `memref<8xf32>`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_JAXTYPE_H
#define TESSERA_DIALECT_SPMD_IR_JAXTYPE_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::tessera::spmd {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// What the JAX-style type and PartitionSpec printers show.
struct JaxTypeOptions {
  /// Also show Auto and Manual mesh axes. By default only Explicit axes are
  /// shown, as in JAX, where Auto and Manual axes are erased from types.
  bool allAxes = false;
  /// JAX's short dtype names (`f32`), as in `str_short(short_dtypes=True)`,
  /// which error messages use; otherwise NumPy's names (`float32`), as in
  /// `str(jax.typeof(x))`.
  bool shortDtypes = true;
};

/// True if the axis (or sub-axis) `ref` is shown under `options`: always
/// with `allAxes`, otherwise only if `mesh` declares its axis as Explicit.
bool isJaxVisibleAxis(AxisRefAttr ref, MeshAttr mesh,
                      const JaxTypeOptions &options);

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Prints the JAX name of an element type: `f32`, `bf16`, `i32`, `u8`,
/// `bool`, `c64`, `f8_e4m3fn` (or `float32`, `bfloat16`, ... with
/// `shortDtypes = false`).
void printJaxDtype(llvm::raw_ostream &os, Type elementType,
                   bool shortDtypes = true);

/// Prints the JAX-style type of a value of type `type` sharded by `sharding`
/// (null: unsharded) over `mesh` (null if it could not be resolved; its axis
/// types decide which axes are shown, see getMeshWithAxisTypesAt), e.g.
/// `f32[8@x,4]`, `f32[8@(x,y),2]{U:z}`. `symbolicDims[i]`, when present and
/// non-empty, names dynamic dimension `i` (static dimensions always print
/// their size). A sharding whose rank does not match the type's is printed
/// as far as it goes; this never asserts on invalid input.
void printJaxType(llvm::raw_ostream &os, Type type, TensorShardingAttr sharding,
                  MeshAttr mesh, const JaxTypeOptions &options = {},
                  ArrayRef<StringRef> symbolicDims = {});

/// Returns the string `printJaxType` prints.
std::string getJaxTypeString(Type type, TensorShardingAttr sharding,
                             MeshAttr mesh, const JaxTypeOptions &options = {},
                             ArrayRef<StringRef> symbolicDims = {});

/// Returns the JAX-style type of `value`, as a JaxTypePrinter prints it. For
/// one-off messages; a loop over many values should reuse a JaxTypePrinter.
std::string getJaxTypeString(Value value, const JaxTypeOptions &options = {});

//===----------------------------------------------------------------------===//
// PartitionSpecs
//===----------------------------------------------------------------------===//

/// Prints the PartitionSpec entry of one dimension as JAX's repr does:
/// `None`, `'x'`, or `('x', 'y')` (axes major to minor). Hidden axes are
/// dropped first, so a dimension left with no axis is `None` and one left
/// with a single axis is its bare name. A sub-axis prints as `'x:(1)2'`.
void printPartitionEntry(llvm::raw_ostream &os, ArrayRef<AxisRefAttr> axes,
                         MeshAttr mesh, const JaxTypeOptions &options = {});

/// Prints the partitions of `sharding` as a Python tuple, as JAX quotes them
/// in some messages: `('x', None)`, `('x',)`, `()`, `(('x', 'y'), None)`.
void printPartitionTuple(llvm::raw_ostream &os, TensorShardingAttr sharding,
                         MeshAttr mesh, const JaxTypeOptions &options = {});

/// Prints `sharding` as JAX prints a PartitionSpec: `P('x', None)`,
/// `P(('x', 'y'), None)`, `P('x',)` (rank 1), `P()` (rank 0),
/// `P('x', unreduced={'y'})`, `P(unreduced={'x', 'y'})` (unreduced axes in
/// mesh order). A `max`/`min` unreduced kind is added as
/// `unreduced_kind=max`; the default `sum` is not printed.
void printPartitionSpec(llvm::raw_ostream &os, TensorShardingAttr sharding,
                        MeshAttr mesh, const JaxTypeOptions &options = {});

/// Returns the string `printPartitionSpec` prints.
std::string getPartitionSpecString(TensorShardingAttr sharding, MeshAttr mesh,
                                   const JaxTypeOptions &options = {});

//===----------------------------------------------------------------------===//
// Symbolic dimensions
//===----------------------------------------------------------------------===//

/// Implemented by a dialect that knows the symbolic shapes of values (shape
/// polymorphism), so that JAX-style types print `f32[b@x,4]` instead of
/// `f32[?@x,4]`. JaxTypePrinter asks every loaded dialect that implements it.
class SymbolicDimsDialectInterface
    : public DialectInterface::Base<SymbolicDimsDialectInterface> {
public:
  explicit SymbolicDimsDialectInterface(Dialect *dialect) : Base(dialect) {}

  /// Appends the symbolic expression of each dimension of `value` to `dims`
  /// (an empty string where unknown) and returns true, or returns false and
  /// leaves `dims` alone if it knows nothing about `value`. The strings must
  /// outlive the printing of the type (e.g. point into attribute storage).
  virtual bool getSymbolicDims(Value value,
                               SmallVectorImpl<StringRef> &dims) const = 0;
};

//===----------------------------------------------------------------------===//
// JaxTypePrinter
//===----------------------------------------------------------------------===//

/// Prints the JAX-style types of many values of one IR: resolves each
/// value's sharding (`getSharding`), its mesh with the axis types of the
/// value's context (both cached) and the names of its dynamic dimensions.
/// The IR must not change while a printer is in use. Not thread-safe; use
/// one per thread.
class JaxTypePrinter {
public:
  /// Same contract as SymbolicDimsDialectInterface::getSymbolicDims.
  using SymbolicDimsFn =
      std::function<bool(Value value, SmallVectorImpl<StringRef> &dims)>;

  /// Symbolic dimensions come from `symbolicDims` when given and it knows
  /// the value, else from the SymbolicDimsDialectInterface of the dialects
  /// loaded in `context` now.
  JaxTypePrinter(MLIRContext *context, JaxTypeOptions options = {},
                 SymbolicDimsFn symbolicDims = nullptr);
  ~JaxTypePrinter();

  /// Prints the JAX-style type of `value`.
  void print(llvm::raw_ostream &os, Value value);
  /// Returns the JAX-style type of `value`.
  std::string getString(Value value);

  /// Resolves the mesh of `sharding` as seen from `value`: the declared
  /// mesh with the axis types of the value's context, or null.
  MeshAttr getMesh(TensorShardingAttr sharding, Value value);

private:
  void collectSymbolicDims(Value value);

  JaxTypeOptions options;
  SymbolicDimsFn symbolicDimsFn;
  SmallVector<const SymbolicDimsDialectInterface *> interfaces;
  SymbolTableCollection symbolTables;
  /// (op whose region holds the value, declared mesh) -> mesh in context.
  llvm::DenseMap<std::pair<Operation *, Attribute>, MeshAttr> contextMeshes;
  SmallVector<StringRef, 8> dimScratch;
};

} // namespace mlir::tessera::spmd

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::tessera::spmd::SymbolicDimsDialectInterface)

#endif // TESSERA_DIALECT_SPMD_IR_JAXTYPE_H
