// Tests a kernel.call inside a sharded global-view program: its operands
// are sharded over a 2x2 mesh, the kernel has no sharding rule, so the
// partitioner gathers them and every device runs the whole kernel (as JAX
// runs a pallas_call outside shard_map on replicated operands); the
// elementwise op after it is partitioned again. --check compares the
// partitioned run (pipelined kernels) with the unpartitioned program on one
// device (interpret kernels); --stats shows the kernel's 8 steps on every
// device.
// RUN: tessera-run %s --random-inputs --check --stats | FileCheck %s
// CHECK: tessera-run: @main on x=2,y=2 (4 devices)
// CHECK: stats: kernel @add_body on device 0: pipelined, TPU v5e, 1 TensorCore, 8 grid steps
// CHECK: stats: kernel @add_body on device 3: pipelined, TPU v5e, 1 TensorCore, 8 grid steps
// CHECK: check: all 1 results match the single-device reference (kernels in interpret mode)
module attributes {kernel.target = #kernel.target<"v5e">} {
  spmd.mesh @m = <["x"=2, "y"=2]>
  func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<32x256xf32> {spmd.sharding = #spmd.sharding<@m, [{"x"}, {"y"}]>}, %y: tensor<32x256xf32> {spmd.sharding = #spmd.sharding<@m, [{"x"}, {"y"}]>}) -> tensor<32x256xf32> {
    %0 = kernel.call @add_body(%x, %y) grid = [4, 2]
        in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>, #kernel.block<[8, 128], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
    %1 = arith.mulf %0, %0 : tensor<32x256xf32>
    return %1 : tensor<32x256xf32>
  }
}
