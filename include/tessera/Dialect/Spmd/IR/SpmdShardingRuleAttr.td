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

#endif // TESSERA_DIALECT_SPMD_IR_SPMDSHARDINGRULEATTR_TD
