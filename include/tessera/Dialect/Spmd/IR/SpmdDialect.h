//===- SpmdDialect.h - spmd dialect ---------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_IR_SPMDDIALECT_H
#define TESSERA_DIALECT_SPMD_IR_SPMDDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"

#include "tessera/Dialect/Spmd/IR/SpmdEnums.h.inc"

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h.inc"

#endif // TESSERA_DIALECT_SPMD_IR_SPMDDIALECT_H
