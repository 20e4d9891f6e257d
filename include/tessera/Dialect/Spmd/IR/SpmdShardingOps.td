//===- SpmdShardingOps.td - spmd sharding/collective ops ---*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Included from SpmdOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD
#define TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD

#endif // TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGOPS_TD
