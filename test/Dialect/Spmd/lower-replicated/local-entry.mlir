// RUN: tessera-opt %s --spmd-lower-replicated=local-entry=main --split-input-file | FileCheck %s

// Tests that a function whose whole body is a manual computation over every
// mesh axis becomes the per-device function with the body's local types and
// records the shardings its caller scatters and gathers by.
spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<8x2xf32>) -> tensor<2x2xf32>
// CHECK-SAME: tessera.per_device = [#spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {"y"}]>]>, #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>]
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<2x4xf32>, tensor<4x2xf32>)
// CHECK: %[[S:.*]] = comm.all_reduce sum %[[M]] over @mesh {"y"} : tensor<2x2xf32>
// CHECK-NEXT: return %[[S]] : tensor<2x2xf32>
// CHECK-NOT: spmd.manual_computation
func.func @main(%a: tensor<4x4xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = spmd.manual_computation(%a, %b)
      in_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}, {"y"}]>]
      out_shardings=[<@mesh, [{"x"}, {"y"}]>]
      manual_axes={"x", "y"}
      (%la: tensor<2x4xf32>, %lb: tensor<8x2xf32>) {
    %e = tensor.empty() : tensor<2x2xf32>
    %w = tensor.extract_slice %lb[0, 0] [4, 2] [1, 1] : tensor<8x2xf32> to tensor<4x2xf32>
    %m = linalg.matmul ins(%la, %w : tensor<2x4xf32>, tensor<4x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %s = comm.all_reduce sum %m over @mesh {"y"} : tensor<2x2xf32>
    spmd.return %s : tensor<2x2xf32>
  } : (tensor<4x4xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Tests that a manual computation over only some mesh axes keeps the
// global signature (the caller hands every device whole arrays).
spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: tessera.per_device
// CHECK: comm.axis_index over @mesh {"x"}
// CHECK: comm.all_gather
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    spmd.return %l : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that unreduced out_shardings and other ops in the body keep the
// function global.
spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: tessera.per_device
// CHECK: comm.all_reduce sum
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{}]>]
      out_shardings=[<@mesh, [{}], unreduced={"x"}>] manual_axes={"x"} (%l: tensor<4xf32>) {
    spmd.return %l : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
