// RUN: tessera-opt %s --convert-kernel-to-runtime | FileCheck %s --check-prefixes=CHECK,PIPELINED
// RUN: tessera-opt %s --convert-kernel-to-runtime=mode=interpret | FileCheck %s --check-prefixes=CHECK,INTERPRET
// RUN: tessera-opt %s --kernel-lower-interpret | FileCheck %s --check-prefixes=CHECK,INTERPRET
// RUN: not tessera-opt %s --convert-kernel-to-runtime=mode=eager 2>&1 | FileCheck %s --check-prefix=BAD

// Tests that convert-kernel-to-runtime lowers a kernel.call in the mode its
// option names (pipelined by default): the body cloned with the grid indices
// first and plain memref types, its kernel ops lowered (a bounds-checked
// load, the grid query as the leading argument), a core function that runs
// the steps, and the call of tessera_rt_kernel_call with the mode in the
// call info (1 pipelined, 0 interpret). The kernel-lower-* pipelines run it.

// CHECK-LABEL: func.func private @body_{{pipelined|interpret}}0
// CHECK-SAME: (%[[I:.*]]: index, %[[X:.*]]: memref<8x128xf32>, %[[O:.*]]: memref<8x128xf32>)
// CHECK-NOT: kernel.
// CHECK: scf.if
// CHECK: vector.load %[[X]]
// CHECK: arith.index_cast %[[I]]
// PIPELINED-LABEL: func.func private @body_pipelined0_core
// INTERPRET-LABEL: func.func private @body_interpret0_core
// CHECK: scf.for
// CHECK-LABEL: func.func @main
// CHECK: %[[INFO:.*]] = memref.alloca() : memref<9xi64>
// CHECK: %[[ARGS:.*]] = memref.alloca() : memref<2xi64>
// CHECK: memref.store %{{.*}}, %[[ARGS]]
// CHECK: memref.store %{{.*}}, %[[ARGS]]
// PIPELINED: %[[MODE:.*]] = arith.constant 1 : i64
// INTERPRET: %[[MODE:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[MODE]], %[[INFO]][%[[C0]]]
// PIPELINED: constant @body_pipelined0_core
// INTERPRET: constant @body_interpret0_core
// CHECK: call @tessera_rt_kernel_call
// CHECK: bufferization.to_tensor

// BAD: for the --mode option: Cannot find option named 'eager'!
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %i = kernel.program_id 0
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = vector.broadcast %f : f32 to vector<8x128xf32>
    %r = arith.addf %a, %s : vector<8x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}
