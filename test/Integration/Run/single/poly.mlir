// A shape-polymorphic program (jax.export symbolic shapes) is specialized
// to the shapes of its inputs; shapes that violate the specification give
// JAX's shape-assertion messages.
// RUN: tessera-run %examples/poly/batched.mlir --random-inputs --input-shape 0=4x6 --input-shape 1=6x8 --check | FileCheck %s
// RUN: python3 %S/../Inputs/npy.py iota 2x4 f32 %t.x.npy
// RUN: python3 %S/../Inputs/npy.py iota 4x8 f32 %t.w.npy
// RUN: tessera-run %examples/poly/batched.mlir --input x=%t.x.npy --input w=%t.w.npy | FileCheck %s --check-prefix=FILES
// RUN: not tessera-run %examples/poly/batched.mlir --random-inputs --input-shape 0=4x6 --input-shape 1=4x8 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not tessera-run %examples/poly/batched.mlir --random-inputs --input-shape 0=4x5 --input-shape 1=5x8 2>&1 | FileCheck %s --check-prefix=REMAINDER

// CHECK: tessera-run: @f on x=2 (2 devices)
// CHECK-NEXT: result0: f32[4,8]
// CHECK: check: all 1 results match the single-device reference
// FILES: result0: f32[2,8]
// MISMATCH: error: 'func.func' op Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[1].shape[0] (= 4) and the specification '2*d' (= 6).
// REMAINDER: error: 'func.func' op Input shapes do not match the polymorphic shapes specification. Division had remainder 1 when computing the value of 'd'.
