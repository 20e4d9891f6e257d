// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's rules for reductions with several results (argmax/argmin as
// a value and an index, a Welford mean and variance, JAX's variadic
// reduce): every result is the operand's type with the reduced dimensions
// deleted, whichever inputs shard them (multi-result-reduction-invalid.mlir:
// unreduced inputs have no rule).

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// argmax over axis 0 of f32[8@x,2@y] is i32[2@y] (JAX's example).
func.func @argmax_linalg_index(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                               %v0: tensor<2xf32>, %i0: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  // expected-remark @+1 {{f32[2@y], i32[2@y]}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x2xf32>) outs(%v0, %i0 : tensor<2xf32>, tensor<2xi32>) {
    ^bb0(%x: f32, %av: f32, %ai: i32):
      %k = linalg.index 1 : index
      %kc = arith.index_cast %k : index to i32
      %gt = arith.cmpf ogt, %x, %av : f32
      %nv = arith.select %gt, %x, %av : f32
      %ni = arith.select %gt, %kc, %ai : i32
      linalg.yield %nv, %ni : f32, i32
  } -> (tensor<2xf32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// A variadic reduce of a value and an index operand both sharded on the
// reduced dimension is a reduce, not a dot_general: no ambiguity error.
func.func @argmin_with_index_operand(%a: tensor<2x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>},
                                     %idx: tensor<2x8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>},
                                     %v0: tensor<2xf32>, %i0: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  // expected-remark @+1 {{f32[2@y], i32[2@y]}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a, %idx : tensor<2x8xf32>, tensor<2x8xi32>) outs(%v0, %i0 : tensor<2xf32>, tensor<2xi32>) {
    ^bb0(%x: f32, %k: i32, %av: f32, %ai: i32):
      %lt = arith.cmpf olt, %x, %av : f32
      %nv = arith.minimumf %x, %av : f32
      %ni = arith.select %lt, %k, %ai : i32
      linalg.yield %nv, %ni : f32, i32
  } -> (tensor<2xf32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// Welford's running count, mean and M2 over the rows of f32[8@x,4@y]:
// three results of type f32[4@y].
func.func @welford(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                   %n0: tensor<4xf32>, %m0: tensor<4xf32>, %s0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // expected-remark @+1 {{f32[4@y], f32[4@y], f32[4@y]}}
  %r:3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (j)>],
                         iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<8x4xf32>) outs(%n0, %m0, %s0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    ^bb0(%x: f32, %n: f32, %mean: f32, %m2: f32):
      %one = arith.constant 1.0 : f32
      %n1 = arith.addf %n, %one : f32
      %d = arith.subf %x, %mean : f32
      %q = arith.divf %d, %n1 : f32
      %mean1 = arith.addf %mean, %q : f32
      %d2 = arith.subf %x, %mean1 : f32
      %p = arith.mulf %d, %d2 : f32
      %m21 = arith.addf %m2, %p : f32
      linalg.yield %n1, %mean1, %m21 : f32, f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
