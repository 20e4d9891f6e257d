// RUN: tessera-opt %s --split-input-file --verify-roundtrip | FileCheck %s
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | tessera-opt --split-input-file | FileCheck %s

// Round-trips every comm op and form through the custom and the generic
// syntax.

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// Tests that all_reduce prints each reduction kind and its axes.
// CHECK-LABEL: func.func @all_reduce_kinds
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4xi32>)
func.func @all_reduce_kinds(%x: tensor<4x8xf32>, %i: tensor<4xi32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xi32>) {
  // CHECK: %[[S:.*]] = comm.all_reduce sum %[[X]] over @mesh {"x", "y"} : tensor<4x8xf32>
  %0 = comm.all_reduce sum %x over @mesh {"x", "y"} : tensor<4x8xf32>
  // CHECK: comm.all_reduce max %[[S]] over @mesh {"y"} : tensor<4x8xf32>
  %1 = comm.all_reduce max %0 over @mesh {"y"} : tensor<4x8xf32>
  // CHECK: comm.all_reduce min %{{.*}} over @mesh {"x"} : tensor<4x8xf32>
  %2 = comm.all_reduce min %1 over @mesh {"x"} : tensor<4x8xf32>
  // CHECK: comm.all_reduce prod %[[I]] over @mesh {"y", "x"} : tensor<4xi32>
  %3 = comm.all_reduce prod %i over @mesh {"y", "x"} : tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xi32>
}

// GENERIC-LABEL: sym_name = "all_reduce_kinds"
// GENERIC: "comm.all_reduce"(%{{.*}}) <{axes = #spmd.axis_ref_list<{"x", "y"}>, kind = #comm.reduction<sum>, mesh = @mesh}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
// GENERIC: kind = #comm.reduction<max>
// GENERIC: kind = #comm.reduction<min>
// GENERIC: kind = #comm.reduction<prod>

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that all_reduce accepts scalars (rank 0), dynamic shapes, sub-axes,
// an empty axis list, and the element types each kind allows.
// CHECK-LABEL: func.func @all_reduce_forms
func.func @all_reduce_forms(%s: tensor<f32>, %d: tensor<?x3xbf16>, %b: tensor<4xi1>, %c: tensor<2xcomplex<f32>>, %n: tensor<2xindex>, %u: tensor<4xui32>, %q: tensor<4xsi8>) {
  // CHECK: comm.all_reduce sum %{{.*}} over @mesh {"x"} : tensor<f32>
  %0 = comm.all_reduce sum %s over @mesh {"x"} : tensor<f32>
  // CHECK: comm.all_reduce sum %{{.*}} over @mesh {"y":(1)2} : tensor<?x3xbf16>
  %1 = comm.all_reduce sum %d over @mesh {"y":(1)2} : tensor<?x3xbf16>
  // CHECK: comm.all_reduce max %{{.*}} over @mesh {"y":(2)2, "x"} : tensor<4xi1>
  %2 = comm.all_reduce max %b over @mesh {"y":(2)2, "x"} : tensor<4xi1>
  // CHECK: comm.all_reduce min %{{.*}} over @mesh {"x"} : tensor<4xi1>
  %3 = comm.all_reduce min %b over @mesh {"x"} : tensor<4xi1>
  // CHECK: comm.all_reduce prod %{{.*}} over @mesh {"x"} : tensor<2xcomplex<f32>>
  %4 = comm.all_reduce prod %c over @mesh {"x"} : tensor<2xcomplex<f32>>
  // CHECK: comm.all_reduce sum %{{.*}} over @mesh {} : tensor<2xindex>
  %5 = comm.all_reduce sum %n over @mesh {} : tensor<2xindex>
  // CHECK: comm.all_reduce max %{{.*}} over @mesh {"x"} : tensor<4xui32>
  %6 = comm.all_reduce max %u over @mesh {"x"} : tensor<4xui32>
  // CHECK: comm.all_reduce prod %{{.*}} over @mesh {"y"} : tensor<4xsi8>
  %7 = comm.all_reduce prod %q over @mesh {"y"} : tensor<4xsi8>
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests all_gather along each dimension, over several axes and sub-axes,
// with dynamic dimensions.
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[D:.*]]: tensor<?x8xf32>)
func.func @all_gather(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>) {
  // CHECK: comm.all_gather %[[X]] over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %0 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  // CHECK: comm.all_gather %[[X]] over @mesh {"y", "x"} dim 1 : tensor<4x8xf32> -> tensor<4x64xf32>
  %1 = comm.all_gather %x over @mesh {"y", "x"} dim 1 : tensor<4x8xf32> -> tensor<4x64xf32>
  // CHECK: comm.all_gather %[[X]] over @mesh {"y":(2)2} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  %2 = comm.all_gather %x over @mesh {"y":(2)2} dim 0 : tensor<4x8xf32> -> tensor<8x8xf32>
  // CHECK: comm.all_gather %[[D]] over @mesh {"x"} dim 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  %3 = comm.all_gather %d over @mesh {"x"} dim 0 : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: comm.all_gather %[[D]] over @mesh {"x"} dim 0 : tensor<?x8xf32> -> tensor<6x8xf32>
  %4 = comm.all_gather %d over @mesh {"x"} dim 0 : tensor<?x8xf32> -> tensor<6x8xf32>
  // CHECK: comm.all_gather %[[X]] over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<?x?xf32>
  %5 = comm.all_gather %x over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<?x?xf32>
  // The valid part of padded blocks: 30 of the 4 x 8 rows over "x", "y".
  // CHECK: comm.all_gather %[[X]] over @mesh {"x", "y"} dim 0 valid 30 : tensor<4x8xf32> -> tensor<30x8xf32>
  %6 = comm.all_gather %x over @mesh {"x", "y"} dim 0 valid 30 : tensor<4x8xf32> -> tensor<30x8xf32>
  // CHECK: comm.all_gather %[[X]] over @mesh {"x"} dim 1 valid 9 : tensor<4x8xf32> -> tensor<4x9xf32>
  %7 = comm.all_gather %x over @mesh {"x"} dim 1 valid 9 : tensor<4x8xf32> -> tensor<4x9xf32>
  return
}

// GENERIC-LABEL: sym_name = "all_gather"
// GENERIC: "comm.all_gather"(%{{.*}}) <{axes = #spmd.axis_ref_list<{"x"}>, gather_dim = 0 : i64, mesh = @mesh}> : (tensor<4x8xf32>) -> tensor<8x8xf32>

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests reduce_scatter with each kind, along each dimension and with
// dynamic dimensions.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>, %[[D:.*]]: tensor<?x8xi64>)
func.func @reduce_scatter(%x: tensor<8x8xf32>, %d: tensor<?x8xi64>) {
  // CHECK: comm.reduce_scatter sum %[[X]] over @mesh {"x"} dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  %0 = comm.reduce_scatter sum %x over @mesh {"x"} dim 0 : tensor<8x8xf32> -> tensor<4x8xf32>
  // CHECK: comm.reduce_scatter max %[[X]] over @mesh {"x", "y"} dim 1 : tensor<8x8xf32> -> tensor<8x1xf32>
  %1 = comm.reduce_scatter max %x over @mesh {"x", "y"} dim 1 : tensor<8x8xf32> -> tensor<8x1xf32>
  // CHECK: comm.reduce_scatter min %[[D]] over @mesh {"y"} dim 1 : tensor<?x8xi64> -> tensor<?x2xi64>
  %2 = comm.reduce_scatter min %d over @mesh {"y"} dim 1 : tensor<?x8xi64> -> tensor<?x2xi64>
  // CHECK: comm.reduce_scatter prod %[[D]] over @mesh {"y"} dim 0 : tensor<?x8xi64> -> tensor<3x8xi64>
  %3 = comm.reduce_scatter prod %d over @mesh {"y"} dim 0 : tensor<?x8xi64> -> tensor<3x8xi64>
  return
}

// GENERIC-LABEL: sym_name = "reduce_scatter"
// GENERIC: "comm.reduce_scatter"(%{{.*}}) <{axes = #spmd.axis_ref_list<{"x"}>, kind = #comm.reduction<sum>, mesh = @mesh, scatter_dim = 0 : i64}> : (tensor<8x8xf32>) -> tensor<4x8xf32>

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests all_to_all with distinct and equal split/concat dimensions and
// dynamic dimensions.
// CHECK-LABEL: func.func @all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<8x4x3xf32>, %[[D:.*]]: tensor<?x4xf32>)
func.func @all_to_all(%x: tensor<8x4x3xf32>, %d: tensor<?x4xf32>) {
  // CHECK: comm.all_to_all %[[X]] over @mesh {"x"} split 0 concat 1 : tensor<8x4x3xf32> -> tensor<4x8x3xf32>
  %0 = comm.all_to_all %x over @mesh {"x"} split 0 concat 1 : tensor<8x4x3xf32> -> tensor<4x8x3xf32>
  // CHECK: comm.all_to_all %[[X]] over @mesh {"y", "x"} split 0 concat 2 : tensor<8x4x3xf32> -> tensor<1x4x24xf32>
  %1 = comm.all_to_all %x over @mesh {"y", "x"} split 0 concat 2 : tensor<8x4x3xf32> -> tensor<1x4x24xf32>
  // CHECK: comm.all_to_all %[[X]] over @mesh {"y"} split 1 concat 1 : tensor<8x4x3xf32> -> tensor<8x4x3xf32>
  %2 = comm.all_to_all %x over @mesh {"y"} split 1 concat 1 : tensor<8x4x3xf32> -> tensor<8x4x3xf32>
  // CHECK: comm.all_to_all %[[D]] over @mesh {"y"} split 0 concat 1 : tensor<?x4xf32> -> tensor<?x16xf32>
  %3 = comm.all_to_all %d over @mesh {"y"} split 0 concat 1 : tensor<?x4xf32> -> tensor<?x16xf32>
  // CHECK: comm.all_to_all %[[D]] over @mesh {"x"} split 1 concat 0 : tensor<?x4xf32> -> tensor<?x2xf32>
  %4 = comm.all_to_all %d over @mesh {"x"} split 1 concat 0 : tensor<?x4xf32> -> tensor<?x2xf32>
  return
}

// GENERIC-LABEL: sym_name = "all_to_all"
// GENERIC: "comm.all_to_all"(%{{.*}}) <{axes = #spmd.axis_ref_list<{"x"}>, concat_dim = 1 : i64, mesh = @mesh, split_dim = 0 : i64}> : (tensor<8x4x3xf32>) -> tensor<4x8x3xf32>

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests permute with a cyclic shift, a partial permutation, no pairs and
// several axes.
// CHECK-LABEL: func.func @permute
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @permute(%x: tensor<4x8xf32>) {
  // CHECK: comm.permute %[[X]] over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4x8xf32>
  %0 = comm.permute %x over @mesh {"y"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4x8xf32>
  // CHECK: comm.permute %[[X]] over @mesh {"x", "y"} pairs [7 -> 0] : tensor<4x8xf32>
  %1 = comm.permute %x over @mesh {"x", "y"} pairs [7 -> 0] : tensor<4x8xf32>
  // CHECK: comm.permute %[[X]] over @mesh {"x"} pairs [] : tensor<4x8xf32>
  %2 = comm.permute %x over @mesh {"x"} pairs [] : tensor<4x8xf32>
  return
}

// GENERIC-LABEL: sym_name = "permute"
// GENERIC: "comm.permute"(%{{.*}}) <{axes = #spmd.axis_ref_list<{"y"}>, mesh = @mesh, sources = array<i64: 0, 1, 2, 3>, targets = array<i64: 1, 2, 3, 0>}> : (tensor<4x8xf32>) -> tensor<4x8xf32>

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests axis_index and axis_size with each result type and an empty axis
// list.
// CHECK-LABEL: func.func @axis_index_size
func.func @axis_index_size() -> (index, i32, i64, index, i32, i64) {
  // CHECK: comm.axis_index over @mesh {"x", "y"} : index
  %0 = comm.axis_index over @mesh {"x", "y"} : index
  // CHECK: comm.axis_index over @mesh {"y":(1)2} : i32
  %1 = comm.axis_index over @mesh {"y":(1)2} : i32
  // CHECK: comm.axis_index over @mesh {} : i64
  %2 = comm.axis_index over @mesh {} : i64
  // CHECK: comm.axis_size over @mesh {"x", "y"} : index
  %3 = comm.axis_size over @mesh {"x", "y"} : index
  // CHECK: comm.axis_size over @mesh {"y"} : i32
  %4 = comm.axis_size over @mesh {"y"} : i32
  // CHECK: comm.axis_size over @mesh {} : i64
  %5 = comm.axis_size over @mesh {} : i64
  return %0, %1, %2, %3, %4, %5 : index, i32, i64, index, i32, i64
}

// Tests that the two halves of "y" minor first are a valid (unmergeable)
// list: the index (y mod 2) * 2 + y floordiv 2, not that of "y".
// CHECK-LABEL: func.func @sub_axes_minor_first
func.func @sub_axes_minor_first() -> index {
  // CHECK: comm.axis_index over @mesh {"y":(1)2, "y":(2)2} : index
  %0 = comm.axis_index over @mesh {"y":(1)2, "y":(2)2} : index
  return %0 : index
}

// GENERIC-LABEL: sym_name = "axis_index_size"
// GENERIC: "comm.axis_index"() <{axes = #spmd.axis_ref_list<{"x", "y"}>, mesh = @mesh}> : () -> index
// GENERIC: "comm.axis_size"() <{axes = #spmd.axis_ref_list<{"x", "y"}>, mesh = @mesh}> : () -> index

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Tests that discardable attributes survive the custom syntax.
// CHECK-LABEL: func.func @attr_dict
func.func @attr_dict(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: comm.all_reduce sum %{{.*}} over @mesh {"x"} {tag = "grad"} : tensor<4xf32>
  %0 = comm.all_reduce sum %x over @mesh {"x"} {tag = "grad"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @maximal = <[], device_ids=[3]>

// Tests that a maximal mesh (one device, no axes) supports the ops that take
// an empty axis list.
// CHECK-LABEL: func.func @maximal_mesh
func.func @maximal_mesh(%x: tensor<4xf32>) -> (tensor<4xf32>, index) {
  // CHECK: comm.all_reduce sum %{{.*}} over @maximal {} : tensor<4xf32>
  %0 = comm.all_reduce sum %x over @maximal {} : tensor<4xf32>
  // CHECK: comm.axis_index over @maximal {} : index
  %1 = comm.axis_index over @maximal {} : index
  return %0, %1 : tensor<4xf32>, index
}

// -----

// Tests that collectives over a mesh with a custom device order and axis
// types are accepted: the group index is the logical one.
spmd.mesh @ordered = <["a"=3, "b"=2], device_ids=[0, 2, 4, 1, 3, 5], axis_types=[explicit, manual]>

// CHECK-LABEL: func.func @ordered_mesh
func.func @ordered_mesh(%x: tensor<6xf32>) -> tensor<6xf32> {
  // CHECK: comm.permute %{{.*}} over @ordered {"a"} pairs [0 -> 2, 2 -> 0, 1 -> 1] : tensor<6xf32>
  %0 = comm.permute %x over @ordered {"a"} pairs [0 -> 2, 2 -> 0, 1 -> 1] : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// Tests collectives in a shard_map body: every axis, sub-axis or axis bound
// by an enclosing manual computation can be used.
// CHECK-LABEL: func.func @in_manual_computation
func.func @in_manual_computation(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: spmd.manual_computation
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%l: tensor<4x8xf32>) {
    // CHECK: comm.all_reduce sum %{{.*}} over @mesh {"x", "y"} : tensor<4x8xf32>
    %1 = comm.all_reduce sum %l over @mesh {"x", "y"} : tensor<4x8xf32>
    // CHECK: comm.permute %{{.*}} over @mesh {"y":(2)2} pairs [0 -> 1, 1 -> 0] : tensor<4x8xf32>
    %2 = comm.permute %1 over @mesh {"y":(2)2} pairs [0 -> 1, 1 -> 0] : tensor<4x8xf32>
    // CHECK: spmd.manual_computation
    %3 = spmd.manual_computation(%2) in_shardings=[<@mesh, [{}, {"z"}]>] out_shardings=[<@mesh, [{}, {"z"}]>] manual_axes={"z"} (%m: tensor<4x4xf32>) {
      // CHECK: comm.all_gather %{{.*}} over @mesh {"x", "z"} dim 1 : tensor<4x4xf32> -> tensor<4x16xf32>
      %4 = comm.all_gather %m over @mesh {"x", "z"} dim 1 : tensor<4x4xf32> -> tensor<4x16xf32>
      // CHECK: comm.axis_index over @mesh {"z", "y"} : index
      %i = comm.axis_index over @mesh {"z", "y"} : index
      %5 = tensor.extract_slice %4[0, 0] [4, 4] [1, 1] : tensor<4x16xf32> to tensor<4x4xf32>
      spmd.return %5 : tensor<4x4xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32>
    spmd.return %3 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
