//===- CallGraphCopies.h - callee copies of a flat call graph -*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// What spmd-flatten-call-graph and spmd-unflatten-call-graph share: the
// attribute naming the function a copy was made from, and callee lookup.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_SPMD_TRANSFORMS_CALLGRAPHCOPIES_H
#define TESSERA_DIALECT_SPMD_TRANSFORMS_CALLGRAPHCOPIES_H

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::tessera::spmd {

/// The attribute on a copy made by spmd-flatten-call-graph: the name of the
/// function it copies (Shardy's `sdy.original_func_name`).
inline constexpr llvm::StringLiteral kOriginalFuncNameAttrName =
    "spmd.original_func_name";

/// The function with a body that `call` calls, looked up by flat symbol in
/// `symbolTable`; null for an external or unknown callee.
FunctionOpInterface resolveDefinedCallee(CallOpInterface call,
                                         SymbolTable &symbolTable);

/// The name of the function `func` copies, or its own name.
StringAttr getOriginalFuncName(FunctionOpInterface func);

} // namespace mlir::tessera::spmd

#endif // TESSERA_DIALECT_SPMD_TRANSFORMS_CALLGRAPHCOPIES_H
