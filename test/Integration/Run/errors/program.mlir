// Programs tessera-run cannot run, and bad options.
// RUN: not tessera-run %s --entry nope --random-inputs 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not tessera-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: not tessera-run %s --entry scalar --random-inputs 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not tessera-run %s --entry dynamic --random-inputs 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not tessera-run %s --entry dynamic --random-inputs --input-shape 0=3x5 2>&1 | FileCheck %s --check-prefix=DYNSHAPE
// RUN: not tessera-run %s --entry f --random-inputs --backend=cuda 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not tessera-run %s --entry f --random-inputs --emit=asm 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not tessera-run %s --entry f --random-inputs --repeat 0 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not tessera-run %s --entry f --random-inputs --opt-level 4 2>&1 | FileCheck %s --check-prefix=OPT

// ENTRY: tessera-run: error: unknown entry function 'nope' (the module defines: f, g, scalar, dynamic)
// AMBIGUOUS: tessera-run: error: the module has several public functions and none is named 'main': choose one with --entry
// SCALAR: tessera-run: error: argument 0 of @scalar has type f32, which tessera-run cannot pass: entry arguments are ranked tensors
// DYNAMIC: tessera-run: error: argument 0 (%d) has the dynamic type tensor<?x4xf32>: give its shape with --input-shape 0=... or an --input file
// DYNSHAPE: tessera-run: error: --input-shape (3, 5) does not match argument 0 (%d) of type tensor<?x4xf32>
// BACKEND: tessera-run: error: unknown --backend 'cuda' (expected threads or mpi)
// EMIT: tessera-run: error: unknown --emit 'asm' (expected mlir, llvm or obj)
// REPEAT: tessera-run: error: --repeat must be at least 1
// OPT: tessera-run: error: --opt-level must be 0, 1, 2 or 3, got '4'
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @scalar(%a: f32) -> f32 {
  return %a : f32
}
func.func @dynamic(%d: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %d : tensor<?x4xf32>
}
