// RUN: tessera-opt %s --split-input-file --poly-infer --verify-diagnostics

// Tests JAX's broadcasting error for an elementwise op, under the JAX name.
func.func @broadcast(%x: tensor<?xf32> {poly.shape = #poly.shape<"v">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"w">}) -> tensor<?xf32> {
  // expected-note @-1 {{operand #0 has the symbolic shape (v,)}}
  // expected-note @-2 {{operand #1 has the symbolic shape (w,)}}
  // expected-error @+1 {{'arith.addf' op add got incompatible shapes for broadcasting: (v,), (w,).}}
  %0 = arith.addf %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests JAX's message for a symbolic size against a constant one (the
// constant comes through a cast, as MLIR types must agree).
func.func @broadcast_constant(%x: tensor<?xf32> {poly.shape = #poly.shape<"v">}, %y: tensor<4xf32>) -> tensor<?xf32> {
  // expected-note @-1 {{operand #0 has the symbolic shape (v,)}}
  %c = tensor.cast %y : tensor<4xf32> to tensor<?xf32>
  // expected-error @+1 {{'arith.addf' op add got incompatible shapes for broadcasting: (v,), (4,).}}
  %0 = arith.addf %x, %c : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests the broadcasting error of a math op.
func.func @broadcast_math(%x: tensor<?xf32> {poly.shape = #poly.shape<"v">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"v + 1">}) -> tensor<?xf32> {
  // expected-note @-1 {{operand #0 has the symbolic shape (v,)}}
  // expected-note @-2 {{operand #1 has the symbolic shape (v + 1,)}}
  // expected-error @+1 {{'math.powf' op pow got incompatible shapes for broadcasting: (v,), (v + 1,).}}
  %0 = math.powf %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests JAX's contracting-dimension error of a matmul.
func.func @contracting(%a: tensor<4x?xf32> {poly.shape = #poly.shape<"4, v">}, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-note @-1 {{operand #0 has the symbolic shape (4, v)}}
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{'linalg.matmul' op dot_general requires contracting dimensions to have the same shape, got (v,) and (4,).}}
  %r = linalg.matmul ins(%a, %b : tensor<4x?xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests JAX's batch-dimension error of a batched matmul.
func.func @batch(%a: tensor<?x2x4xf32> {poly.shape = #poly.shape<"b, 2, 4">}, %b: tensor<?x4x8xf32> {poly.shape = #poly.shape<"c, 4, 8">}) -> tensor<?x2x8xf32> {
  // expected-note @-1 {{operand #0 has the symbolic shape (b, 2, 4)}}
  // expected-note @-2 {{operand #1 has the symbolic shape (c, 4, 8)}}
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x2x4xf32>
  %e = tensor.empty(%n) : tensor<?x2x8xf32>
  // expected-note @-1 {{operand #2 has the symbolic shape (b, 2, 8)}}
  // expected-error @+1 {{'linalg.batch_matmul' op dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got (b,) and (c,).}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x2x4xf32>, tensor<?x4x8xf32>) outs(%e : tensor<?x2x8xf32>) -> tensor<?x2x8xf32>
  return %r : tensor<?x2x8xf32>
}

// -----

// Tests that the result of a structured op must agree with its inputs.
func.func @structured_output(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %o: tensor<?xf32> {poly.shape = #poly.shape<"2*b">}) -> tensor<?xf32> {
  // expected-note @-1 {{operand #0 has the symbolic shape (b,)}}
  // expected-note @-2 {{operand #1 has the symbolic shape (2*b,)}}
  // expected-error @+1 {{'linalg.exp' op exp got incompatible shapes for broadcasting: (b,), (2*b,).}}
  %r = linalg.exp ins(%x : tensor<?xf32>) outs(%o : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Tests that a combined map result (a convolution window) stays within its
// dimension.
func.func @window_out_of_bounds(%x: tensor<1x?x4xf32> {poly.shape = #poly.shape<"1, n + 1, 4">}, %k: tensor<3x4x8xf32>, %o: tensor<1x?x8xf32> {poly.shape = #poly.shape<"1, n, 8">}) -> tensor<1x?x8xf32> {
  // expected-error @+1 {{'linalg.conv_1d_nwc_wcf' op operand #0 dimension 1 (size 'n + 1') does not contain the indices 0 to n + 2 (exclusive) of its indexing map result 'd1 + d3'}}
  %r = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%x, %k : tensor<1x?x4xf32>, tensor<3x4x8xf32>) outs(%o : tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %r : tensor<1x?x8xf32>
}

// -----

// Tests that a map result that is not linear in the loops is not supported.
func.func @nonlinear_map(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %o: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @+1 {{'linalg.generic' op not supported by poly-infer: the indexing map result 'd0 floordiv 2' of operand #0 is not linear in the loops}}
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i floordiv 2)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?xf32>
  return %g : tensor<?xf32>
}

// -----

// Tests JAX's reshape error for a -1 that does not divide evenly.
func.func @reshape_remainder(%x: tensor<?x2x4xf32> {poly.shape = #poly.shape<"b, 2, 4">}) -> tensor<?x?x3xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x2x4xf32>
  %m1 = arith.constant -1 : index
  %c3 = arith.constant 3 : index
  %s = tensor.from_elements %b, %m1, %c3 : tensor<3xindex>
  // expected-error @+1 {{'tensor.reshape' op Cannot divide evenly the sizes of shapes (b, 2, 4) and (b, -1, 3). The remainder mod(8*b, - 3*b) should be 0.}}
  %r = tensor.reshape %x(%s) : (tensor<?x2x4xf32>, tensor<3xindex>) -> tensor<?x?x3xf32>
  return %r : tensor<?x?x3xf32>
}

// -----

// Tests JAX's error for two -1 in a reshape.
func.func @reshape_two_minus_ones(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> tensor<?x?xf32> {
  %s = arith.constant dense<[-1, -1]> : tensor<2xindex>
  // expected-error @+1 {{'tensor.reshape' op can only specify one unknown axis size with a `-1` value, got (-1, -1)}}
  %r = tensor.reshape %x(%s) : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Tests jnp.reshape's error for integer sizes that a -1 cannot divide.
func.func @reshape_not_divisible(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %y: tensor<4x6xf32>) -> tensor<?x5xf32> {
  %s = arith.constant dense<[-1, 5]> : tensor<2xindex>
  // expected-error @+1 {{'tensor.reshape' op cannot reshape array of shape (4, 6) (size 24) into shape (-1, 5) because the product of specified axis sizes (5) does not evenly divide 24}}
  %r = tensor.reshape %y(%s) : (tensor<4x6xf32>, tensor<2xindex>) -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}

// -----

// Tests jnp.reshape's error for sizes that differ.
func.func @reshape_size(%x: tensor<?x2xf32> {poly.shape = #poly.shape<"b, 2">}) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x2xf32>
  %c3 = arith.constant 3 : index
  %s = tensor.from_elements %b, %c3 : tensor<2xindex>
  // expected-error @+1 {{'tensor.reshape' op cannot reshape array of shape (b, 2) (size 2*b) into shape (b, 3) (size 3*b)}}
  %r = tensor.reshape %x(%s) : (tensor<?x2xf32>, tensor<2xindex>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// Tests that a reshape's shape must be known symbolically.
func.func @reshape_data_shape(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %s: tensor<1xindex>) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor.reshape' op not supported by poly-infer: the values of the shape operand are not known symbolically}}
  %r = tensor.reshape %x(%s) : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Tests the reshape error of an expand_shape group.
func.func @expand_size(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"c">}) -> tensor<2x?xf32> {
  %c0 = arith.constant 0 : index
  %c = tensor.dim %y, %c0 : tensor<?xf32>
  // expected-error @+1 {{'tensor.expand_shape' op cannot reshape array of shape (b,) (size b) into shape (2, c) (size 2*c)}}
  %r = tensor.expand_shape %x [[0, 1]] output_shape [2, %c] : tensor<?xf32> into tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// Tests JAX's inconclusive error for a slice that needs `b >= 16`.
func.func @slice_inconclusive(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<16xf32> {
  // expected-error @+1 {{'tensor.extract_slice' op Symbolic dimension comparison 'b' >= '16' is inconclusive.}}
  %s = tensor.extract_slice %x[0] [16] [1] : tensor<?xf32> to tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// Tests that the inconclusive message lists the scope's constraints.
func.func @slice_inconclusive_constrained(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<16xf32>
    attributes {poly.constraints = ["b >= 8"]} {
  // expected-error @+1 {{with constraints:}}
  %s = tensor.extract_slice %x[0] [16] [1] : tensor<?xf32> to tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// Tests JAX's slicing error for a limit beyond the dimension.
func.func @slice_beyond(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %n = arith.addi %b, %c1 : index
  // expected-error @+1 {{'tensor.extract_slice' op slice limit_indices must be less than or equal to operand shape, got limit_indices (b + 1,) for operand shape (b,).}}
  %s = tensor.extract_slice %x[0] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Tests JAX's slicing error for a negative start.
func.func @slice_negative_start(%x: tensor<?xf32> {poly.shape = #poly.shape<"b + 2">}) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %o = arith.subi %c0, %c1 : index
  // expected-error @+1 {{'tensor.extract_slice' op slice start_indices must be greater than or equal to zero, got start_indices of (-1,).}}
  %s = tensor.extract_slice %x[%o] [2] [1] : tensor<?xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// Tests JAX's slicing error for a negative size.
func.func @slice_negative_size(%x: tensor<?xf32> {poly.shape = #poly.shape<"b + 2">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.subi %c0, %c1 : index
  // expected-error @+1 {{'tensor.extract_slice' op slice limit_indices must be greater than or equal to start_indices, got start_indices (1,) and limit_indices (0,).}}
  %s = tensor.extract_slice %x[1] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Tests JAX's error for a zero stride.
func.func @slice_zero_stride(%x: tensor<?xf32> {poly.shape = #poly.shape<"b + 2">}) -> tensor<2xf32> {
  // expected-error @+1 {{'tensor.extract_slice' op slice strides must be positive, got (0,)}}
  %s = tensor.extract_slice %x[0] [2] [0] : tensor<?xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// Tests JAX's dynamic_update_slice error for an update larger than the
// operand.
func.func @insert_too_large(%x: tensor<?xf32> {poly.shape = #poly.shape<"2*b">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-error @+1 {{'tensor.insert_slice' op dynamic_update_slice update shape must be smaller than operand shape, got update shape (2*b,) for operand shape (b,).}}
  %r = tensor.insert_slice %x into %y[0] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Tests that an insert_slice source has the slice's sizes.
func.func @insert_source_mismatch(%x: tensor<?xf32> {poly.shape = #poly.shape<"c">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %y, %c0 : tensor<?xf32>
  // expected-error @+1 {{'tensor.insert_slice' op expected the source shape (c,) to match the slice sizes (b,)}}
  %r = tensor.insert_slice %x into %y[0] [%b] [1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Tests JAX's pad error for a negative result size.
func.func @pad_negative(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  %nb = arith.subi %c0, %b : index
  %low = arith.subi %nb, %c1 : index
  %f = arith.constant 0.0 : f32
  // expected-error @+1 {{'tensor.pad' op Dimension size after padding is not at least 0, got result shape (-1,), for padding_config ((- b - 1, 0, 0),) and operand shape (b,)}}
  %p = tensor.pad %x low[%low] high[0] {
  ^bb0(%i: index):
    tensor.yield %f : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %p : tensor<?xf32>
}

// -----

// Tests JAX's concatenate error.
func.func @concat_mismatch(%x: tensor<?x2xf32> {poly.shape = #poly.shape<"b, 2">}, %y: tensor<?x3xf32> {poly.shape = #poly.shape<"c, 3">}) -> tensor<?x5xf32> {
  // expected-error @+1 {{'tensor.concat' op Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension 1 for shapes (b, 2), (c, 3).}}
  %r = tensor.concat dim(1) %x, %y : (tensor<?x2xf32>, tensor<?x3xf32>) -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}

// -----

// Tests that a cast to a static size must be provable.
func.func @cast_static(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.cast' op result #0 has type 'tensor<4xf32>' but its symbolic shape is (b,): dimension 0 is not provably 4}}
  %r = tensor.cast %x : tensor<?xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that casts to unranked tensors are not supported.
func.func @cast_unranked(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<*xf32> {
  // expected-error @+1 {{'tensor.cast' op not supported by poly-infer: a cast between ranked and unranked tensors}}
  %r = tensor.cast %x : tensor<?xf32> to tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// Tests that a size computed from data is rejected (JAX shapes do not depend
// on data).
func.func @data_dependent(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %n: tensor<index>) -> tensor<?xf32> {
  %d = tensor.extract %n[] : tensor<index>
  // expected-error @+1 {{'tensor.empty' op the size of dimension 0 is not known symbolically: it must be computed from the dimension sizes (shapes that depend on data are not supported)}}
  %e = tensor.empty(%d) : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// Tests JAX's carry error of a loop with a static trip count (a scan).
func.func @scan_carry(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scf.for' op scan body function carry input and carry output must have equal types, but they differ:}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %e = tensor.concat dim(0) %acc, %acc : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Tests JAX's carry error of a loop with a symbolic trip count (a
// while_loop), with the types in the message.
func.func @while_carry(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-error @+1 {{The input carry at path [0] has type float32[b] but the corresponding output carry component has type float32[b - 1].}}
  %r = scf.for %i = %c0 to %b step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %n = tensor.dim %acc, %c0 : tensor<?xf32>
    %m = arith.subi %n, %c1 : index
    %e = tensor.extract_slice %acc[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Tests JAX's carry error of scf.while.
func.func @scf_while_carry(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %p: i1) -> tensor<?xf32> {
  // expected-error @+1 {{'scf.while' op while_loop body function carry input and carry output must have equal types, but they differ:}}
  %r = scf.while (%a = %x) : (tensor<?xf32>) -> tensor<?xf32> {
    scf.condition(%p) %a : tensor<?xf32>
  } do {
  ^bb0(%a: tensor<?xf32>):
    %e = tensor.concat dim(0) %a, %a : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Tests JAX's cond error for branches of different shapes.
func.func @cond_branches(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %p: i1) -> tensor<?xf32> {
  // expected-error @+1 {{'scf.if' op cond branches must have equal output types but they differ.}}
  %r = scf.if %p -> tensor<?xf32> {
    scf.yield %x : tensor<?xf32>
  } else {
    %e = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Tests JAX's switch error for branches of different shapes.
func.func @switch_branches(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %k: index) -> tensor<?xf32> {
  // expected-error @+1 {{The output of branch 0 at path [0] has type float32[b] but the corresponding output of the default branch has type float32[2*b].}}
  %r = scf.index_switch %k -> tensor<?xf32>
  case 3 {
    scf.yield %x : tensor<?xf32>
  }
  default {
    %e = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Tests that regions with several blocks are not supported.
func.func @multi_block_region(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @+1 {{'scf.execute_region' op not supported by poly-infer: a region with several blocks}}
  %r = scf.execute_region -> tensor<?xf32> {
    cf.br ^bb1
  ^bb1:
    scf.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// Tests that a function body with several blocks is not supported.
// expected-error @+1 {{'func.func' op not supported by poly-infer: a function body with several blocks}}
func.func @multi_block_function(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<?xf32>
}

// -----

// Tests that an op without a symbolic shape rule is rejected when it touches
// a symbolic shape.
func.func @no_rule(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @+1 {{'bufferization.alloc_tensor' op not supported by poly-infer: the op has no symbolic shape rule (poly::SymbolicShapeOpInterface) and uses or produces symbolic shapes or dimension values}}
  %0 = bufferization.alloc_tensor() copy(%x) : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that an op without a rule is rejected when it uses a dimension value.
func.func @no_rule_index(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-error @+1 {{'vector.print' op not supported by poly-infer}}
  vector.print %b : index
  return
}

// -----

// Tests that a region op without a rule is rejected when its body uses a
// symbolic shape defined outside.
func.func @no_rule_region(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.parallel' op not supported by poly-infer}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %e = math.exp %x : tensor<?xf32>
    scf.reduce
  }
  return
}

// -----

// Tests that every dynamic argument of a polymorphic function needs a spec.
// expected-error @+1 {{'func.func' op arg 1 - has dynamic dimensions but no 'poly.shape' (every argument of a polymorphic function needs a spec)}}
func.func @missing_spec(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}, %y: tensor<?xf32>) {
  return
}

// -----

// Tests JAX's error for a dimension variable that cannot be solved.
// expected-error @+1 {{'func.func' op Cannot solve for values of dimension variables {'a'}. We can only solve linear uni-variate constraints. Using the following polymorphic shapes specifications: args[0].shape = (a^2,). Unprocessed specifications: 'a^2' for dimension size args[0].shape[0]. Please see https://docs.jax.dev/en/latest/export/shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes for more details.}}
func.func @unsolvable(%x: tensor<?xf32> {poly.shape = #poly.shape<"a^2">}) {
  return
}

// -----

// Tests JAX's UnexpectedDimVar for a variable only in a constraint.
// expected-error @+1 {{'func.func' op Encountered dimension variable 'm' that is not appearing in the shapes of the function arguments.}}
func.func @constraint_only_variable(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["m >= b"]} {
  return
}

// -----

// Tests UnexpectedDimVar when no argument is symbolic at all.
// expected-error @+1 {{'func.func' op Encountered dimension variable 'm' that is not appearing in the shapes of the function arguments.}}
func.func @constraint_without_symbolic_arguments(%x: tensor<4xf32>)
    attributes {poly.constraints = ["m >= 2"]} {
  return
}

// -----

// Tests UnexpectedDimVar for a variable only in a declared result.
// expected-error @+1 {{'func.func' op result 0 - Encountered dimension variable 'k' that is not appearing in the shapes of the function arguments.}}
func.func private @result_only_variable(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    -> (tensor<?xf32> {poly.shape = #poly.shape<"k">})

// -----

// Tests that a declared result shape must be the inferred one.
// expected-note @+1 {{result 0 declared here}}
func.func @declared_result_mismatch(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    -> (tensor<?xf32> {poly.shape = #poly.shape<"b + 1">}) {
  // expected-error @+1 {{'func.return' op operand #0 has the symbolic shape (b,) but the function declares 'poly.shape' (b + 1,) for result 0}}
  return %x : tensor<?xf32>
}

// -----

// Tests JAX's nested-export error: the callee's variables cannot be solved
// from the caller's shapes.
func.func private @callee(%x: tensor<?xf32> {poly.shape = #poly.shape<"2*a">}) -> (tensor<?xf32> {poly.shape = #poly.shape<"a">})
func.func @caller(%y: tensor<?xf32> {poly.shape = #poly.shape<"c">}) -> tensor<?xf32> {
  // expected-error @+2 {{'func.call' op Input shapes do not match the polymorphic shapes specification. Division had remainder mod(c, 2) when computing the value of 'a'. Using the following polymorphic shapes specifications: args[0].shape = (2*a,). Obtained dimension variables: . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.}}
  // expected-note @+1 {{while solving the dimension variables of @callee from the shapes of the call's operands}}
  %0 = func.call @callee(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a callee's explicit constraints are checked against the
// caller's shapes.
func.func private @constrained_callee(%x: tensor<?xf32> {poly.shape = #poly.shape<"a">}) -> (tensor<?xf32> {poly.shape = #poly.shape<"a">})
    attributes {poly.constraints = ["a >= 8"]}
func.func @constrained_caller(%y: tensor<?xf32> {poly.shape = #poly.shape<"c">}) -> tensor<?xf32> {
  // expected-error @+2 {{'func.call' op Input shapes do not match the symbolic shape constraint a >= 8.}}
  // expected-note @+1 {{while solving}}
  %0 = func.call @constrained_callee(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that calling a function whose dynamic arguments have no spec is not
// supported.
func.func private @plain(%x: tensor<?xf32>) -> tensor<?xf32>
func.func @calls_plain(%y: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @+1 {{'func.call' op not supported by poly-infer: calling @plain, whose argument #0 has dynamic dimensions but no 'poly.shape'}}
  %0 = func.call @plain(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a callee's dynamic result needs a declared shape.
func.func private @undeclared_result(%x: tensor<?xf32> {poly.shape = #poly.shape<"a">}) -> tensor<?xf32>
func.func @calls_undeclared(%y: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @+1 {{'func.call' op the symbolic shape of result #0 of @undeclared_result is unknown (declare it with 'poly.shape')}}
  %0 = func.call @undeclared_result(%y) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that unranked results are not supported.
func.func private @unranked_result(%x: tensor<?xf32> {poly.shape = #poly.shape<"a">}) -> tensor<*xf32>
func.func @calls_unranked(%y: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<*xf32> {
  // expected-error @+1 {{'func.call' op not supported by poly-infer: unranked result #0}}
  %0 = func.call @unranked_result(%y) : (tensor<?xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// Tests that recursion is not supported.
func.func @recursive(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">}) -> tensor<?xf32> {
  // expected-error @+1 {{'func.call' op not supported by poly-infer: recursive call to @recursive}}
  %0 = func.call @recursive(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests that a shape spec whose coefficients overflow int64 is an error.
// expected-error @+1 {{syntax error in symbolic shape '4611686018427387904*a*2' in dimension 0: integer overflow in a linear combination: the result does not fit in 64 bits. Parsed '', remaining ''.}}
func.func @overflow_spec(%x: tensor<?xf32> {poly.shape = #poly.shape<"4611686018427387904*a*2">}) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
