// RUN: tessera-opt %s --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Local types; the global interface stays on the function.
// CHECK-LABEL: func @local_types
// CHECK-SAME: (%arg0: tensor<4x4xf32> {spmd.global_sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>, spmd.global_type = tensor<8x16xf32>})
// CHECK-SAME: -> (tensor<4x4xf32> {spmd.global_sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>, spmd.global_type = tensor<8x16xf32>})
// CHECK-SAME: tessera.per_device = [#spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>, #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>]
func.func @local_types(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  // CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4x4xf32>
  // CHECK: %[[E:.*]] = math.exp %arg0 : tensor<4x4xf32>
  // CHECK: arith.addf %[[E]], %[[C]] : tensor<4x4xf32>
  %c = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} dense<1.0> : tensor<8x16xf32>
  %0 = math.exp %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x16xf32>
  %1 = arith.addf %0, %c {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// Collectives become comm ops over the same axes.
// CHECK-LABEL: func @collectives
func.func @collectives(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  // CHECK: %[[G:.*]] = comm.all_gather %arg0 over @mesh {"y"} dim 0 : tensor<1x16xf32> -> tensor<4x16xf32>
  %0 = spmd.all_gather [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  // CHECK: %[[A:.*]] = comm.all_to_all %[[G]] over @mesh {"x"} split 1 concat 0 : tensor<4x16xf32> -> tensor<8x8xf32>
  %1 = spmd.all_to_all [{"x"}: 0->1] %0 out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x16xf32>
  // CHECK: %[[R:.*]] = comm.all_reduce max %[[A]] over @mesh {"y"} : tensor<8x8xf32>
  %2 = spmd.all_reduce max {"y"} %1 in_sharding=<@mesh, [{}, {"x"}], unreduced=max{"y"}> out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x16xf32>
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"y"} : index
  // CHECK: %[[O:.*]] = arith.muli %[[I]], %c2
  // CHECK: %[[S:.*]] = tensor.extract_slice %[[R]][%[[O]], 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
  %3 = spmd.all_slice [{"y"}, {}] %2 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<8x16xf32>
  // CHECK: %[[B:.*]] = comm.all_gather %[[S]] over @mesh {"y"} dim 0 : tensor<2x8xf32> -> tensor<8x8xf32>
  %4 = spmd.all_gather [{"y"}, {}] %3 out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x16xf32>
  // CHECK: return %[[B]] : tensor<8x8xf32>
  return %4 : tensor<8x16xf32>
}

// reduce_scatter along one dimension is the runtime's reduce-scatter;
// replicated_to_unreduced keeps the value on the first device of a group.
// CHECK-LABEL: func @reductions
func.func @reductions(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}], unreduced={"x"}>}) {
  // CHECK: %[[RS:.*]] = comm.reduce_scatter sum %arg0 over @mesh {"y"} dim 0 : tensor<8x16xf32> -> tensor<2x16xf32>
  %0 = spmd.reduce_scatter [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<8x16xf32>
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"x"} : index
  // CHECK: %[[F:.*]] = arith.cmpi eq, %[[I]], %c0
  // CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x16xf32>
  // CHECK: arith.select %[[F]], %[[RS]], %[[Z]] : tensor<2x16xf32>
  %1 = spmd.replicated_to_unreduced {"x"} %0 out_sharding=<@mesh, [{"y"}, {}], unreduced={"x"}> : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// Ops that spell shapes are rebuilt; linalg.index gets its global offset.
// CHECK-LABEL: func @shape_ops
func.func @shape_ops(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<2x4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>}) {
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"x"} : index
  // CHECK: %[[O:.*]] = arith.muli %[[I]], %c4
  // CHECK: linalg.generic
  // CHECK: %[[IX:.*]] = linalg.index 0 : index
  // CHECK: arith.addi %[[IX]], %[[O]] : index
  // CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, 4, 16] : tensor<4x16xf32> into tensor<1x4x16xf32>
  %e = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%arg0 : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>)
      attrs = {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %x = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 4, 16]
      {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}, {}]>]>}
      : tensor<8x16xf32> into tensor<2x4x16xf32>
  return %x : tensor<2x4x16xf32>
}

// A non-splat constant is sliced per device.
// CHECK-LABEL: func @constant
func.func @constant() -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  // CHECK: %[[C:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  // CHECK: %[[I:.*]] = comm.axis_index over @mesh {"x"} : index
  // CHECK: %[[O:.*]] = arith.muli %[[I]], %c2
  // CHECK: tensor.extract_slice %[[C]][%[[O]]] [2] [1] : tensor<4xi32> to tensor<2xi32>
  %c = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} dense<[1, 2, 3, 4]> : tensor<4xi32>
  return %c : tensor<4xi32>
}

// Manual computations are inlined: their operands are already the blocks.
// CHECK-LABEL: func @manual
// CHECK-SAME: (%arg0: tensor<4x4xf32>
func.func @manual(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  // CHECK-NOT: spmd.manual_computation
  // CHECK: %[[N:.*]] = arith.negf %arg0 : tensor<4x4xf32>
  // CHECK: %[[G:.*]] = comm.all_gather %[[N]] over @mesh {"y"} dim 1 : tensor<4x4xf32> -> tensor<4x16xf32>
  // CHECK: return %[[G]] : tensor<4x16xf32>
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>]
      out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"}
      (%l: tensor<4x4xf32>) {
    %n = arith.negf %l : tensor<4x4xf32>
    spmd.return %n : tensor<4x4xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = spmd.all_gather [{}, {"y"}] %0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// Loops carry local types.
// CHECK-LABEL: func @loop
func.func @loop(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %arg0) -> (tensor<4x16xf32>)
  // CHECK: math.exp %{{.*}} : tensor<4x16xf32>
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %arg0) -> tensor<8x16xf32> {
    %e = math.exp %t {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x16xf32>
    scf.yield %e : tensor<8x16xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
  return %r : tensor<8x16xf32>
}

// Zeros are already a valid unreduced value: no select.
// CHECK-LABEL: func @zero_destination
func.func @zero_destination() -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"x"}>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  // CHECK: %[[F:.*]] = linalg.fill
  // CHECK-NOT: arith.select
  // CHECK: return %[[F]]
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %0 = spmd.replicated_to_unreduced {"x"} %f in_sharding=<@mesh, [{}, {}]> out_sharding=<@mesh, [{}, {}], unreduced={"x"}> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A sub-axis "x":(1)2 (the major half of "x" = 4) is the comm group part
// "x":(2)2 (comm names a part by the product of the parts minor to it).
spmd.mesh @four = <["x"=4]>
// CHECK-LABEL: func @sub_axis
func.func @sub_axis(%arg0: tensor<8xf32>) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@four, [{"x":(1)2}]>}) {
  // CHECK: comm.axis_index over @four {"x":(2)2} : index
  // CHECK: tensor.extract_slice %arg0[%{{.*}}] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %0 = spmd.all_slice [{"x":(1)2}] %arg0 in_sharding=<@four, [{}]> out_sharding=<@four, [{"x":(1)2}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// A permute on one mesh sends each device's block to the device that holds
// it under the output's sharding (logical positions over every axis). Of
// the devices holding block 0 (y = 0 and 2 of both "x" rows: 0, 2, 4, 6)
// those that also need it (x = 0: 0, 1, 2, 3) keep it; the others are
// matched in order: 4 -> 1, 6 -> 3. Four blocks move, not six.
// CHECK-LABEL: func @permute
// CHECK: %[[P:.*]] = comm.permute %arg0 over @mesh {"x", "y"} pairs [0 -> 0, 2 -> 2, 4 -> 1, 6 -> 3, 5 -> 5, 7 -> 7, 1 -> 4, 3 -> 6] : tensor<4x16xf32>
// CHECK-NEXT: return %[[P]]
func.func @permute(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y":(2)2}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = spmd.collective_permute %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Structured ops on buffers hold no sharded value: they are left as they
// are, and a linalg.index in their bodies gets no offset.
// CHECK-LABEL: func @buffers
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%arg1 : memref<4x4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg1 : memref<4x4xf32>) outs(%arg2 : memref<4x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.index 0 : index
// CHECK-NEXT: arith.index_cast
// CHECK: return %arg0 : tensor<4x16xf32>
func.func @buffers(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                   %buf: memref<4x4xf32>, %out: memref<4x4xf32>)
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%buf : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%buf : memref<4x4xf32>) outs(%out : memref<4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  }
  return %arg0 : tensor<8x16xf32>
}
