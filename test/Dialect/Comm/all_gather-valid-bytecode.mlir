// RUN: tessera-opt %s --emit-bytecode | tessera-opt | FileCheck %s

// Tests that the valid size of comm.all_gather survives bytecode (comm
// bytecode version 2) and that a gather without it reads back without it.

spmd.mesh @mesh = <["x"=2, "y"=4]>

// CHECK-LABEL: func.func @f
func.func @f(%x: tensor<4x8xf32>) -> (tensor<5x8xf32>, tensor<8x8xf32>) {
  // CHECK: comm.all_gather %{{.*}} over @mesh {"x"} dim 0 valid 5 : tensor<4x8xf32> -> tensor<5x8xf32>
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 valid 5 : tensor<4x8xf32> -> tensor<5x8xf32>
  // CHECK: comm.all_gather %{{.*}} over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %1 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  return %0, %1 : tensor<5x8xf32>, tensor<8x8xf32>
}
