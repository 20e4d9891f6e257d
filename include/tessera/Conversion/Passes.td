//===- Passes.td - conversion passes -----------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_PASSES_TD
#define TESSERA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertCommToRuntimePass
    : Pass<"convert-comm-to-runtime", "ModuleOp"> {
  let summary = "Lowers comm collectives to calls of the runtime's C ABI";
  let description = [{
    Replaces every `comm` op of a per-device program by a call of the
    runtime's C ABI (`tessera_rt_*`, declared in `tessera/Runtime/Runtime.h`):

    | op | call |
    |---|---|
    | `comm.all_reduce` | `tessera_rt_all_reduce(in, out, n, dtype, kind, group, parts, site)` |
    | `comm.all_gather` | `tessera_rt_all_gather(in, out, shape, rank, dtype, dim, group, parts, site)` |
    | `comm.reduce_scatter` | `tessera_rt_reduce_scatter(in, out, shape, rank, dtype, kind, dim, group, parts, site)` |
    | `comm.all_to_all` | `tessera_rt_all_to_all(in, out, shape, rank, dtype, split, concat, group, parts, site)` |
    | `comm.permute` | `tessera_rt_permute(in, out, bytes, sources, targets, pairs, group, parts, site)` |
    | `comm.axis_index` | `tessera_rt_axis_index(group, parts)` |
    | `comm.axis_size` | a constant |

    The pass runs on tensors, before bufferization: the operand becomes a
    read-only buffer (`bufferization.to_buffer` with the identity layout, so
    one-shot bufferization copies a strided operand into a contiguous one),
    the result a freshly allocated contiguous buffer wrapped back into a
    tensor (`bufferization.to_tensor restrict writable`). Pointers are
    passed as `!llvm.ptr`.

    A group is a constant array of `(axis, pre-size, size)` triples, one
    per listed axis (a full axis is `(axis, 1, size)`), major to minor, with
    axes numbered in mesh order; `site` is a constant string naming the op
    and its location, which the runtime's watchdog prints when devices
    diverge. Element types map to the runtime's dtype codes (`index` is
    `i64`); complex and other element types are rejected with an error.
    Afterwards the `spmd.mesh` symbols, no longer used, are erased.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TESSERA_CONVERSION_PASSES_TD
