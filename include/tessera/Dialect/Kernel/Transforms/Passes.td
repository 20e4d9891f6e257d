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

#endif // TESSERA_DIALECT_KERNEL_TRANSFORMS_PASSES_TD
