// RUN: tessera-opt %s --split-input-file --spmd-annotate-sharding-rules --allow-unregistered-dialect | FileCheck %s

// Tests the sharding rule of every op family that has a model (the registry
// of rules), and that user-written rules are kept.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %m: tensor<8x16xi1>, %s: f32) -> tensor<8x16xf32> {
  // CHECK: arith.addf {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=16}>}
  %0 = arith.addf %x, %y : tensor<8x16xf32>
  // CHECK: arith.cmpf {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=16}>}
  %1 = arith.cmpf olt, %0, %y : tensor<8x16xf32>
  // CHECK: arith.select {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j], [i, j])->([i, j]) {i=8, j=16}>}
  %2 = arith.select %m, %0, %y : tensor<8x16xi1>, tensor<8x16xf32>
  // CHECK: arith.truncf {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=16}>}
  %3 = arith.truncf %2 : tensor<8x16xf32> to tensor<8x16xf16>
  // CHECK: math.exp {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=16}>}
  %4 = math.exp %2 : tensor<8x16xf32>
  // Scalar ops have no rule.
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
  %5 = arith.mulf %s, %s : f32
  // CHECK: tensor.splat {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([])->([i, j]) {i=8, j=16}>}
  %6 = tensor.splat %5 : tensor<8x16xf32>
  return %4 : tensor<8x16xf32>
}

// -----

// Tests that a select with a scalar condition maps the condition to [].
// CHECK-LABEL: func.func @select_scalar_condition
// CHECK: arith.select {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([], [i], [i])->([i]) {i=4}>}
func.func @select_scalar_condition(%c: i1, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.select %c, %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests contractions: batch, free and contracting (reduction) factors.
// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<8x16xf32>,
                        %ba: tensor<2x8x32xf32>, %bb: tensor<2x32x16xf32>, %bc: tensor<2x8x16xf32>,
                        %v: tensor<32xf32>, %vc: tensor<8xf32>) -> () {
  // CHECK: linalg.matmul {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k], [k, j], [i, j])->([i, j]) {i=8, j=16, k=32} reduction={k}>}
  %0 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: linalg.batch_matmul {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, l], [i, l, k], [i, j, k])->([i, j, k]) {i=2, j=8, k=16, l=32} reduction={l}>}
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<2x8x32xf32>, tensor<2x32x16xf32>) outs(%bc : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // CHECK: linalg.matvec {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [j], [i])->([i]) {i=8, j=32} reduction={j}>}
  %2 = linalg.matvec ins(%a, %v : tensor<8x32xf32>, tensor<32xf32>) outs(%vc : tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// Tests a generic contraction written with indexing maps (an einsum).
// CHECK-LABEL: func.func @generic_einsum
// CHECK: linalg.generic {{{.*}}spmd.sharding_rule = #spmd.op_sharding_rule<([i, k], [j, k], [i, j])->([i, j]) {i=4, j=6, k=8} reduction={k}>}
func.func @generic_einsum(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<6x8xf32>) outs(%c : tensor<4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Tests reductions, transposes, broadcasts (a dimension indexed by no loop
// of the input), fills and a size-1 broadcast dimension of a generic.
// CHECK-LABEL: func.func @structured
func.func @structured(%x: tensor<8x16xf32>, %v: tensor<16xf32>, %one: tensor<1x16xf32>, %s: f32) -> () {
  %z = tensor.empty() : tensor<8xf32>
  // CHECK: linalg.reduce {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i])->([i]) {i=8, j=16} reduction={j}>}
  %r = linalg.reduce ins(%x : tensor<8x16xf32>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %q = arith.addf %in, %init : f32
      linalg.yield %q : f32
    }
  %e = tensor.empty() : tensor<16x8xf32>
  // CHECK: linalg.transpose {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([j, i], [i, j])->([i, j]) {i=16, j=8}>}
  %t = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %b0 = tensor.empty() : tensor<8x16xf32>
  // CHECK: linalg.broadcast {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([j], [i, j])->([i, j]) {i=8, j=16}>}
  %b = linalg.broadcast ins(%v : tensor<16xf32>) outs(%b0 : tensor<8x16xf32>) dimensions = [0]
  // CHECK: linalg.fill {spmd.sharding_rule = #spmd.op_sharding_rule<([], [i, j])->([i, j]) {i=8, j=16}>}
  %f = linalg.fill ins(%s : f32) outs(%b0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: linalg.generic {{{.*}}spmd.sharding_rule = #spmd.op_sharding_rule<([k, j], [i, j], [i, j])->([i, j]) {i=8, j=16, k=1}>}
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%one, %x : tensor<1x16xf32>, tensor<8x16xf32>) outs(%b0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %q = arith.addf %a, %c : f32
    linalg.yield %q : f32
  } -> tensor<8x16xf32>
  return
}

// -----

// Tests a convolution: output spatial loops are permutation factors of the
// input's spatial dimensions, the window loops reduction factors.
// CHECK-LABEL: func.func @convolution
// CHECK: linalg.conv_2d_nhwc_hwcf {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, o], [m, n, o, l], [i, j, k, l])->([i, j, k, l]) {i=1, j=8, k=8, l=4, m=3, n=3, o=3} reduction={m, n, o} permutation={j, k}>}
func.func @convolution(%in: tensor<1x10x10x3xf32>, %k: tensor<3x3x3x4xf32>, %o: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%in, %k : tensor<1x10x10x3xf32>, tensor<3x3x3x4xf32>) outs(%o : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// Tests reshapes: compound factors.
// CHECK-LABEL: func.func @reshapes
func.func @reshapes(%x: tensor<8x16xf32>, %y: tensor<6x4xf32>) -> () {
  // CHECK: tensor.collapse_shape {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([ij]) {i=8, j=16}>}
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  // CHECK: tensor.expand_shape {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([ijk])->([i, j, k]) {i=2, j=4, k=16}>}
  %1 = tensor.expand_shape %0 [[0, 1, 2]] output_shape [2, 4, 16] : tensor<128xf32> into tensor<2x4x16xf32>
  // CHECK: tensor.expand_shape {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j, k]) {i=8, j=16, k=1}>}
  %2 = tensor.expand_shape %x [[0], [1, 2]] output_shape [8, 16, 1] : tensor<8x16xf32> into tensor<8x16x1xf32>
  %s1 = arith.constant dense<[3, 8]> : tensor<2xi64>
  // CHECK: tensor.reshape {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([ij, k], [l])->([i, jk]) {i=3, j=2, k=4, l=1}>}
  %3 = tensor.reshape %y(%s1) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<3x8xf32>
  // A reshape the factor walk cannot describe has no rule.
  %s2 = arith.constant dense<[4, 6]> : tensor<2xi64>
  // CHECK: tensor.reshape %{{.*}}(%{{.*}}) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  %4 = tensor.reshape %y(%s2) : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return
}

// -----

// Tests concat, slices and pads.
// CHECK-LABEL: func.func @concat_slice_pad
func.func @concat_slice_pad(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>, %s: f32) -> () {
  // CHECK: tensor.concat {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=16, j=16} need_replication={i}>}
  %0 = tensor.concat dim(0) %x, %y : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  // CHECK: tensor.extract_slice {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=4} permutation={j}>}
  %1 = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] : tensor<8x16xf32> to tensor<8x4xf32>
  // CHECK: tensor.extract_slice {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=4, j=16} need_replication={i}>}
  %2 = tensor.extract_slice %x[0, 0] [4, 16] [2, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  // A rank-reducing slice: the dropped dimension belongs to the source only.
  // CHECK: tensor.extract_slice {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([j]) {i=8, j=16} permutation={i}>}
  %3 = tensor.extract_slice %x[3, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  // CHECK: tensor.insert_slice {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k], [i, j])->([i, j]) {i=8, j=16, k=1} need_replication={j}>}
  %4 = tensor.insert_slice %1 into %y[0, 2] [8, 4] [1, 1] : tensor<8x4xf32> into tensor<8x16xf32>
  // CHECK: tensor.pad
  // CHECK: } {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=18} permutation={j}>}
  %5 = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%p: index, %q: index):
    tensor.yield %s : f32
  } : tensor<8x16xf32> to tensor<8x18xf32>
  return
}

// -----

// Tests that dynamic shapes and creation ops get no rule.
// CHECK-LABEL: func.func @no_rule
func.func @no_rule(%x: tensor<?x16xf32>, %y: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<?x16xf32>
  %0 = arith.addf %x, %y : tensor<?x16xf32>
  // CHECK: tensor.empty() : tensor<4xf32>
  %1 = tensor.empty() : tensor<4xf32>
  // CHECK: arith.constant dense<1.000000e+00> : tensor<4xf32>
  %2 = arith.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// Tests that a user-written rule is kept (it overrides the model), also on
// an op of a dialect without a model, and that the spmd identity ops have
// pointwise rules.
spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @overrides
func.func @overrides(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> () {
  // CHECK: arith.addf {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=16} need_replication={j}, custom>}
  %0 = arith.addf %x, %y {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=16} need_replication={j}, custom>} : tensor<8x16xf32>
  // CHECK: "my.op"{{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([j, i]) {i=8, j=16}>}
  %1 = "my.op"(%x) {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([j, i]) {i=8, j=16}>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  // CHECK: spmd.sharding_constraint {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=8, j=16}>}
  %2 = spmd.sharding_constraint %x <@mesh, [{"x"}, {}]> : tensor<8x16xf32>
  return
}

// -----

// Dynamic dimensions (shape-polymorphic programs) get factors of size `?`;
// an op whose values disagree on which dimensions are dynamic gets no rule.
// CHECK-LABEL: func.func @dynamic_dims
func.func @dynamic_dims(%a: tensor<?x32xf32>, %b: tensor<32x16xf32>, %c: tensor<?x16xf32>, %d: tensor<8x16xf32>) -> (tensor<?x32xf32>, tensor<?x16xf32>, tensor<8x16xf32>) {
  // CHECK: arith.negf {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j])->([i, j]) {i=?, j=32}>}
  %0 = arith.negf %a : tensor<?x32xf32>
  // CHECK: linalg.matmul {spmd.sharding_rule = #spmd.op_sharding_rule<([i, k], [k, j], [i, j])->([i, j]) {i=?, j=16, k=32} reduction={k}>}
  %1 = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x16xf32>) outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  // CHECK: linalg.matmul ins
  // CHECK-NOT: spmd.sharding_rule
  // CHECK-SAME: outs
  %2 = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x16xf32>) outs(%d : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0, %1, %2 : tensor<?x32xf32>, tensor<?x16xf32>, tensor<8x16xf32>
}

// -----

// tensor.gather: the indices' batch dims lead the result, the source's other
// dims follow; gathered dims (size 1, or dropped) and the coordinate dim
// need replication. tensor.scatter: the destination's dims flow to the
// result; scattered dims, the updates' batch dims and the coordinate dim
// need replication.
// CHECK-LABEL: func.func @gather_scatter
func.func @gather_scatter(%src: tensor<4x5x6xf32>, %idx: tensor<2x3x2xindex>, %upd: tensor<2x3x4x1x1xf32>) -> (tensor<2x3x4x1x1xf32>, tensor<2x3x4xf32>, tensor<4x5x6xf32>) {
  // CHECK: tensor.gather {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([k, l, n], [i, j, p])->([i, j, k, m, o]) {i=2, j=3, k=4, l=5, m=1, n=6, o=1, p=2} need_replication={l, n, p}>}
  %0 = tensor.gather %src[%idx] gather_dims([1, 2]) : (tensor<4x5x6xf32>, tensor<2x3x2xindex>) -> tensor<2x3x4x1x1xf32>
  // CHECK: tensor.gather {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([k, l, m], [i, j, n])->([i, j, k]) {i=2, j=3, k=4, l=5, m=6, n=2} need_replication={l, m, n}>}
  %1 = tensor.gather %src[%idx] gather_dims([1, 2]) unique : (tensor<4x5x6xf32>, tensor<2x3x2xindex>) -> tensor<2x3x4xf32>
  // CHECK: tensor.scatter {{.*}} {spmd.sharding_rule = #spmd.op_sharding_rule<([i, j, k, m, o], [k, l, n], [i, j, p])->([k, l, n]) {i=2, j=3, k=4, l=5, m=1, n=6, o=1, p=2} need_replication={i, j, l, n, p}>}
  %2 = tensor.scatter %upd into %src[%idx] scatter_dims([1, 2]) unique : (tensor<2x3x4x1x1xf32>, tensor<4x5x6xf32>, tensor<2x3x2xindex>) -> tensor<4x5x6xf32>
  return %0, %1, %2 : tensor<2x3x4x1x1xf32>, tensor<2x3x4xf32>, tensor<4x5x6xf32>
}
