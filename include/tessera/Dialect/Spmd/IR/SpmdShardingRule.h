//===- SpmdShardingRule.h - op sharding rules: names, builder ----*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The C++ side of `#spmd.op_sharding_rule`: factor names, verification of a
// rule against an op, and the one entry point passes use to get an op's rule.
// External models build rules with OpShardingRuleBuilder
// (OpShardingRuleBuilder.h).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULE_H
#define TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULE_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace mlir::tessera::spmd {

//===----------------------------------------------------------------------===//
// Factor names
//===----------------------------------------------------------------------===//

/// The name of factor `factorIndex`: `i` ... `z` for 0 ... 17, then `z_1`,
/// `z_2`, ... for 18, 19, ...
std::string factorSymbolString(int64_t factorIndex);

/// The index of the factor named `symbol` (exactly one name, e.g. `k` or
/// `z_3`), or std::nullopt if `symbol` is not a factor name.
std::optional<int64_t> parseFactorSymbol(llvm::StringRef symbol);

//===----------------------------------------------------------------------===//
// Verification against an op
//===----------------------------------------------------------------------===//

/// Verifies `rule` against the operands and results of `op`: the invariants
/// of the attribute itself (re-checked, since `OpShardingRuleAttr::get` doesn't
/// verify in release builds), then one mapping per operand and result, ranked
/// static tensors (non-shaped values are scalars), matching ranks, and
/// dimension sizes equal to the product of their factor sizes (except
/// dimensions mapped to a single size-1 factor and dimensions with a
/// permutation or need-replication factor). Errors are reported on `op`.
LogicalResult verifyShardingRule(OpShardingRuleAttr rule, Operation *op);

//===----------------------------------------------------------------------===//
// Getting an op's rule
//===----------------------------------------------------------------------===//

/// The name of the attribute that holds an op's sharding rule.
inline constexpr llvm::StringLiteral kShardingRuleAttrName =
    "spmd.sharding_rule";

/// The sharding rule of `op`, the one entry point passes use: the rule the
/// user wrote in `spmd.sharding_rule` (which overrides or supplies the rule
/// of any op, also of dialects Tessera has no model for), else the rule of
/// the op's ShardingRuleOpInterface (external models for upstream ops), else
/// null (the op has no rule: propagation leaves it alone).
OpShardingRuleAttr getShardingRule(Operation *op);

/// `getShardingRule` for passes that ask for the rules of many ops: ops with
/// equal names, operand and result types and properties (and no
/// user-written rule) share one rule, built once. Building a rule is the
/// costliest step of visiting an op; a module of repeated layers has few
/// distinct ops. Ops without properties are not cached (their rule may
/// depend on discardable attributes). Entries keep no operation pointers:
/// ops may be erased while the cache lives.
class ShardingRuleCache {
public:
  ShardingRuleCache() = default;
  ShardingRuleCache(const ShardingRuleCache &) = delete;
  ShardingRuleCache &operator=(const ShardingRuleCache &) = delete;
  ~ShardingRuleCache();

  OpShardingRuleAttr get(Operation *op);

private:
  struct Entry {
    OperationName name;
    /// A copy of the op's properties (storage of the op's property size,
    /// owned by the cache: compared without building an attribute).
    void *properties;
    /// The operand types, then the result types.
    llvm::SmallVector<Type, 4> types;
    unsigned numOperands;
    OpShardingRuleAttr rule;
  };
  /// Whether `entry` is the one of `op` (of name `name`).
  static bool matches(const Entry &entry, OperationName name, Operation *op);
  /// The entries (stable: the maps below point into it).
  std::deque<Entry> entries;
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<Entry *, 1>> rules;
  /// The entries last found for each op name, most recent first: the ops
  /// of a name in a run of layers take turns among a few, and comparing is
  /// cheaper than hashing.
  static constexpr size_t kRecent = 4;
  llvm::DenseMap<OperationName, std::array<Entry *, kRecent>> recent;
};

//===----------------------------------------------------------------------===//
// Reduction combiners
//===----------------------------------------------------------------------===//

/// The combiner of a reduction (how the partial values of a result over a
/// reduction factor combine), read from a reduction's body.
enum class ReductionCombiner {
  None,
  Add,
  Mul,
  Max,
  Min,
  UnsignedMax,
  UnsignedMin,
  And,
  Or,
  Xor,
  /// The result picks either its accumulator or the element the body
  /// compares it with, under a condition (the index of argmax/argmin, the
  /// value of a compare-and-select): no collective finishes it, but partial
  /// results over blocks combine with the body itself, in block order
  /// (spmd-insert-reshards splits such a reduction; see
  /// Partition/SplitReductions.cpp).
  Select,
};

/// The combiner of result `resultIndex` of `op`: its
/// ShardingRuleOpInterface's `getReductionCombiner` (the linalg model reads
/// the body), else None. The one place the kind of a reduction is decided.
ReductionCombiner getReductionCombiner(Operation *op, unsigned resultIndex);

/// The collective that combines partial values of `combiner`, or
/// std::nullopt when no collective does (a product, bit operations, or an
/// unsigned max/min: the runtime compares integers as signed), in which
/// case the reduced factor is gathered rather than all-reduced.
std::optional<ReductionKind> getCollectiveKind(ReductionCombiner combiner);

/// JAX's name of a reduction with `combiner`: `reduce_sum`, `reduce_max`
/// (also unsigned), `reduce_and`, ..., `reduce` for None and Select.
llvm::StringRef getJaxReductionName(ReductionCombiner combiner);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULE_H
