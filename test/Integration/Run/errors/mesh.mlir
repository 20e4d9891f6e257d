// Mesh overrides and programs that cannot run on a mesh.
// RUN: not tessera-run %s --random-inputs --mesh z=2 2>&1 | FileCheck %s --check-prefix=AXIS
// RUN: not tessera-run %s --random-inputs --mesh x 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not tessera-run %s --random-inputs --mesh x=0 2>&1 | FileCheck %s --check-prefix=SYNTAX0
// RUN: not tessera-run %s --random-inputs --mesh x=3 2>&1 | FileCheck %s --check-prefix=CANNOT
// RUN: not tessera-run %s --random-inputs --mesh x=2 2>&1 | FileCheck %s --check-prefix=SMALLER

// AXIS: tessera-run: error: --mesh names axis 'z', which the mesh does not have (its axes are x)
// SYNTAX: tessera-run: error: bad --mesh item 'x': expected name=size with size >= 1
// SYNTAX0: tessera-run: error: bad --mesh item 'x=0': expected name=size with size >= 1
// 8 rows do not split over 3 devices.
// CANNOT: mesh.mlir:19:8: error: 'spmd.manual_computation' op operand dimension size 8 is not divisible by the manual axes size 3
// CANNOT: tessera-run: error: the program cannot run on mesh x=3 (see the errors above)
// On two devices the local type is wrong too: the body is written for four.
// SMALLER: mesh.mlir:19:8: error: 'spmd.manual_computation' op operand shape, corresponding sharding, and region operand shape at index 0 must match. Expected local shape 'tensor<4xf32>', actual local shape 'tensor<2xf32>'
// SMALLER: tessera-run: error: the program cannot run on mesh x=2 (see the errors above)
spmd.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2xf32>
    spmd.return %s : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
