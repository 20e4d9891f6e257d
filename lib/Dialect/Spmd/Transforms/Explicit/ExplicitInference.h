//===- ExplicitInference.h - spmd-infer-explicit internals ------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Dialect/Spmd/Transforms/Explicit: what the files of
// spmd-infer-explicit share. InferExplicit.cpp holds the driver (the ops of
// a function, user-given out_shardings, control flow, function results) and
// the pass, InferExplicitRules.cpp JAX's per-primitive sharding rules, and
// InferExplicitUnreduced.cpp JAX's rules for unreduced axes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_EXPLICIT_EXPLICITINFERENCE_H
#define TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_EXPLICIT_EXPLICITINFERENCE_H

#include "tessera/Dialect/Spmd/IR/JaxType.h"
#include "tessera/Dialect/Spmd/IR/SpmdOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

#include <optional>
#include <string>

namespace mlir::tessera::spmd::detail {

/// The Explicit axes of one dimension, major to minor (JAX's PartitionSpec
/// entry: empty is `None`).
using DimAxes = SmallVector<AxisRefAttr>;

/// The explicit-axes view of a value's sharding: its type in JAX's sense.
struct Spec {
  /// The mesh as seen where the value is used (axis types in context), or
  /// null for a value on no mesh (replicated everywhere).
  MeshAttr mesh;
  /// How shardings name that mesh (a symbol or an inlined mesh).
  Attribute meshRef;
  SmallVector<DimAxes> dims;
  /// Explicit axes over which the value holds partial sums (JAX's
  /// `unreduced`, printed `{U:x}`), in mesh order.
  SmallVector<AxisRefAttr> unreduced;

  bool isReplicated() const {
    return llvm::all_of(dims, [](const DimAxes &d) { return d.empty(); });
  }
  bool operator==(const Spec &other) const {
    return dims == other.dims && unreduced == other.unreduced;
  }
};

/// Product of the sizes of `axes` in `mesh`.
int64_t getAxesSize(ArrayRef<AxisRefAttr> axes, MeshAttr mesh);

/// Python's repr of a shape tuple in JAX's messages: `(8,)`, `(8, 4)`.
std::string shapeString(ArrayRef<int64_t> shape);

/// The result of a rule: one spec per result, or failure (error emitted).
using Specs = FailureOr<SmallVector<Spec>>;

/// A spec of `rank` unsharded dimensions on no mesh.
Spec replicatedSpec(int64_t rank);

/// The rank of `type` (0 for non-tensors).
int64_t rankOf(Type type);

/// For each dimension of an operand of a linalg op, the loop that indexes
/// it, or std::nullopt for a constant (broadcast) or compound index.
SmallVector<std::optional<int64_t>> getDimLoops(AffineMap map);

/// Ops that make a value from nothing (JAX's creation ops): replicated
/// unless they carry `spmd.out_sharding`.
bool isCreationOp(Operation *op);

/// spmd-infer-explicit on the functions of a module, one at a time.
class ExplicitInference {
public:
  ExplicitInference(MLIRContext *ctx) : ctx(ctx), printer(ctx) {}

  LogicalResult runOnFunction(FunctionOpInterface func);

private:
  //===--------------------------------------------------------------------===//
  // Specs of values
  //===--------------------------------------------------------------------===//

  /// The type of `value` as seen by `user`.
  Spec getSpec(Value value, Operation *user);

  static bool isExplicit(MeshAttr mesh, AxisRefAttr ref) {
    return mesh && mesh.hasAxis(ref.getName()) &&
           mesh.getAxisType(ref.getName()) == AxisType::Explicit;
  }

  static bool hasExplicitAxes(MeshAttr mesh) {
    return mesh && mesh.hasAxisOfType(AxisType::Explicit);
  }

  /// Builds the sharding of a value whose type has `spec`, keeping the
  /// non-explicit axes `previous` had per dimension.
  TensorShardingAttr toSharding(const Spec &spec, TensorShardingAttr previous);

  /// Python's repr of a frozenset of axis names: `frozenset({'x'})`.
  static std::string frozensetString(ArrayRef<AxisRefAttr> axes);

  /// JAX's repr of an abstract value in messages: `ShapedArray(float32[8@x])`.
  std::string avalString(Value value, Operation *user);

  /// JAX's unreduced rules for the op's result (one set for all results):
  /// add keeps equal unreduced sets, mul and dot_general reject unreduced
  /// inputs, reshapes, transposes, broadcasts and casts pass them on, and
  /// every other op with an unreduced input is not implemented.
  FailureOr<SmallVector<AxisRefAttr>>
  inferUnreduced(Operation *op, ValueRange inputs, ArrayRef<Spec> specs);

  /// JAX's checks of an `out_sharding` with unreduced axes on a
  /// contraction.
  LogicalResult checkDotUnreducedOut(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                                     const Spec &given);

  /// JAX's check of an `out_sharding` with unreduced axes on a reduction:
  /// they must come from the reduced dims' axes or the operand's own
  /// unreduced axes.
  LogicalResult checkReduceUnreducedOut(linalg::LinalgOp op, Value operand,
                                        const Spec &input, const Spec &given);

  /// The specs of the contracting dims of a two-input contraction.
  std::pair<SmallVector<DimAxes>, SmallVector<DimAxes>>
  getContractingSpecs(linalg::LinalgOp op, ArrayRef<Spec> inputs);

  /// Prints a value's type as JAX prints it in messages.
  std::string typeString(Type type, const Spec &spec, bool shortDtypes = true);
  /// JAX's repr of one PartitionSpec entry.
  std::string entryString(const DimAxes &axes, MeshAttr mesh);
  /// `('x', None)` for a spec.
  std::string tupleString(const Spec &spec);
  /// `P('x', None)` for a spec.
  std::string partitionSpecString(const Spec &spec);

  //===--------------------------------------------------------------------===//
  // Ops
  //===--------------------------------------------------------------------===//

  LogicalResult processBlock(Block &block);
  LogicalResult processOp(Operation *op);
  LogicalResult processControlFlow(Operation *op);
  LogicalResult processReturn(Operation *op);

  /// The common mesh of the operands' types (`values`), or an error when
  /// two differ. `meshRef` receives how it is named.
  FailureOr<std::pair<MeshAttr, Attribute>>
  getCommonMesh(Operation *op, ArrayRef<Spec> operandSpecs);

  Specs inferRule(Operation *op, ArrayRef<Spec> inputs, ValueRange inputValues);
  Specs inferNary(Operation *op, ArrayRef<Spec> inputs, ValueRange inputValues,
                  ArrayRef<SmallVector<std::optional<int64_t>>> dimMaps,
                  int64_t resultRank);
  Specs inferSelect(Operation *op, ArrayRef<Spec> inputs);
  Specs inferLinalg(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                    ValueRange inputValues);
  Specs inferDot(linalg::LinalgOp op, ArrayRef<Spec> inputs,
                 ValueRange inputValues);
  Specs inferReshape(Operation *op, const Spec &input, ArrayRef<int64_t> in,
                     ArrayRef<int64_t> out);
  Specs inferSlicing(Operation *op, const Spec &input,
                     ArrayRef<int64_t> inShape, ArrayRef<int64_t> outShape,
                     const llvm::SmallBitVector &dropped);
  Specs inferGather(tensor::GatherOp op, ArrayRef<Spec> inputs);
  Specs inferScatter(tensor::ScatterOp op, ArrayRef<Spec> inputs);

  /// Checks and returns a user-given `spmd.out_sharding` (JAX's
  /// out_sharding=), or std::nullopt if the op has none.
  FailureOr<std::optional<SmallVector<Spec>>> getOutSharding(Operation *op);

  /// The "illegally sharded result" check (JAX's unique-axis check).
  LogicalResult checkUniqueAxes(Operation *op, ValueRange inputs,
                                ArrayRef<Spec> inputSpecs, Value result,
                                const Spec &spec);

  MLIRContext *ctx;
  JaxTypePrinter printer;
  SymbolTableCollection symbolTables;
  /// Specs computed by this pass (results, and block arguments of regions
  /// whose sharding lives elsewhere).
  llvm::DenseMap<Value, Spec> specs;
};

} // namespace mlir::tessera::spmd::detail

#endif // TESSERA_LIB_DIALECT_SPMD_TRANSFORMS_EXPLICIT_EXPLICITINFERENCE_H
