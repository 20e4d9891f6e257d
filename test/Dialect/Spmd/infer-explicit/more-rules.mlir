// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests more of JAX's rules on common ops: integer ops and comparisons,
// tuple entries, casts, contractions with batch and several free dims, max
// reductions, 3-d transposes, broadcasts in the middle, squeezes, slices
// along unsharded dims (rank-reducing too), pads, concat, insert_slice,
// out_sharding on a reshape, full reductions and mixed meshes.

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// Integer elementwise ops and comparisons keep the operands' sharding.
func.func @integer_ops(%a: tensor<8x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<8x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x4xi1> {
  // expected-remark @+1 {{i32[8@x,4@y]}}
  %0 = arith.muli %a, %b : tensor<8x4xi32>
  // expected-remark @+1 {{i32[8@x,4@y]}}
  %1 = arith.subi %0, %a : tensor<8x4xi32>
  // expected-remark @+1 {{bool[8@x,4@y]}}
  %2 = arith.cmpi slt, %1, %b : tensor<8x4xi32>
  return %2 : tensor<8x4xi1>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A dim sharded over two axes stays a tuple entry through elementwise ops.
func.func @tuple_entry(%a: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}, %b: tensor<16x4xf32>) -> tensor<16x4xf32> {
  // expected-remark @+1 {{f32[16@(x,y),4]}}
  %0 = arith.divf %a, %b : tensor<16x4xf32>
  // expected-remark @+1 {{f32[16@(x,y),4]}}
  %1 = math.sqrt %0 : tensor<16x4xf32>
  return %1 : tensor<16x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// Casts between element types keep the sharding.
func.func @casts_keep(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}, {"x"}]>}) -> tensor<8x4xf16> {
  // expected-remark @+1 {{i32[8@z,4@x]}}
  %0 = arith.fptosi %a : tensor<8x4xf32> to tensor<8x4xi32>
  // expected-remark @+1 {{f16[8@z,4@x]}}
  %1 = arith.sitofp %0 : tensor<8x4xi32> to tensor<8x4xf16>
  return %1 : tensor<8x4xf16>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// matmul with both free dims sharded and unsharded contraction.
func.func @matmul_both_free(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<8x8xf32> {
  // expected-remark @+1 {{f32[8,8]}}
  %e = tensor.empty() : tensor<8x8xf32>
  // expected-remark @+1 {{f32[8@x,8@y]}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// batch_matmul: the batch dim's sharding leads the result.
func.func @batch_matmul_batch_sharded(%a: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}, {"x"}, {}]>}, %b: tensor<4x16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}, {}, {"y"}]>}) -> tensor<4x8x8xf32> {
  // expected-remark @+1 {{f32[4,8,8]}}
  %e = tensor.empty() : tensor<4x8x8xf32>
  // expected-remark @+1 {{f32[4@z,8@x,8@y]}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// An einsum-like generic with two free dims on the lhs: free dims in order.
#lhs = affine_map<(b, i, j, k) -> (b, i, k)>
#rhs = affine_map<(b, i, j, k) -> (k, j)>
#out = affine_map<(b, i, j, k) -> (b, i, j)>
func.func @einsum_bik_kj(%a: tensor<2x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}, {"x"}, {}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<2x8x4xf32> {
  // expected-remark @+1 {{f32[2,8,4]}}
  %e = tensor.empty() : tensor<2x8x4xf32>
  // expected-remark @+1 {{f32[2@z,8@x,4@y]}}
  %0 = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x8x16xf32>, tensor<16x4xf32>) outs(%e : tensor<2x8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A max reduction over the sharded dim drops its axis.
func.func @reduce_max(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<4xf32> {
  // expected-remark @+1 {{f32[]}}
  %c = arith.constant 0xFF800000 : f32
  // expected-remark @+1 {{f32[4]}}
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @+1 {{f32[4]}}
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{f32[4@y]}}
  %0 = linalg.reduce ins(%a : tensor<8x4xf32>) outs(%f : tensor<4xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %m = arith.maximumf %in, %init : f32
      linalg.yield %m : f32
    }
  return %0 : tensor<4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A 3-d transpose moves every entry with its dim.
func.func @transpose_3d(%a: tensor<2x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y", "z"}]>}) -> tensor<8x2x4xf32> {
  // expected-remark @+1 {{f32[8,2,4]}}
  %e = tensor.empty() : tensor<8x2x4xf32>
  // expected-remark @+1 {{f32[8@(y,z),2@x,4]}}
  %0 = linalg.transpose ins(%a : tensor<2x4x8xf32>) outs(%e : tensor<8x2x4xf32>) permutation = [2, 0, 1]
  return %0 : tensor<8x2x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// broadcast_in_dim: kept dims keep their entries, new ones are unsharded.
func.func @broadcast_middle(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x3x4xf32> {
  // expected-remark @+1 {{f32[8,3,4]}}
  %e = tensor.empty() : tensor<8x3x4xf32>
  // expected-remark @+1 {{f32[8@x,3,4@y]}}
  %0 = linalg.broadcast ins(%a : tensor<8x4xf32>) outs(%e : tensor<8x3x4xf32>) dimensions = [1]
  return %0 : tensor<8x3x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// squeeze (collapse of a size-1 dim) deletes that dim's entry.
func.func @squeeze(%a: tensor<4x4x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>}) -> tensor<4x4xf32> {
  // expected-remark @+1 {{f32[4@x,4]}}
  %0 = tensor.collapse_shape %a [[0], [1, 2]] : tensor<4x4x1xf32> into tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A slice that keeps the sharded dim whole keeps its sharding.
func.func @slice_other_dim(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@x,4@y]}}
  %0 = tensor.extract_slice %a[0, 2] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A rank-reducing slice is a slice then a squeeze.
func.func @slice_rank_reducing(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@x]}}
  %0 = tensor.extract_slice %a[0, 3] [8, 1] [1, 1] : tensor<8x8xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// pad of an unsharded dim and a divisible padded sharded dim.
func.func @pad_divisible(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<12x6xf32> {
  // expected-remark @+1 {{f32[]}}
  %c = arith.constant 0.0 : f32
  // expected-remark @+1 {{f32[12@x,6]}}
  %0 = tensor.pad %a low[2, 1] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<8x4xf32> to tensor<12x6xf32>
  return %0 : tensor<12x6xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// concat of identically sharded operands.
func.func @concat_same(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<8x8xf32> {
  // expected-remark @+1 {{f32[8,8@x]}}
  %0 = tensor.concat dim(0) %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// insert_slice with matching operand and update shardings.
func.func @insert_slice_same(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %u: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  // expected-remark @+1 {{f32[8@x,8]}}
  %0 = tensor.insert_slice %u into %a[0, 0] [8, 2] [1, 1] : tensor<8x2xf32> into tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A reshape with an out_sharding takes it.
func.func @reshape_given(%a: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<24xf32> {
  // expected-remark @+1 {{f32[24@y]}}
  %0 = tensor.collapse_shape %a [[0, 1]] {spmd.out_sharding = #spmd.sharding<@mesh, [{"y"}]>} : tensor<4x6xf32> into tensor<24xf32>
  return %0 : tensor<24xf32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A scalar-producing full reduction is f32[].
func.func @reduce_to_scalar(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<f32> {
  // expected-remark @+1 {{f32[]}}
  %c = arith.constant 0.0 : f32
  // expected-remark @+1 {{f32[]}}
  %e = tensor.empty() : tensor<f32>
  // expected-remark @+1 {{f32[]}}
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<f32>) -> tensor<f32>
  // expected-remark @+1 {{f32[]}}
  %0 = linalg.reduce ins(%a : tensor<8xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<f32>
}

// -----
spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, explicit]>

// A mixed mesh: only the Explicit axis is part of the type.
spmd.mesh @mixed = <["x"=2, "y"=2], axis_types=[explicit, auto]>
func.func @mixed_mesh_type(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mixed, [{"x"}, {"y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@x,4]}}
  %0 = math.exp %a : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
