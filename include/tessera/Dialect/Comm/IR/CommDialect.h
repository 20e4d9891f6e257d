//===- CommDialect.h - comm dialect -------------------------------*- C++
//-*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_COMM_IR_COMMDIALECT_H
#define TESSERA_DIALECT_COMM_IR_COMMDIALECT_H

#include "tessera/Dialect/Spmd/IR/SpmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"

#include "tessera/Dialect/Comm/IR/CommEnums.h.inc"

#include "tessera/Dialect/Comm/IR/CommDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Comm/IR/CommAttrs.h.inc"

#endif // TESSERA_DIALECT_COMM_IR_COMMDIALECT_H
