// RUN: tessera-opt %s --split-input-file --poly-specialize=bindings=b=3 | FileCheck %s
// RUN: tessera-opt %s --split-input-file '--poly-specialize=bindings="b = 3"' | FileCheck %s

// Every case uses the single dimension variable b (= 3); functions with other
// variables are reached through calls, which solve them per call site.

// Tests elementwise arith/math ops, argument placeholders, and that the
// annotations are gone.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>, %[[Y:.*]]: tensor<3x4xf32>) -> tensor<3x4xf32> {
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[X]], %[[Y]] : tensor<3x4xf32>
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[ADD]] : tensor<3x4xf32>
// CHECK-NEXT: %[[CMP:.*]] = arith.cmpf olt, %[[EXP]], %[[Y]] : tensor<3x4xf32>
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[CMP]], %[[EXP]], %[[Y]] : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK-NEXT: return %[[SEL]] : tensor<3x4xf32>
// CHECK-NOT: poly.
func.func @elementwise(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}, %y: tensor<?x4xf32> {poly.shape = #poly.shape<"b, _">}) -> tensor<?x4xf32> {
  %0 = arith.addf %x, %y : tensor<?x4xf32>
  %1 = math.exp %0 : tensor<?x4xf32>
  %2 = arith.cmpf olt, %1, %y : tensor<?x4xf32>
  %3 = arith.select %2, %1, %y : tensor<?x4xi1>, tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// -----

// Tests linalg: fill, matmul, transpose, reduce, broadcast and a generic,
// with tensor.empty sizes from tensor.dim.
// CHECK-LABEL: func.func @linalg
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[W:.*]]: tensor<4x6xf32>) -> tensor<6x3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x6xf32>
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<3x6xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[W]] : tensor<3x4xf32>, tensor<4x6xf32>) outs(%[[F]] : tensor<3x6xf32>) -> tensor<3x6xf32>
// CHECK-NEXT: %[[T0:.*]] = tensor.empty() : tensor<6x3xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%[[MM]] : tensor<3x6xf32>) outs(%[[T0]] : tensor<6x3xf32>) permutation = [1, 0]
// CHECK-NEXT: %[[R0:.*]] = tensor.empty() : tensor<6xf32>
// CHECK-NEXT: %[[R1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[R0]] : tensor<6xf32>) -> tensor<6xf32>
// CHECK-NEXT: %[[RED:.*]] = linalg.reduce ins(%[[T]] : tensor<6x3xf32>) outs(%[[R1]] : tensor<6xf32>) dimensions = [1]
// CHECK: %[[BC:.*]] = linalg.broadcast ins(%[[RED]] : tensor<6xf32>) outs(%[[T0]] : tensor<6x3xf32>) dimensions = [1]
// CHECK-NEXT: %[[G:.*]] = linalg.generic {{.*}} ins(%[[BC]] : tensor<6x3xf32>) outs(%[[T0]] : tensor<6x3xf32>)
// CHECK: } -> tensor<6x3xf32>
// CHECK-NEXT: return %[[G]] : tensor<6x3xf32>
func.func @linalg(%a: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}, %w: tensor<4x?xf32> {poly.shape = #poly.shape<"4, 2*b">}) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x4xf32>
  %n = tensor.dim %w, %c1 : tensor<4x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x4xf32>, tensor<4x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %t0 = tensor.empty(%n, %m) : tensor<?x?xf32>
  %t = linalg.transpose ins(%mm : tensor<?x?xf32>) outs(%t0 : tensor<?x?xf32>) permutation = [1, 0]
  %r0 = tensor.empty(%n) : tensor<?xf32>
  %r1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<?xf32>) -> tensor<?xf32>
  %red = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%r1 : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %bc = linalg.broadcast ins(%red : tensor<?xf32>) outs(%t0 : tensor<?x?xf32>) dimensions = [1]
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%bc : tensor<?x?xf32>) outs(%t0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %y = arith.mulf %in, %in : f32
      linalg.yield %y : f32
  } -> tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}

// -----

// Tests tensor ops: reshape (its -1 inferred), collapse/expand, slices, pad,
// concat, splat and generate. Sizes computed from the argument become
// constants folded into the ops' static forms (a pad's `high` stays a
// constant operand, as upstream canonicalization leaves it).
// CHECK-LABEL: func.func @tensor_ops
// CHECK-SAME: (%[[X:.*]]: tensor<6x4xf32>, %[[V:.*]]: f32) -> (tensor<12x2xf32>, tensor<24xf32>, tensor<3x2x4xf32>, tensor<7x4xf32>, tensor<9x4xf32>, tensor<6x4xf32>, tensor<3x4xf32>, tensor<3xindex>)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[SHAPE:.*]] = arith.constant dense<[12, 2]> : tensor<2xindex>
// CHECK: %[[RESHAPE:.*]] = tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<6x4xf32>, tensor<2xindex>) -> tensor<12x2xf32>
// CHECK-NEXT: %[[COLLAPSED:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
// CHECK-NEXT: %[[EXPANDED:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [3, 2, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
// CHECK-NEXT: %[[SLICE:.*]] = tensor.extract_slice %[[X]][0, 0] [3, 4] [1, 1] : tensor<6x4xf32> to tensor<3x4xf32>
// CHECK-NEXT: %[[PADDED:.*]] = tensor.pad %[[SLICE]] low[1, 0] high[%[[C3]], 0] {
// CHECK: } : tensor<3x4xf32> to tensor<7x4xf32>
// CHECK-NEXT: %[[CONCAT:.*]] = tensor.concat dim(0) %[[SLICE]], %[[X]] : (tensor<3x4xf32>, tensor<6x4xf32>) -> tensor<9x4xf32>
// CHECK-NEXT: %[[SPLAT:.*]] = tensor.splat %[[V]] : tensor<6x4xf32>
// CHECK-NEXT: %[[INSERTED:.*]] = tensor.insert_slice %[[SLICE]] into %[[SPLAT]][3, 0] [3, 4] [1, 1] : tensor<3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT: %[[GENERATED:.*]] = tensor.generate {
// CHECK: } : tensor<3xindex>
// CHECK-NEXT: return %[[RESHAPE]], %[[COLLAPSED]], %[[EXPANDED]], %[[PADDED]], %[[CONCAT]], %[[INSERTED]], %[[SLICE]], %[[GENERATED]]
func.func @tensor_ops(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"2*b, 4">}, %v: f32) -> (tensor<?x2xf32>, tensor<?xf32>, tensor<?x2x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xindex>) {
  %shape = arith.constant dense<[-1, 2]> : tensor<2xindex>
  %reshape = tensor.reshape %x(%shape) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x2xf32>
  %collapsed = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %h = arith.divsi %d, %c2 : index
  %expanded = tensor.expand_shape %x [[0, 1], [2]] output_shape [%h, 2, 4] : tensor<?x4xf32> into tensor<?x2x4xf32>
  %slice = tensor.extract_slice %x[0, 0] [%h, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %slice low[1, 0] high[%h, 0] {
    ^bb0(%i: index, %j: index):
      tensor.yield %zero : f32
  } : tensor<?x4xf32> to tensor<?x4xf32>
  %concat = tensor.concat dim(0) %slice, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %splat = tensor.splat %v[%d] : tensor<?x4xf32>
  %inserted = tensor.insert_slice %slice into %splat[%h, 0] [%h, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  %generated = tensor.generate %h {
    ^bb0(%i: index):
      tensor.yield %i : index
  } : tensor<?xindex>
  return %reshape, %collapsed, %expanded, %padded, %concat, %inserted, %slice, %generated : tensor<?x2xf32>, tensor<?xf32>, tensor<?x2x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?xindex>
}

// -----

// Tests scf: for and while loop carries, if and index_switch results.
// CHECK-LABEL: func.func @control_flow
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %{{.*}}: i1, %{{.*}}: index) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[FOR:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (tensor<3xf32>) {
// CHECK-NEXT: arith.addf %[[ACC]], %[[X]] : tensor<3xf32>
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<3xf32>) {
// CHECK-NEXT: math.exp %[[FOR]] : tensor<3xf32>
// CHECK: %[[WHILE:.*]]:2 = scf.while ({{.*}}, %{{.*}} = %[[X]]) : (index, tensor<3xf32>) -> (index, tensor<3xf32>) {
// CHECK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : index, tensor<3xf32>
// CHECK: ^bb0(%{{.*}}: index, %[[A:.*]]: tensor<3xf32>):
// CHECK: math.tanh %[[A]] : tensor<3xf32>
// CHECK: %[[SWITCH:.*]] = scf.index_switch %{{.*}} -> tensor<3xf32>
// CHECK: scf.yield %[[IF]] : tensor<3xf32>
// CHECK: return %[[FOR]], %[[WHILE]]#1, %[[SWITCH]] : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
func.func @control_flow(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %p: i1, %k: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %for = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %y = arith.addf %acc, %x : tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  %if = scf.if %p -> (tensor<?xf32>) {
    %z = math.exp %for : tensor<?xf32>
    scf.yield %z : tensor<?xf32>
  } else {
    scf.yield %x : tensor<?xf32>
  }
  %while:2 = scf.while (%i = %c0, %acc = %x) : (index, tensor<?xf32>) -> (index, tensor<?xf32>) {
    %cond = arith.cmpi slt, %i, %c4 : index
    scf.condition(%cond) %i, %acc : index, tensor<?xf32>
  } do {
  ^bb0(%j: index, %a: tensor<?xf32>):
    %n = arith.addi %j, %c1 : index
    %t = math.tanh %a : tensor<?xf32>
    scf.yield %n, %t : index, tensor<?xf32>
  }
  %switch = scf.index_switch %k -> tensor<?xf32>
  case 0 {
    scf.yield %x : tensor<?xf32>
  }
  default {
    scf.yield %if : tensor<?xf32>
  }
  return %for, %while#1, %switch : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Tests calls: each polymorphic callee is specialized per call site into a
// private clone named after its variables; the private callee whose calls
// all moved to clones is erased, the public one is kept as it is.
// CHECK-NOT: func.func private @double(
// CHECK-LABEL: func.func private @double_a3
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>) -> tensor<6xf32>
// CHECK-NEXT: tensor.concat dim(0) %[[X]], %[[X]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
// CHECK-LABEL: func.func private @double_a6
// CHECK-SAME: (%{{.*}}: tensor<6xf32>) -> tensor<12xf32>
// CHECK-LABEL: func.func @square
// CHECK-SAME: (%{{.*}}: tensor<?x?xf32> {poly.shape = #poly.shape<"n, n">})
// CHECK-LABEL: func.func private @square_n4
// CHECK-SAME: (%{{.*}}: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-LABEL: func.func @calls
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<4x4xf32>) -> (tensor<12xf32>, tensor<6xf32>, tensor<4x4xf32>)
// CHECK-NEXT: %[[D0:.*]] = call @double_a3(%[[X]]) : (tensor<3xf32>) -> tensor<6xf32>
// CHECK-NEXT: %[[D1:.*]] = call @double_a6(%[[D0]]) : (tensor<6xf32>) -> tensor<12xf32>
// CHECK-NEXT: %[[D2:.*]] = call @double_a3(%[[X]]) : (tensor<3xf32>) -> tensor<6xf32>
// CHECK-NEXT: %[[S:.*]] = call @square_n4(%[[M]]) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: return %[[D1]], %[[D2]], %[[S]]
func.func private @double(%x: tensor<?xf32> {poly.shape = #poly.shape<"a">}) -> tensor<?xf32> {
  %0 = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @square(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"n, n">}) -> tensor<?x?xf32> {
  return %x : tensor<?x?xf32>
}
func.func @calls(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %m: tensor<?x?xf32> {poly.shape = #poly.shape<"b + 1, b + 1">}) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %0 = func.call @double(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = func.call @double(%0) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = func.call @double(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %3 = func.call @square(%m) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1, %2, %3 : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
}

// -----

// Tests that symbolic index values become constants (also through casts),
// that a shape assertion that holds is removed, and that `poly.constraints`
// is gone.
// CHECK-LABEL: func.func @index_values
// CHECK-SAME: (%{{.*}}: tensor<3xf32>) -> (index, i64, tensor<9xf32>) {
// CHECK-DAG: %[[I64:.*]] = arith.constant 9 : i64
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<9xf32>
// CHECK-NOT: poly.shape_assertion
// CHECK: return %[[C9]], %[[I64]], %[[E]] : index, i64, tensor<9xf32>
func.func @index_values(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> (index, i64, tensor<?xf32>) attributes {poly.constraints = ["b >= 2"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi sge, %b, %c1 : index
  poly.shape_assertion %ok, %b {error_message = "b = {0} is < 1"} : index
  %sq = arith.muli %b, %b : index
  %i = arith.index_cast %sq : index to i64
  %e = tensor.empty(%sq) : tensor<?xf32>
  return %sq, %i, %e : index, i64, tensor<?xf32>
}

// -----

// Tests that a false assertion in a conditional region is not a compile-time
// error: it stays a runtime check (the branch may never run).
// CHECK-LABEL: func.func @conditional_assertion
// CHECK-SAME: (%{{.*}}: tensor<3xf32>, %[[P:.*]]: i1)
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: scf.if %[[P]] {
// CHECK-NEXT: poly.shape_assertion %[[FALSE]], %{{.*}} {error_message = "b = {0} is too small"} : index
func.func @conditional_assertion(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %p: i1) {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi sge, %b, %c5 : index
  scf.if %p {
    poly.shape_assertion %ok, %b {error_message = "b = {0} is too small"} : index
  }
  return
}

// -----

// Tests that a region op with a constant operand is not mistaken for an op
// holding sizes: an index_switch on a constant folds to the taken case.
// CHECK-LABEL: func.func @switch_on_constant
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[X]] : tensor<3xf32>
// CHECK-NEXT: return %[[T]] : tensor<3xf32>
func.func @switch_on_constant(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %s = scf.index_switch %c1 -> tensor<?xf32>
  case 0 {
    scf.yield %x : tensor<?xf32>
  }
  default {
    %z = math.tanh %x : tensor<?xf32>
    scf.yield %z : tensor<?xf32>
  }
  return %s : tensor<?xf32>
}
