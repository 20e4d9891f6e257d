// A function called with different shardings: tessera-propagate gives each
// call site its own copy of the callee, propagates, and merges the copies
// whose shardings agree, so @layer is specialized once per sharding
// signature (three calls, two signatures: the first and the last share
// one) instead of resharded at every call. Each run must match the
// single-device reference.
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --check --mesh x=4,y=1 | FileCheck %s
// RUN: tessera-run %s --random-inputs --check --mesh x=1,y=4 | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR
// CHECK: check: all 2 results match the single-device reference

// The partitioned program: two specializations, called without collectives
// around the calls (the second call's operand is sliced locally: its copy
// of @layer takes it sharded like its result).
// IR-LABEL: func.func private @layer(
// IR-SAME: spmd.global_sharding = #spmd.sharding<@mesh, [{"x", ?}, {?}]>
// IR-LABEL: func.func @main
// IR-NOT: comm.all_
// IR: call @layer(
// IR-NOT: comm.all_
// IR: call @layer_0(
// IR-NOT: comm.all_
// IR: call @layer(
// IR-NOT: comm.all_
// IR: return
// IR-LABEL: func.func private @layer_0(
// IR-SAME: spmd.global_sharding = #spmd.sharding<@mesh, [{"x", ?}, {"y", ?}]>
// IR-NOT: func.func private @layer_1(

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func private @layer(%a: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %t = math.tanh %m : tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

func.func @main(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
                %c: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %w: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
        tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %0 = func.call @layer(%a, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = func.call @layer(%b, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %2 = func.call @layer(%c, %w) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = arith.addf %1, %2 : tensor<8x8xf32>
  return %0, %3 : tensor<8x8xf32>, tensor<8x8xf32>
}
