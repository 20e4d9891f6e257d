//===- KernelOps.h - kernel operations --------------------------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELOPS_H
#define TESSERA_DIALECT_KERNEL_IR_KERNELOPS_H

#include "tessera/Dialect/Kernel/IR/KernelDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "tessera/Dialect/Kernel/IR/KernelOps.h.inc"

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELOPS_H
