//===- SpmdShardingRuleAttr.td - #spmd.op_sharding_rule ----*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdAttrs.td.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULEATTR_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULEATTR_TD

//===----------------------------------------------------------------------===//
// FactorType
//===----------------------------------------------------------------------===//

def Spmd_FactorPassThrough
    : I32EnumAttrCase<"PassThrough", 0, "pass_through">;
def Spmd_FactorReduction : I32EnumAttrCase<"Reduction", 1, "reduction">;
def Spmd_FactorNeedReplication
    : I32EnumAttrCase<"NeedReplication", 2, "need_replication">;
def Spmd_FactorPermutation
    : I32EnumAttrCase<"Permutation", 3, "permutation">;
def Spmd_FactorType : I32EnumAttr<"FactorType",
    "kind of a factor of an op sharding rule",
    [Spmd_FactorPassThrough, Spmd_FactorReduction, Spmd_FactorNeedReplication,
     Spmd_FactorPermutation]> {
  let cppNamespace = "::mlir::tessera::spmd";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// DimMappingAttr
//===----------------------------------------------------------------------===//

def Spmd_DimMappingAttr : Spmd_Attr<"DimMapping", "dim_mapping"> {
  let summary = "the factors one tensor dimension is mapped to";
  let description = [{
    The indices of the factors whose product is a tensor dimension, major to
    minor. In a sharding rule a dimension is written as the concatenation of
    its factors' names: `i` is one factor, `ij` a compound dimension whose
    major factor is `i` and minor factor is `j`.

    ```mlir
    #spmd.dim_mapping<ij>
    ```

    Factor names run `i`, `j`, ..., `z` (indices 0 to 17), then `z_1`,
    `z_2`, ... (indices 18, 19, ...), so `zz_1` is the compound of factors 17
    and 18. The invariants (at least one factor, indices in range, no
    size-1 factor in a compound dimension) are checked by the enclosing
    `#spmd.op_sharding_rule`.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t", "factor indices, major to minor">
        :$factor_indices);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The number of factors of this dimension (more than one for a compound
    /// dimension).
    int64_t getNumFactors() const { return getFactorIndices().size(); }
    /// True if `factorIndex` is one of the factors of this dimension.
    bool contains(int64_t factorIndex) const;
    /// True if `factorIndex` is the minor-most factor of this dimension.
    bool isMinorMost(int64_t factorIndex) const {
      return !getFactorIndices().empty() &&
             getFactorIndices().back() == factorIndex;
    }
  }];
}

//===----------------------------------------------------------------------===//
// TensorMappingAttr
//===----------------------------------------------------------------------===//

def Spmd_TensorMappingAttr : Spmd_Attr<"TensorMapping", "tensor_mapping"> {
  let summary = "the factor mapping of every dimension of one tensor";
  let description = [{
    One `#spmd.dim_mapping` per tensor dimension; `[]` for a scalar.

    ```mlir
    #spmd.tensor_mapping<[i, jk]>
    #spmd.tensor_mapping<[]>
    ```

    Within one tensor a factor appears at most once (checked by the enclosing
    `#spmd.op_sharding_rule`).
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"DimMappingAttr", "per-dimension mappings">
        :$dim_mappings);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The rank of the tensor this mapping describes.
    int64_t getRank() const { return getDimMappings().size(); }
    /// The mapping of dimension `dim`.
    DimMappingAttr getDimMapping(int64_t dim) const {
      return getDimMappings()[dim];
    }
    /// True if some dimension of this tensor is mapped to `factorIndex`.
    bool containsFactor(int64_t factorIndex) const;
    /// The dimension that `factorIndex` is (part of), if any.
    std::optional<int64_t> getDimOfFactor(int64_t factorIndex) const;
  }];
}

//===----------------------------------------------------------------------===//
// OpShardingRuleAttr
//===----------------------------------------------------------------------===//

def Spmd_OpShardingRuleAttr : Spmd_Attr<"OpShardingRule", "op_sharding_rule"> {
  let summary = "how an op can be partitioned, as factors shared by its values";
  let description = [{
    A sharding rule describes an op by a set of *factors*: independent index
    spaces of the computation, each with a size. Every dimension of every
    operand and result is mapped to one factor, or to several (a compound
    dimension, major factor first); sharding a factor along some mesh axes
    shards every dimension mapped to it in the same way. Propagation
    (`spmd-propagate`), explicit-mode inference and reshard insertion all
    work on factors, so they never need to know what the op computes.

    The rule is stored in an op's `spmd.sharding_rule` attribute (printed by
    `spmd-annotate-sharding-rules`, or written by the user as an override):

    ```mlir
    // A matrix multiplication: k is contracted.
    %0 = linalg.matmul {spmd.sharding_rule = #spmd.op_sharding_rule<
            ([i, k], [k, j], [i, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>}
        ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>)
        outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>

    // A reshape that merges two dimensions: a compound result dimension.
    #spmd.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>

    // A scalar op.
    #spmd.op_sharding_rule<([], [])->([])>

    // Special factor sets and a user-defined rule.
    #spmd.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7}
        reduction={j} need_replication={i} permutation={k}
        blocked_propagation={l}, custom>
    ```

    Syntax: `(` operand mappings `)->(` result mappings `)`, then the factor
    sizes `{i=.., j=.., ...}` in index order (omitted when there are no
    factors), then the optional factor sets in this order: `reduction`,
    `need_replication`, `permutation`, `blocked_propagation`, and finally
    `, custom`. Factor names run `i`, ..., `z`, then `z_1`, `z_2`, ...;
    a compound dimension concatenates names (`ij`, `zz_1`, `z_1z_2`). The
    printed form is canonical.

    Factor kinds:
    - *pass-through* (the default): sharded the same way in every tensor that
      has it, with no communication (batch and free dimensions);
    - `reduction`: appears in operands only; when sharded, the results are
      partial and need an all-reduce (contracting dimensions);
    - `need_replication`: must stay unsharded (a sort dimension, an FFT
      dimension, a concatenated dimension);
    - `permutation`: may be sharded, at the cost of a collective permute
      (pad, slice, reverse, window dimensions).
    `blocked_propagation` is orthogonal to the kind: no sharding propagates
    along those factors. A `custom` rule is user-defined: it is kept as is
    and never replaced by the op's derived rule.

    Factor sizes are non-negative; a factor of size 1 is allowed (it can never
    be sharded), and a factor of size 0 describes a dimension of size 0. A
    factor whose size is only known at run time (a dynamic dimension of a
    `poly.shape` program) has the size `?` (`ShapedType::kDynamic`):

    ```mlir
    // arith.addf on tensor<?x4xf32>
    #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=?, j=4}>
    ```

    A dynamic factor may be sharded only where the sharded size provably
    divides its symbolic size (with the function's `poly.constraints`), or
    where the program opts into padding: the passes that shard factors decide
    that; the rule only records that the size is dynamic.

    The rule is checked against the op that carries it (as Shardy does, not
    when it is parsed, so that errors name the op), in this order:
    - one mapping per operand and per result, and at least one of each;
    - each operand/result is a ranked tensor (a non-shaped value such as an
      `index` or `f32` is a scalar and maps to `[]`), whose rank matches its
      mapping;
    - every dimension has at least one factor, every factor index is in
      range, no factor appears twice in one tensor, and a compound dimension
      has no factor of size 1;
    - a dynamic dimension has at least one dynamic factor; a static one has
      the size of the product of its factors' sizes (all static), unless it
      is mapped to a single factor of size 1 (never sharded), or one of its
      factors is a permutation or need-replication factor (pad, slice,
      concatenate and window dimensions change size across the op);
    - factor sizes are non-negative or `?`, and every factor is used by some
      operand or result;
    - each factor set is sorted, has no duplicates and in-range indices; a
      factor is in at most one of `reduction`, `need_replication` and
      `permutation`; a reduction factor appears in no result.
    `OpShardingRuleAttr::verify` checks the op-independent part of these
    for rules built in C++.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t", "factor sizes">:$factor_sizes,
    OptionalArrayRefParameter<"TensorMappingAttr", "operand mappings">
        :$operand_mappings,
    OptionalArrayRefParameter<"TensorMappingAttr", "result mappings">
        :$result_mappings,
    OptionalArrayRefParameter<"int64_t", "reduction factors">
        :$reduction_factors,
    OptionalArrayRefParameter<"int64_t", "need-replication factors">
        :$need_replication_factors,
    OptionalArrayRefParameter<"int64_t", "permutation factors">
        :$permutation_factors,
    OptionalArrayRefParameter<"int64_t", "blocked-propagation factors">
        :$blocked_propagation_factors,
    DefaultValuedParameter<"bool", "false", "user-defined rule">
        :$is_custom_rule
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of factors.
    int64_t getNumFactors() const { return getFactorSizes().size(); }
    /// The number of operand mappings.
    int64_t getNumOperands() const { return getOperandMappings().size(); }
    /// The number of result mappings.
    int64_t getNumResults() const { return getResultMappings().size(); }
    /// The number of operand and result mappings.
    int64_t getNumTensors() const { return getNumOperands() + getNumResults(); }
    /// The size of factor `factorIndex` (`ShapedType::kDynamic` for `?`).
    int64_t getFactorSize(int64_t factorIndex) const {
      return getFactorSizes()[factorIndex];
    }
    /// True if factor `factorIndex` has a dynamic size (`?`): a dimension of
    /// a `poly.shape` program whose size is only known at run time.
    bool isDynamicFactor(int64_t factorIndex) const {
      return ::mlir::ShapedType::isDynamic(getFactorSize(factorIndex));
    }
    /// The mapping of operand `operandIndex`.
    TensorMappingAttr getOperandMapping(int64_t operandIndex) const {
      return getOperandMappings()[operandIndex];
    }
    /// The mapping of result `resultIndex`.
    TensorMappingAttr getResultMapping(int64_t resultIndex) const {
      return getResultMappings()[resultIndex];
    }
    /// The mapping of tensor `tensorIndex`, counting operands first, then
    /// results.
    TensorMappingAttr getTensorMapping(int64_t tensorIndex) const;
    /// True for a user-defined rule.
    bool isCustom() const { return getIsCustomRule(); }
    /// The kind of factor `factorIndex`.
    FactorType getFactorType(int64_t factorIndex) const;
    /// True if `factorIndex` is a pass-through factor (in none of the
    /// reduction, need-replication and permutation sets).
    bool isPassThrough(int64_t factorIndex) const;
    /// True if `factorIndex` is a reduction factor.
    bool isReduction(int64_t factorIndex) const;
    /// True if `factorIndex` must stay replicated.
    bool isNeedReplication(int64_t factorIndex) const;
    /// True if `factorIndex` is a permutation factor.
    bool isPermutation(int64_t factorIndex) const;
    /// True if no sharding propagates along `factorIndex`.
    bool isBlocked(int64_t factorIndex) const;
    /// True if some dimension is mapped to more than one factor.
    bool hasDimensionsWithMultipleFactors() const;
    /// The indices (operands first, then results) of the tensors that have
    /// factor `factorIndex`.
    ::llvm::SmallVector<int64_t> getTensorsWithFactor(int64_t factorIndex) const;
  }];
}

#endif // TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULEATTR_TD
