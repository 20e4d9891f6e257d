//===- ShardingRuleExternalModels.h - sharding rules of ops -----*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// ShardingRuleOpInterface models for upstream ops (arith, math, linalg,
// tensor) and Tessera's own, registered as dialect-registry extensions: a
// model attaches when its dialect loads.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_EXTENSIONS_SHARDINGRULEEXTERNALMODELS_H
#define TESSERA_DIALECT_SPMD_EXTENSIONS_SHARDINGRULEEXTERNALMODELS_H

namespace mlir {
class DialectRegistry;

namespace tessera::spmd {

/// Registers every sharding-rule model below.
void registerShardingRuleExternalModels(DialectRegistry &registry);

/// Elementwise arith ops on tensors (incl. cmpi/cmpf, select, casts).
void registerArithShardingRuleModels(DialectRegistry &registry);
/// Elementwise math ops on tensors.
void registerMathShardingRuleModels(DialectRegistry &registry);
/// Every linalg structured op, from its indexing maps and iterator types.
void registerLinalgShardingRuleModels(DialectRegistry &registry);
/// tensor.cast, splat, expand_shape, collapse_shape, reshape, concat,
/// extract_slice, insert_slice and pad.
void registerTensorShardingRuleModels(DialectRegistry &registry);
/// spmd.sharding_constraint and spmd.reshard (identity rules).
void registerSpmdShardingRuleModels(DialectRegistry &registry);

/// ExplicitShardingOpInterface models (JAX's rules that a sharding rule
/// cannot express, and unreduced rules) of arith, tensor and linalg ops.
/// registerShardingRuleExternalModels registers them too.
void registerExplicitShardingExternalModels(DialectRegistry &registry);

/// PartitionOpInterface models (the local forms spmd-partition builds) of
/// the arith, tensor and linalg ops whose attributes spell shapes or
/// global positions. registerShardingRuleExternalModels registers them too.
void registerPartitionExternalModels(DialectRegistry &registry);

} // namespace tessera::spmd
} // namespace mlir

#endif // TESSERA_DIALECT_SPMD_EXTENSIONS_SHARDINGRULEEXTERNALMODELS_H
