//===- Passes.td - kernel passes ---------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KernelVerifyPass : Pass<"kernel-verify", "::mlir::ModuleOp"> {
  let summary = "Checks every kernel.call against the rules of its TPU "
                "generation";
  let description = [{
    Checks, before anything runs, what Pallas's TPU lowering, Mosaic and
    XLA would reject for the generation named by the module's
    `kernel.target` (`#kernel.target<"v5e">`), with their wording where
    they have one:

    1. block rank >= 1;
    2. the (8, 128) rule: the last two block dimensions are divisible by 8
       and 128 or equal to the array's; rank-1 blocks equal the array, are
       a multiple of 1024, or a power of two of at least 128 * (32 /
       bitwidth);
    3. blocks in `hbm`/`any` are the whole array with a zero index map; a
       grid-free call has only trivial windows; element blocks have only
       element or squeezed dimensions;
    4. element types the generation supports (no 64-bit types; fp8 and
       int4 from v5e on);
    5. the static VMEM and SMEM budgets: windows (padded to the memory
       tiling) times their buffer count, plus scratch, plus the peak of
       `kernel.run_scoped` allocations, against `vmem_limit_bytes` or the
       generation's default scoped VMEM limit, and against SMEM;
    6. parallel grid axes form a prefix of the grid, and no output block is
       revisited along a parallel axis;
    7. output blocks are revisited only consecutively, and every block
       index is in bounds (at least one element of the block inside the
       array), where the index maps are affine (the grid is enumerated;
       aliased outputs are exempt from the revisit check, as in Pallas's
       interpret mode);
    8. in kernel bodies: `kernel.program_id`/`num_programs` axes within the
       grid, scalar-only and unmasked 32-bit SMEM access, no scalar stores
       to VMEM, no 0-d VMEM refs, no boolean DMAs, masked VMEM stores of
       32-bit data only;
    9. semaphores are zero at kernel exit (and at the end of a
       `kernel.run_scoped`) where the counts are static: constant amounts,
       in straight-line code or loops with static trip counts; with
       loop-variant indices, the buffer's total.

    ```mlir
    module attributes {kernel.target = #kernel.target<"v5e">} {
      func.func @f(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
        // error: The Pallas TPU lowering currently requires that the last
        // two dimensions of your block shape are divisible by 8 and 128 ...
        %0 = kernel.call @body(%x) grid = [2]
            in_specs = [#kernel.block<[8, 100], (i) -> (i, 0)>] ...
      }
    }
    ```

    The pass changes nothing; it fails if any kernel breaks a rule. With
    `footprints=true` it also reports, as a remark on every `kernel.call`,
    the VMEM and SMEM footprints it computed and their limits.
  }];
  let options = [
    Option<"emitFootprints", "footprints", "bool", /*default=*/"false",
           "Emit a remark per kernel.call with its VMEM and SMEM footprints "
           "and limits">
  ];
  let dependentDialects = ["::mlir::tessera::kernel::KernelDialect"];
}

def KernelLowerInterpretPass
    : Pass<"kernel-lower-interpret", "::mlir::ModuleOp"> {
  let summary = "Lowers kernel.calls to sequential code with run-time checks "
                "(Pallas's interpret mode)";
  let description = [{
    The reference lowering of every `kernel.call` on tensors: plain
    sequential code that the `tessera-cpu` pipeline compiles, with the
    checks of Pallas's TPU interpret mode.

    - The call becomes a call of the runtime's `tessera_rt_kernel_call`
      with a core function (`@<body>_interpret<N>_core`) that runs the
      steps on one TensorCore; the runtime gives it VMEM and SMEM arenas of
      the target's sizes (`kernel.target`, needed) for its buffers.
    - The grid becomes one `scf.for` over the steps in lexicographic order
      (last axis fastest); `kernel.program_id` / `kernel.num_programs`
      become the step's grid indices and the grid bounds.
    - Each blocked operand gets a block buffer (a memref of the block
      shape) in the arena; every copy is a DMA the runtime performs at
      once. At every step the input blocks are copied in from the operand
      at the block index of their index map (affine maps, or a call of the
      index function with the scalar-prefetch buffers); the part of a
      partial edge block or of element padding outside the array is NaN for
      floats (the largest value for integers). An output block starts
      NaN-poisoned whenever its block index changes (output windows are
      never read from HBM) and is written back, without its part outside
      the array, after every step. Scratch buffers are allocated once and
      start NaN-poisoned; semaphores start at zero.
    - The body is cloned once per call (`@<body>_interpret<N>`), with the
      grid indices as leading arguments and the memory spaces dropped from
      its types, and called at every step. `kernel.load` / `kernel.store`
      become `vector` loads and stores (masked ones
      `vector.maskedload`/`maskedstore`, masked-out lanes NaN),
      `kernel.async_copy` a synchronous `memref.copy` that adds the bytes
      of its target to the DMA semaphore (its wait subtracts them; in
      `kernel-lower-pipelined` a DMA on the core's engine and a runtime
      wait),
      semaphores counters in memory, `kernel.run_scoped` fresh
      (poisoned) buffers.
    - Run-time checks call `tessera_rt_kernel_error`
      (`tessera/Runtime/KernelABI.h`), which fails the run with Pallas's words
      naming the kernel, the grid point and the operand, and the failing
      access is skipped: out-of-bounds block indices (`Out-of-bounds block
      index (2, 0) for input "args[0]" in iteration (2,): ...`),
      out-of-bounds unmasked loads and stores and DMA views
      (`memref.subview`s of a buffer), non-consecutive revisits of
      an output block (`Revisited block [0:8, 0:128] of output 0 in
      iteration (1, 0). The block was previously visited in iterations
      (0, 0) through (0, 0)`), semaphore waits that would hang, and
      non-zero semaphores at kernel exit.

    Operands become buffers through `bufferization.to_buffer` and results
    tensors through `bufferization.to_tensor`, so the function around the
    call is still a tensor program for one-shot bufferization. Aliased
    outputs (`input_output_aliases`) start as a copy of their input.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def KernelLowerPipelinedPass
    : Pass<"kernel-lower-pipelined", "::mlir::ModuleOp"> {
  let summary = "Lowers kernel.calls to loops over double-buffered VMEM "
                "windows (the Pallas TPU pipeline)";
  let description = [{
    The lowering of every `kernel.call` that behaves like Pallas's TPU
    pipeline, on the CPU:

    - the call as a call of the runtime's `tessera_rt_kernel_call` with a
      core function (`@<body>_pipelined<N>_core`) holding the steps of one
      TensorCore, run by the runtime on each TensorCore as a thread with
      its own VMEM/SMEM arenas of the target's sizes and DMA engine; on a
      megacore target (v4, v5p) the leading `parallel` grid axes are split
      across the TensorCores;
    - the grid as one `scf.for` over the core's steps in lexicographic
      order;
    - per blocked operand in VMEM or SMEM a window of two buffers in the
      arena (one with `buffers = 1` or for a trivial window, whole array and
      constant index map); the body gets the current one;
    - inputs: the first block's DMA is started before the loop; every step
      waits for its block's DMA, then starts the next step's block into the
      other buffer before the body runs (the runtime completes it later,
      at the latest when the next step waits for it), or
      skips it when the next block index equals the current one (the same
      buffer is then reused);
    - outputs: the window stays resident while the block index does not
      change (so a consecutively revisited block accumulates), and its DMA
      back (without its part outside the array) is started when the next
      step's block index differs and at the last step, then the other
      buffer becomes current (after its own earlier write-back completed);
    - scratch buffers are allocated once and persist across steps.

    Every DMA goes through `tessera_rt_kernel_dma_start` (which counts
    bytes and copies); skipped copies are counted with
    `tessera_rt_kernel_count_copy`; every DMA is drained before the call
    returns. The body is cloned and
    lowered as in `kernel-lower-interpret` (the same loads, stores, DMAs and
    semaphores), but without that lowering's poisoning and revisit
    checks; out-of-bounds block indices, loads, stores and DMA
    views, semaphores that would hang and non-zero semaphores at exit are
    still reported (and the access skipped).
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
