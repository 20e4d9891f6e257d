// RUN: tessera-opt %s --split-input-file --poly-infer | FileCheck %s
// RUN: not tessera-opt %s --split-input-file --poly-infer=jax-exact=true 2>&1 | FileCheck %s --check-prefix=EXACT

// With jax-exact, @slice_mod is the only case that fails.
// EXACT-NOT: error:

// Tests that elementwise ops keep the shape, and that argument specs are
// resolved (placeholders) and normalized (JAX's in_avals).
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}, %[[Y:.*]]: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
// CHECK-SAME: -> (tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
// CHECK: %[[ADD:.*]] = arith.addf %[[X]], %[[Y]] {poly.shape = #poly.shape<"b, 4">}
// CHECK: %[[EXP:.*]] = math.exp %[[ADD]] {poly.shape = #poly.shape<"b, 4">}
// CHECK: %[[CMP:.*]] = arith.cmpf olt, %[[EXP]], %[[Y]] {poly.shape = #poly.shape<"b, 4">}
// CHECK: arith.select %[[CMP]], %[[EXP]], %[[Y]] {poly.shape = #poly.shape<"b, 4">}
func.func @elementwise(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"(b, _)">},
                       %y: tensor<?x4xf32> {poly.shape = #poly.shape<"b + 0, 4">}) -> tensor<?x4xf32> {
  %0 = arith.addf %x, %y : tensor<?x4xf32>
  %1 = math.exp %0 : tensor<?x4xf32>
  %2 = arith.cmpf olt, %1, %y : tensor<?x4xf32>
  %3 = arith.select %2, %1, %y : tensor<?x4xi1>, tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// -----

// Tests dimension arithmetic on index values: Python's floor division and
// modulo, max/min (also written as cmpi + select), casts. A constant result
// (mod(3*c + 2, 3) = 2) is not annotated.
// CHECK-LABEL: func.func @index_arithmetic
// CHECK: %[[B:.*]] = tensor.dim {poly.value = #poly.expr<"b">}
// CHECK: %[[D:.*]] = tensor.dim {poly.value = #poly.expr<"3*c + 2">}
// CHECK: %[[SUM:.*]] = arith.addi %[[B]], %[[D]] {poly.value = #poly.expr<"3*c + b + 2">}
// CHECK: arith.subi %[[D]], %{{.*}} {poly.value = #poly.expr<"3*c - 1">}
// CHECK: arith.divsi %[[D]], %{{.*}} {poly.value = #poly.expr<"c">}
// CHECK: arith.remsi %[[D]], %{{[^ ]*}} : index
// CHECK: arith.floordivsi %[[B]], %{{.*}} {poly.value = #poly.expr<"floordiv(b, 3)">}
// CHECK: arith.ceildivsi %[[B]], %{{.*}} {poly.value = #poly.expr<"- floordiv(- b, 3)">}
// CHECK: arith.maxsi %[[B]], %[[D]] {poly.value = #poly.expr<"max(b, 3*c + 2)">}
// CHECK: %[[GT:.*]] = arith.cmpi sgt, %[[B]], %[[D]] : index
// CHECK: arith.select %[[GT]], %[[D]], %[[B]] {poly.value = #poly.expr<"min(3*c + 2, b)">}
// CHECK: arith.index_cast %[[SUM]] {poly.value = #poly.expr<"3*c + b + 2">} : index to i64
func.func @index_arithmetic(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b, 3*c + 2">}) -> (index, index, index, index, index, index, index, index, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %b = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  %sum = arith.addi %b, %d : index
  %diff = arith.subi %d, %c3 : index
  %q = arith.divsi %d, %c3 : index
  %r = arith.remsi %d, %c3 : index
  %f = arith.floordivsi %b, %c3 : index
  %ce = arith.ceildivsi %b, %c3 : index
  %mx = arith.maxsi %b, %d : index
  %gt = arith.cmpi sgt, %b, %d : index
  %mn = arith.select %gt, %d, %b : index
  %i = arith.index_cast %sum : index to i64
  return %sum, %diff, %q, %r, %f, %ce, %mx, %mn, %i : index, index, index, index, index, index, index, index, i64
}

// -----

// Tests tensor.empty, from_elements/extract, rank, cast and splat.
// CHECK-LABEL: func.func @tensor_values
// CHECK-SAME: -> (tensor<?x?xf32> {poly.shape = #poly.shape<"b, b">}, index, tensor<?xf32> {poly.shape = #poly.shape<"b">})
// CHECK: %[[B:.*]] = tensor.dim {poly.value = #poly.expr<"b">}
// CHECK: tensor.empty(%[[B]], %{{.*}}) {poly.shape = #poly.shape<"b, b">}
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}] {poly.value = #poly.expr<"b">}
// CHECK: tensor.rank %{{[^ ]*}} : tensor<?x4xf32>
// CHECK: tensor.cast %{{.*}} {poly.shape = #poly.shape<"b, 4">} : tensor<?x4xf32> to tensor<?x?xf32>
// CHECK: tensor.splat %{{.*}}[%[[V]]] {poly.shape = #poly.shape<"b">}
func.func @tensor_values(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> (tensor<?x?xf32>, index, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x4xf32>
  %b1 = arith.muli %b, %c1 : index
  %e = tensor.empty(%b, %b1) : tensor<?x?xf32>
  %shape = tensor.from_elements %b, %c1 : tensor<2xindex>
  %v = tensor.extract %shape[%c0] : tensor<2xindex>
  %r = tensor.rank %x : tensor<?x4xf32>
  %cast = tensor.cast %x : tensor<?x4xf32> to tensor<?x?xf32>
  %one = arith.constant 1.0 : f32
  %s = tensor.splat %one[%v] : tensor<?xf32>
  return %e, %r, %s : tensor<?x?xf32>, index, tensor<?xf32>
}

// -----

// Tests slices: JAX's bound checks pass (b + 15 >= 16, 2*c >= 2*c), strides,
// and a rank-reducing slice.
// CHECK-LABEL: func.func @slices
// CHECK-SAME: -> (tensor<16xf32>, tensor<?x?xf32> {poly.shape = #poly.shape<"2, c">})
// CHECK: %[[HALF:.*]] = arith.divsi %{{.*}} {poly.value = #poly.expr<"c">}
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [16, 1] [1, 1] : tensor<?x?xf32> to tensor<16xf32>
// CHECK: tensor.extract_slice %{{.*}}[1, 1] [%{{.*}}, %[[HALF]]] [1, 2] {poly.shape = #poly.shape<"2, c">}
func.func @slices(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b + 15, 2*c">}) -> (tensor<16xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c1 : tensor<?x?xf32>
  %half = arith.divsi %d, %c2 : index
  %a = tensor.extract_slice %x[0, 0] [16, 1] [1, 1] : tensor<?x?xf32> to tensor<16xf32>
  %s = tensor.extract_slice %x[1, 1] [%c2, %half] [1, 2] : tensor<?x?xf32> to tensor<?x?xf32>
  return %a, %s : tensor<16xf32>, tensor<?x?xf32>
}

// -----

// Tests insert_slice (dynamic_update_slice), pad and concat.
// CHECK-LABEL: func.func @insert_pad_concat
// CHECK-SAME: -> (tensor<?xf32> {poly.shape = #poly.shape<"2*b">}, tensor<?xf32> {poly.shape = #poly.shape<"2*b + 2">}, tensor<?xf32> {poly.shape = #poly.shape<"4*b">})
// CHECK: tensor.insert_slice {{.*}} {poly.shape = #poly.shape<"2*b">}
// CHECK: tensor.pad
// CHECK: } {poly.shape = #poly.shape<"2*b + 2">}
// CHECK: tensor.concat dim(0) {{.*}} {poly.shape = #poly.shape<"4*b">}
func.func @insert_pad_concat(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"2*b">}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %i = tensor.insert_slice %x into %y[%b] [%b] [1] : tensor<?xf32> into tensor<?xf32>
  %f = arith.constant 0.0 : f32
  %p = tensor.pad %x low[2] high[%b] {
  ^bb0(%arg: index):
    tensor.yield %f : f32
  } : tensor<?xf32> to tensor<?xf32>
  %c = tensor.concat dim(0) %x, %y, %x : (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %i, %p, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Tests that a -1 in a reshape's shape is inferred as jnp.reshape does, and
// replaced by a run-time computation of the symbolic size (4*b / 2).
// CHECK-LABEL: func.func @reshape_minus_one
// CHECK-SAME: -> (tensor<?x2xf32> {poly.shape = #poly.shape<"2*b, 2">})
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[B:.*]] = tensor.dim {poly.value = #poly.expr<"b">}
// CHECK: %[[TOTAL:.*]] = arith.muli %[[B]], %{{.*}} {poly.value = #poly.expr<"4*b">}
// CHECK: %[[SIZE:.*]] = arith.divsi %[[TOTAL]], %{{.*}} {poly.value = #poly.expr<"2*b">}
// CHECK: %[[CAST:.*]] = arith.index_cast %[[SIZE]] {poly.value = #poly.expr<"2*b">} : index to i64
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[CAST]], %[[TWO]] : tensor<2xi64>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]]) {poly.shape = #poly.shape<"2*b, 2">}
func.func @reshape_minus_one(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> tensor<?x2xf32> {
  %s = arith.constant dense<[-1, 2]> : tensor<2xi64>
  %r = tensor.reshape %x(%s) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

// Tests that a -1 whose inferred size is a constant becomes that constant.
// CHECK-LABEL: func.func @reshape_minus_one_constant
// CHECK-SAME: -> (tensor<?x?x2xf32> {poly.shape = #poly.shape<"b, 4, 2">})
// CHECK: %[[B:.*]] = tensor.extract %{{.*}}[%{{.*}}] {poly.value = #poly.expr<"b">} : tensor<3xindex>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[B]], %[[C4]], %[[C2]] : tensor<3xindex>
// CHECK: tensor.reshape %{{.*}}(%[[SHAPE]]) {poly.shape = #poly.shape<"b, 4, 2">}
func.func @reshape_minus_one_constant(%x: tensor<?x2x4xf32> {poly.shape = #poly.shape<"b, 2, 4">}) -> tensor<?x?x2xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x2x4xf32>
  %m1 = arith.constant -1 : index
  %c2 = arith.constant 2 : index
  %s = tensor.from_elements %b, %m1, %c2 : tensor<3xindex>
  %r = tensor.reshape %x(%s) : (tensor<?x2x4xf32>, tensor<3xindex>) -> tensor<?x?x2xf32>
  return %r : tensor<?x?x2xf32>
}

// -----

// Tests collapse_shape and expand_shape.
// CHECK-LABEL: func.func @collapse_expand
// CHECK-SAME: -> (tensor<?x2x?xf32> {poly.shape = #poly.shape<"2*b, 2, c">})
// CHECK: tensor.collapse_shape {{.*}} {poly.shape = #poly.shape<"4*b, c">}
// CHECK: tensor.expand_shape {{.*}} {poly.shape = #poly.shape<"2*b, 2, c">}
func.func @collapse_expand(%x: tensor<?x4x?xf32> {poly.shape = #poly.shape<"b, 4, c">}) -> tensor<?x2x?xf32> {
  %0 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x4x?xf32> into tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %0, %c0 : tensor<?x?xf32>
  %h = arith.divsi %n, %c2 : index
  %c = tensor.dim %0, %c1 : tensor<?x?xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [%h, 2, %c] : tensor<?x?xf32> into tensor<?x2x?xf32>
  return %1 : tensor<?x2x?xf32>
}

// -----

// Tests that an expand_shape size that is not known symbolically (it comes
// from data) is inferred from its group, as a reshape's -1.
// CHECK-LABEL: func.func @expand_inferred_size
// CHECK: tensor.expand_shape {{.*}} {poly.shape = #poly.shape<"b, 3">}
func.func @expand_inferred_size(%x: tensor<?xf32> {poly.shape = #poly.shape<"3*b">}, %n: tensor<index>) -> tensor<?x3xf32> {
  %d = tensor.extract %n[] : tensor<index>
  %0 = tensor.expand_shape %x [[0, 1]] output_shape [%d, 3] : tensor<?xf32> into tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests the structured ops: fill, matmul (dot_general), a generic elementwise
// op, reduce, transpose and broadcast.
// CHECK-LABEL: func.func @linalg_ops
// CHECK-SAME: -> (tensor<?x?xf32> {poly.shape = #poly.shape<"m, n">}, tensor<?xf32> {poly.shape = #poly.shape<"m">}, tensor<?x?xf32> {poly.shape = #poly.shape<"n, m">}, tensor<?x?x3xf32> {poly.shape = #poly.shape<"m, n, 3">})
// CHECK: linalg.fill {poly.shape = #poly.shape<"m, n">}
// CHECK: linalg.matmul {poly.shape = #poly.shape<"m, n">}
// CHECK: linalg.generic {{.*}} attrs = {poly.shape = #poly.shape<"m, n">}
// CHECK: linalg.reduce {{.*}} {poly.shape = #poly.shape<"m">}
// CHECK: linalg.transpose {{.*}} {poly.shape = #poly.shape<"n, m">}
// CHECK: linalg.broadcast {{.*}} {poly.shape = #poly.shape<"m, n, 3">}
func.func @linalg_ops(%a: tensor<?x4xf32> {poly.shape = #poly.shape<"m, 4">},
                      %b: tensor<4x?xf32> {poly.shape = #poly.shape<"4, n">}) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x4xf32>
  %n = tensor.dim %b, %c1 : tensor<4x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x?xf32>) outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  %re = tensor.empty(%m) : tensor<?xf32>
  %red = linalg.reduce ins(%g : tensor<?x?xf32>) outs(%re : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %te = tensor.empty(%n, %m) : tensor<?x?xf32>
  %tr = linalg.transpose ins(%g : tensor<?x?xf32>) outs(%te : tensor<?x?xf32>) permutation = [1, 0]
  %be = tensor.empty(%m, %n) : tensor<?x?x3xf32>
  %br = linalg.broadcast ins(%g : tensor<?x?xf32>) outs(%be : tensor<?x?x3xf32>) dimensions = [2]
  return %mm, %red, %tr, %br : tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?x?x3xf32>
}

// -----

// Tests a batched contraction and a convolution, whose input map combines
// loops (`d1 + d3`): n + 2 >= (n - 1) + (3 - 1) + 1.
// CHECK-LABEL: func.func @contraction_and_convolution
// CHECK-SAME: -> (tensor<?x?x8xf32> {poly.shape = #poly.shape<"b, m, 8">}, tensor<1x?x8xf32> {poly.shape = #poly.shape<"1, n, 8">})
// CHECK: linalg.batch_matmul {poly.shape = #poly.shape<"b, m, 8">}
// CHECK: linalg.conv_1d_nwc_wcf {{.*}}poly.shape = #poly.shape<"1, n, 8">
func.func @contraction_and_convolution(%a: tensor<?x?x4xf32> {poly.shape = #poly.shape<"b, m, 4">},
                                       %x: tensor<1x?x4xf32> {poly.shape = #poly.shape<"1, n + 2, 4">},
                                       %k: tensor<3x4x8xf32>) -> (tensor<?x?x8xf32>, tensor<1x?x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %a, %c0 : tensor<?x?x4xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x4xf32>
  %w = tensor.empty(%b) : tensor<?x4x8xf32>
  %e = tensor.empty(%b, %m) : tensor<?x?x8xf32>
  %bm = linalg.batch_matmul ins(%a, %w : tensor<?x?x4xf32>, tensor<?x4x8xf32>) outs(%e : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %xw = tensor.dim %x, %c1 : tensor<1x?x4xf32>
  %c2 = arith.constant 2 : index
  %ow = arith.subi %xw, %c2 : index
  %ce = tensor.empty(%ow) : tensor<1x?x8xf32>
  %conv = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %k : tensor<1x?x4xf32>, tensor<3x4x8xf32>) outs(%ce : tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %bm, %conv : tensor<?x?x8xf32>, tensor<1x?x8xf32>
}

// -----

// Tests that loops keep their carry's shape and an if merges equal branches.
// CHECK-LABEL: func.func @control_flow
// CHECK: scf.for
// CHECK: math.exp %{{.*}} {poly.shape = #poly.shape<"b, 4">}
// CHECK: } {poly.shape = #poly.shape<"b, 4">}
// CHECK: scf.while
// CHECK: math.tanh %{{.*}} {poly.shape = #poly.shape<"b, 4">}
// CHECK: } attributes {poly.shape = #poly.shape<"b, 4">}
// CHECK: scf.if
// CHECK: math.sin %{{.*}} {poly.shape = #poly.shape<"b, 4">}
// CHECK: } {poly.shape = #poly.shape<"b, 4">}
func.func @control_flow(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}, %n: index, %p: i1) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<?x4xf32>) {
    %e = math.exp %acc : tensor<?x4xf32>
    scf.yield %e : tensor<?x4xf32>
  }
  %w = scf.while (%a = %f) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
    scf.condition(%p) %a : tensor<?x4xf32>
  } do {
  ^bb0(%a: tensor<?x4xf32>):
    %t = math.tanh %a : tensor<?x4xf32>
    scf.yield %t : tensor<?x4xf32>
  }
  %i = scf.if %p -> tensor<?x4xf32> {
    scf.yield %w : tensor<?x4xf32>
  } else {
    %s = math.sin %x : tensor<?x4xf32>
    scf.yield %s : tensor<?x4xf32>
  }
  return %f, %w, %i : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Tests index_switch and execute_region.
// CHECK-LABEL: func.func @switch_and_region
// CHECK: scf.index_switch %{{.*}} {poly.shape = #poly.shape<"b">}
// CHECK: tensor.concat dim(0) {{.*}} {poly.shape = #poly.shape<"2*b">}
// CHECK: } {poly.shape = #poly.shape<"2*b">}
func.func @switch_and_region(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %k: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %s = scf.index_switch %k -> tensor<?xf32>
  case 0 {
    %e = math.exp %x : tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  default {
    scf.yield %x : tensor<?xf32>
  }
  %r = scf.execute_region -> tensor<?xf32> {
    %c = tensor.concat dim(0) %s, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %c : tensor<?xf32>
  }
  return %s, %r : tensor<?xf32>, tensor<?xf32>
}

// -----

// Tests nested exports: a call solves the callee's variables from the
// caller's shapes (a = 2*c) and instantiates its result shape; a static
// caller gets constants.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: -> (tensor<?x4xf32> {poly.shape = #poly.shape<"2*a, 4">})
// CHECK-LABEL: func.func @caller
// CHECK-SAME: -> (tensor<?x4xf32> {poly.shape = #poly.shape<"4*c, 4">})
// CHECK: call @callee(%{{.*}}) {poly.shape = #poly.shape<"4*c, 4">}
// CHECK-LABEL: func.func @caller_of_declaration
// CHECK: call @declared(%{{.*}}) {poly.shape = #poly.shape<"2*c + 1">}
// CHECK-LABEL: func.func @static_caller
// CHECK: call @callee(%{{.*}}) {poly.shape = #poly.shape<"12, 4">}
func.func @callee(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"a, 4">}) -> tensor<?x4xf32> {
  %0 = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @caller(%y: tensor<?x4xf32> {poly.shape = #poly.shape<"2*c, 4">}) -> tensor<?x4xf32> {
  %0 = func.call @callee(%y) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func private @declared(%x: tensor<?xf32> {poly.shape = #poly.shape<"2*a">}) -> (tensor<?xf32> {poly.shape = #poly.shape<"a + 1">})
func.func @caller_of_declaration(%y: tensor<?xf32> {poly.shape = #poly.shape<"4*c">}) -> tensor<?xf32> {
  %0 = func.call @declared(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @static_caller(%z: tensor<6x4xf32>) -> tensor<?x4xf32> {
  %c = tensor.cast %z : tensor<6x4xf32> to tensor<?x4xf32>
  %0 = func.call @callee(%c) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Tests that a constraint proves a slice's bound and simplifies max(b, 8).
// CHECK-LABEL: func.func @constrained_slice
// CHECK: arith.maxsi %{{.*}} {poly.value = #poly.expr<"b">}
// CHECK: tensor.extract_slice %{{.*}}[0] [16] [1] : tensor<?xf32> to tensor<16xf32>
func.func @constrained_slice(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> (tensor<16xf32>, index)
    attributes {poly.constraints = ["b >= 16"]} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %m = arith.maxsi %b, %c8 : index
  %s = tensor.extract_slice %x[0] [16] [1] : tensor<?xf32> to tensor<16xf32>
  return %s, %m : tensor<16xf32>, index
}

// -----

// Tests a slice that needs `b >= mod(b, 3)`: Tessera proves it by default,
// JAX's own procedure (jax-exact) finds it inconclusive.
// CHECK-LABEL: func.func @slice_mod
// CHECK-SAME: -> (tensor<?xf32> {poly.shape = #poly.shape<"mod(b, 3)">})
// CHECK: tensor.extract_slice {{.*}} {poly.shape = #poly.shape<"mod(b, 3)">}
// EXACT: error: 'tensor.extract_slice' op Symbolic dimension comparison 'b' >= 'mod(b, 3)' is inconclusive.
// EXACT-NOT: error:
func.func @slice_mod(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %m = arith.remsi %b, %c3 : index
  %s = tensor.extract_slice %x[0] [%m] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Tests that a declared result shape that holds is kept.
// CHECK-LABEL: func.func @declared_result
// CHECK-SAME: -> (tensor<?xf32> {poly.shape = #poly.shape<"2*b">})
func.func @declared_result(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    -> (tensor<?xf32> {poly.shape = #poly.shape<"2*b">}) {
  %0 = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a function without poly annotations is left alone, even with
// dynamic shapes and ops without a symbolic shape rule.
// CHECK-LABEL: func.func @negative_not_polymorphic
// CHECK-NOT: poly.
// CHECK: return
func.func @negative_not_polymorphic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = math.exp %x : tensor<?xf32>
  %1 = bufferization.alloc_tensor() copy(%0) : tensor<?xf32>
  return %1 : tensor<?xf32>
}
