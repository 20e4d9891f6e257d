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

def KernelInferVectorLayoutPass
    : Pass<"kernel-infer-vector-layout", "::mlir::ModuleOp"> {
  let summary = "Gives every vector value of a kernel body a native tiled "
                "layout";
  let description = [{
    The first of the two layout passes (Mosaic's `infer-vector-layout`):
    every op of a kernel body (a callee of a `kernel.call`) with vector
    results gets `kernel.out_layouts`, one `#kernel.layout` per vector
    result (`unit` for other results): the native tile of its element type,
    `(8, 128)` for 32-bit elements, `(16, 128)` for 16-bit and `(32, 128)`
    for 8-bit ones, the dimension itself where it is smaller, and
    `128 * 32 / bitwidth` elements for rank 1; comparisons give their
    masks the tiling of the values they compare, and boolean ops the
    tiling of their operands. Layouts already on an op (given by hand) are
    kept.

    ```mlir
    %s = arith.addf %a, %b : vector<256x512xf32>
    // becomes
    %s = arith.addf %a, %b {kernel.out_layouts = [#kernel.layout<[8, 128]>]}
        : vector<256x512xf32>
    ```

    Ops on vectors of several tiles that `kernel-apply-vector-layout`
    cannot rewrite are reported (as by `kernel-verify`):
    `Unimplemented primitive in Pallas TPU lowering for tc: vector.gather
    on vector<256x128xf32> (32 native tiles of (8, 128))`; contractions
    need a 32-bit accumulator (`Expected matmul acc to be 32-bit`) and
    operands of its kind (floats into f32, integers into i32).
  }];
  let dependentDialects = ["::mlir::tessera::kernel::KernelDialect"];
}

def KernelApplyVectorLayoutPass
    : Pass<"kernel-apply-vector-layout", "::mlir::ModuleOp"> {
  let summary = "Rewrites the vector ops of kernel bodies onto the tiles of "
                "their layouts";
  let description = [{
    The second layout pass (Mosaic's `apply-vector-layout`): every op of a
    kernel body on a vector value that spans more than one tile of its
    `kernel.out_layouts` layout (kernel-infer-vector-layout) is rewritten
    onto tiles of that layout, with loops over the tiles (not unrolled:
    code size and compile time grow with the number of distinct ops, not
    with the number of tiles). Values that fit one tile are left as they
    are, except contractions.

    - **Elementwise ops, casts, broadcasts, splat constants, `vector.step`,
      masks and `kernel.load`s** are computed tile by tile where their
      value is used: a chain of them that ends in a `kernel.store`, a
      reduction or a loop-carried value is one loop nest over the tiles of
      the stored (reduced, carried) value, each tile loaded, computed and
      stored in registers. A value used more than once (or by an op that
      needs it in memory) is first stored tile by tile into a *layout
      buffer* of its shape in VMEM; a `kernel.load` is read where it is
      used when no op that may write memory runs in between, else copied
      first.
    - **Reductions** (`vector.multi_reduction`, `vector.reduction`): per
      tile of the kept dimensions, a loop over the reduced tiles combines
      them elementwise in registers, then one reduction of the tile and its
      accumulator.
    - **Contractions** (`vector.contract`: f32, bf16 into f32, int8 into
      int32, any indexing maps; of any size, one tile or several) become a
      `linalg.generic` of the same maps on the operands' buffers (the
      blocks they were loaded from when that is safe) into an accumulator
      buffer that starts as the contraction's accumulator, which the kernel
      lowering hands to the tiled and vectorized matmul code of
      `tessera-cpu`.
    - **Transposes** become a `linalg.transpose` into a layout buffer;
      `vector.shape_cast`, `extract`, `extract_strided_slice` views of the
      operand's buffer; `insert` and `insert_strided_slice` a copy of the
      destination with the source stored into a view of it.
    - **`scf.for` / `scf.if`** values of several tiles live in a layout
      buffer: the loop's initial value is stored into it before the loop
      and each iteration's value at its `scf.yield`; the branches of an
      `scf.if` store theirs.

    The layout buffers are the arguments of one `kernel.run_scoped` around
    the body, so the kernel lowering places them in the TensorCore's VMEM
    arena (where `tessera-run --stats` counts them in the VMEM high-water
    mark).

    ```mlir
    %a = kernel.load %x[%c0, %c0] : memref<256x512xf32, ...>, vector<256x512xf32>
    %s = arith.mulf %a, %a : vector<256x512xf32>
    kernel.store %s, %o[%c0, %c0] : vector<256x512xf32>, memref<256x512xf32, ...>
    // becomes (one loop nest over 32 x 4 tiles)
    scf.for %i = %c0 to %c256 step %c8 {
      scf.for %j = %c0 to %c512 step %c128 {
        %t = kernel.load %x[%i, %j] : ..., vector<8x128xf32>
        %u = arith.mulf %t, %t : vector<8x128xf32>
        kernel.store %u, %o[%i, %j] : vector<8x128xf32>, ...
      }
    }
    ```
  }];
  let options = [
    Option<"rowsPerStep", "rows-per-step", "int64_t", /*default=*/"0",
           "Each iteration of a loop over the tiles of a value computes this "
           "many rows (the second-minor dimension) of a tile, where that "
           "divides the tile's rows (0: whole tiles). A CPU's vector "
           "registers hold far less than a TPU's: an (8, 128) f32 tile is "
           "64 AVX-512 registers, a (1, 128) row 8">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tessera::kernel::KernelDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
