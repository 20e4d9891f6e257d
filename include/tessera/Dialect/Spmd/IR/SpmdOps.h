//===- SpmdOps.h - spmd operations ----------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDOPS_H
#define TESSERA_DIALECT_SPMD_IR_SPMDOPS_H

#include "tessera/Dialect/Spmd/IR/SpmdAttrs.h"
#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessera/Dialect/Spmd/IR/ExplicitSharding.h"
#include "tessera/Dialect/Spmd/IR/Partitioning.h"
#include "tessera/Dialect/Spmd/IR/SpmdShardingRule.h"

#include "tessera/Dialect/Spmd/IR/SpmdInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Spmd/IR/SpmdOps.h.inc"

#endif // TESSERA_DIALECT_SPMD_IR_SPMDOPS_H
