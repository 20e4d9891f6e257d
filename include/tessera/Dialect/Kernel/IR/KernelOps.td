//===- KernelOps.td - kernel operations --------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_IR_KERNELOPS_TD
#define TESSERA_DIALECT_KERNEL_IR_KERNELOPS_TD

include "tessera/Dialect/Kernel/IR/KernelBase.td"
include "tessera/Dialect/Kernel/IR/KernelAttrs.td"
include "tessera/Dialect/Kernel/IR/KernelTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

defvar Kernel_BlockArrayAttr =
    TypedArrayAttrBase<Kernel_BlockAttr, "array of #kernel.block">;
/// The mask of a load or store: i1 lanes of the value's shape.
defvar Kernel_MaskType = AnyTypeOf<[VectorOfAnyRankOf<[I1]>, I1]>;
defvar Kernel_DimensionSemanticsArrayAttr =
    TypedArrayAttrBase<Kernel_DimensionSemanticsAttr,
                       "array of dimension semantics">;

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

def Kernel_CallOp : Kernel_Op<"call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs a kernel body over a grid of blocks (pallas_call)";
  let description = [{
    Pallas's `pl.pallas_call`: runs the body `@callee` once per point of
    the grid (lexicographic order, last axis fastest) on blocks of the
    operands, and returns the results assembled from the blocks the body
    wrote.

    ```mlir
    %r = kernel.call @matmul_body(%x, %y) grid = [4, 2, 8]
        cost_estimate = #kernel.cost<flops = 536870912, transcendentals = 0,
                                     bytes_accessed = 6815744>
        in_specs = [#kernel.block<[128, 256], (i, j, k) -> (i, k)>,
                    #kernel.block<[256, 128], (i, j, k) -> (k, j)>]
        out_specs = [#kernel.block<[128, 128], (i, j, k) -> (i, j)>]
        scratch = [memref<128x128xf32, #kernel.space<vmem>>]
        dimension_semantics = [parallel, parallel, arbitrary]
        : (tensor<512x2048xf32>, tensor<2048x256xf32>) -> tensor<512x256xf32>
    ```

    - `grid`: the iteration space (`[]` runs the body once).
    - `scalar_prefetch = N`: the first N operands are scalar-prefetch
      operands (`PrefetchScalarGridSpec`): copied to SMEM before the first
      step, passed first to the body and to every function index map. They
      have no block spec and 32-bit integer elements.
    - `in_specs` / `out_specs`: one `#kernel.block` per remaining operand
      and per result.
    - `scratch`: memref types of buffers allocated once per core for the
      whole call (VMEM or SMEM arrays, DMA or regular semaphores), contents
      initially undefined (`scratch_shapes`).
    - `dimension_semantics`: one `parallel` or `arbitrary` per grid axis
      (default all `arbitrary`).
    - `input_output_aliases = {1 -> 0}`: operand 1 (counting
      scalar-prefetch operands) and result 0 share a buffer; unvisited
      blocks of the result keep the operand's data. Types must match.
    - `cost_estimate`: an optional `#kernel.cost`.
    - `vmem_limit_bytes`: the scoped VMEM limit of this kernel (Pallas's
      `CompilerParams(vmem_limit_bytes=...)`), default the target's.

    The clauses after the operands may come in any order, each at most once;
    `grid`, `in_specs` and `out_specs` are required. The printer writes them
    in one order: `grid`, `scalar_prefetch`, `cost_estimate`, `in_specs`,
    `out_specs`, `scratch`, `dimension_semantics`, `input_output_aliases`,
    `vmem_limit_bytes`.

    The body is a `func.func` with no results whose arguments are, in
    order: the scalar-prefetch operands as SMEM memrefs, one memref per
    input and per output (the block's window shape in the block's memory
    space, or the whole array in `hbm`/`any`), and the scratch buffers.
    Operands and results are statically shaped tensors.
  }];
  let arguments = (ins
    FlatSymbolRefAttr:$callee,
    Variadic<AnyStaticShapeTensor>:$operands,
    DenseI64ArrayAttr:$grid,
    DefaultValuedAttr<I64Attr, "0">:$scalar_prefetch,
    Kernel_BlockArrayAttr:$in_specs,
    Kernel_BlockArrayAttr:$out_specs,
    OptionalAttr<TypeArrayAttr>:$scratch,
    OptionalAttr<Kernel_DimensionSemanticsArrayAttr>:$dimension_semantics,
    OptionalAttr<DenseI64ArrayAttr>:$input_output_aliases,
    OptionalAttr<Kernel_CostEstimateAttr>:$cost_estimate,
    OptionalAttr<I64Attr>:$vmem_limit_bytes
  );
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The scalar-prefetch operands.
    ::mlir::OperandRange getPrefetchOperands() {
      return getOperands().take_front(getScalarPrefetch());
    }
    /// The blocked operands (those with an in_spec).
    ::mlir::OperandRange getBlockedOperands() {
      return getOperands().drop_front(getScalarPrefetch());
    }
    /// The block of input `i` (counting blocked operands only).
    BlockAttr getInSpec(unsigned i) {
      return ::llvm::cast<BlockAttr>(getInSpecs()[i]);
    }
    /// The block of result `i`.
    BlockAttr getOutSpec(unsigned i) {
      return ::llvm::cast<BlockAttr>(getOutSpecs()[i]);
    }
    /// The semantics of every grid axis (`arbitrary` when absent).
    ::llvm::SmallVector<DimensionSemantics> getGridSemantics();
    /// The scratch buffer types (empty when absent).
    ::llvm::SmallVector<::mlir::MemRefType> getScratchTypes();
    /// The (operand, result) pairs of `input_output_aliases`.
    ::llvm::SmallVector<std::pair<int64_t, int64_t>> getAliasPairs();
    /// The argument types the body must have, in order.
    ::llvm::SmallVector<::mlir::Type> getExpectedBodyArgTypes();
    /// The block and array type of blocked operand `i` (inputs first, then
    /// outputs), `i < getNumBlocked()`.
    std::pair<BlockAttr, ::mlir::RankedTensorType> getBlocked(unsigned i);
    /// The number of blocked operands plus results.
    unsigned getNumBlocked() {
      return getBlockedOperands().size() + getResults().size();
    }
    /// A name of blocked operand `i` for diagnostics: `args[k]` (k counts
    /// every operand) or `outputs[k]`.
    std::string getBlockedName(unsigned i);
  }];
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

def Kernel_ProgramIdOp : Kernel_Op<"program_id", [Pure]> {
  let summary = "the index of the current grid step along an axis";
  let description = [{
    Pallas's `pl.program_id(axis)`: the current iteration's index along grid
    axis `axis`. `kernel-verify` checks the axis against the grid of every
    `kernel.call` of the body.

    ```mlir
    %i = kernel.program_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Kernel_NumProgramsOp : Kernel_Op<"num_programs", [Pure]> {
  let summary = "the size of the grid along an axis";
  let description = [{
    Pallas's `pl.num_programs(axis)`: the number of iterations along grid
    axis `axis`.

    ```mlir
    %n = kernel.num_programs 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

def Kernel_LoadOp : Kernel_Op<"load", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"mask has the shape of the result with i1 elements",
        "result", "mask",
        "::mlir::tessera::kernel::getMaskType($_self)">]> {
  let summary = "loads a vector or a scalar from a VMEM or SMEM buffer";
  let description = [{
    Reads a vector (or a scalar) from `ref` starting at `indices`: a vector
    of rank r covers the last r dimensions of the memref from the indices
    on. With a mask (`pltpu.load(ref, mask=)`), lanes whose mask bit is
    false are not read and hold unspecified values.

    ```mlir
    %v = kernel.load %x[%i, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %w = kernel.load %x[%i, %c0] mask %m : memref<16x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = kernel.load %p[%k] : memref<4xi32, #kernel.space<smem>>, i32
    ```

    `ref` is in VMEM or SMEM: buffers in HBM/ANY are reached through
    `kernel.async_copy` only, semaphores through `kernel.semaphore_read`.
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$ref,
                       Variadic<Index>:$indices,
                       Optional<Kernel_MaskType>:$mask);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $ref `[` $indices `]` (`mask` $mask^)? attr-dict `:` type($ref) `,`
    type($result)
  }];
  let hasVerifier = 1;
}

def Kernel_StoreOp : Kernel_Op<"store", [AttrSizedOperandSegments,
    OptionalTypesMatchWith<"mask has the shape of the value with i1 elements",
        "value", "mask",
        "::mlir::tessera::kernel::getMaskType($_self)">]> {
  let summary = "stores a vector or a scalar into a VMEM or SMEM buffer";
  let description = [{
    Writes `value` (a vector or a scalar) into `ref` starting at
    `indices`; a vector of rank r covers the last r dimensions. With a mask
    (`pltpu.store(ref, val, mask=)`), only lanes whose mask bit is true are
    written.

    ```mlir
    kernel.store %v, %o[%i, %c0] : vector<8x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    kernel.store %v, %o[%i, %c0] mask %m : vector<8x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    ```
  }];
  let arguments = (ins AnyType:$value,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$ref,
                       Variadic<Index>:$indices,
                       Optional<Kernel_MaskType>:$mask);
  let assemblyFormat = [{
    $value `,` $ref `[` $indices `]` (`mask` $mask^)? attr-dict `:`
    type($value) `,` type($ref)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DMA and semaphores
//===----------------------------------------------------------------------===//

def Kernel_AsyncCopyOp : Kernel_Op<"async_copy"> {
  let summary = "starts or waits for an asynchronous copy (DMA)";
  let description = [{
    Pallas's `pltpu.make_async_copy(src, dst, sem)`: `start` enqueues a copy
    of `src` into `dst` that signals the DMA semaphore `sem[indices]` as it
    completes; `wait` blocks until the copy of that size has arrived and
    decrements the semaphore by it. Every started copy must be waited for
    before the kernel exits.

    ```mlir
    kernel.async_copy start %src, %dst, %sem[] : memref<256x128xf32, #kernel.space<any>>, memref<256x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    kernel.async_copy wait %src, %dst, %sem[] : memref<256x128xf32, #kernel.space<any>>, memref<256x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    ```

    `src` and `dst` have the same shape and element type (views such as
    `memref.subview` select parts of a buffer) and live in VMEM, SMEM, HBM
    or ANY; `sem` is a memref of `!kernel.dma_semaphore` indexed down to
    one semaphore.
  }];
  let arguments = (ins Kernel_CopyPhaseAttr:$phase,
                       Arg<AnyStaticShapeMemRef, "", [MemRead]>:$src,
                       Arg<AnyStaticShapeMemRef, "", [MemWrite]>:$dst,
                       Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$sem,
                       Variadic<Index>:$sem_indices);
  let assemblyFormat = [{
    custom<CopyPhase>($phase) $src `,` $dst `,` $sem `[` $sem_indices `]`
    attr-dict `:` type($src) `,` type($dst) `,` type($sem)
  }];
  let hasVerifier = 1;
}

def Kernel_SemaphoreSignalOp : Kernel_Op<"semaphore_signal"> {
  let summary = "increments a regular semaphore";
  let description = [{
    Pallas's `pl.semaphore_signal(sem, inc)`: adds `amount` (an `i32`) to
    the semaphore `sem[indices]`.

    ```mlir
    kernel.semaphore_signal %sem[%c0], %one : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$sem,
                       Variadic<Index>:$indices, I32:$amount);
  let assemblyFormat = [{
    $sem `[` $indices `]` `,` $amount attr-dict `:` type($sem)
  }];
  let hasVerifier = 1;
}

def Kernel_SemaphoreWaitOp : Kernel_Op<"semaphore_wait"> {
  let summary = "waits for a regular semaphore and decrements it";
  let description = [{
    Pallas's `pl.semaphore_wait(sem, value)`: blocks until the semaphore
    `sem[indices]` is at least `amount` (an `i32`), then subtracts it.

    ```mlir
    kernel.semaphore_wait %sem[%c0], %one : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead, MemWrite]>:$sem,
                       Variadic<Index>:$indices, I32:$amount);
  let assemblyFormat = [{
    $sem `[` $indices `]` `,` $amount attr-dict `:` type($sem)
  }];
  let hasVerifier = 1;
}

def Kernel_SemaphoreReadOp : Kernel_Op<"semaphore_read"> {
  let summary = "reads the value of a semaphore";
  let description = [{
    Pallas's `pl.semaphore_read(sem)`: the current count of the regular or
    DMA semaphore `sem[indices]`, as an `i32`.

    ```mlir
    %v = kernel.semaphore_read %sem[%c0] : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "", [MemRead]>:$sem,
                       Variadic<Index>:$indices);
  let results = (outs I32:$result);
  let assemblyFormat = "$sem `[` $indices `]` attr-dict `:` type($sem)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scoped allocation
//===----------------------------------------------------------------------===//

def Kernel_RunScopedOp : Kernel_Op<"run_scoped", [
    RecursiveMemoryEffects,
    SingleBlock]> {
  let summary = "runs a region with buffers allocated for its lifetime";
  let description = [{
    Pallas's `pl.run_scoped(fn, *types)`: allocates one buffer per region
    argument (VMEM or SMEM arrays, semaphores; never HBM), runs the region
    and frees them. The region's `kernel.yield` gives the results, which
    cannot be the scoped buffers themselves.

    ```mlir
    %r = kernel.run_scoped (%buf: memref<8x128xf32, #kernel.space<vmem>>,
                            %sem: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) -> f32 {
      ...
      kernel.yield %x : f32
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Kernel_YieldOp : Kernel_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"RunScopedOp">]> {
  let summary = "returns values from a kernel.run_scoped region";
  let description = [{
    Ends the region of a `kernel.run_scoped`; its operands are the op's
    results.

    ```mlir
    kernel.yield %x : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // TESSERA_DIALECT_KERNEL_IR_KERNELOPS_TD
