// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's dot_general rule on linalg contractions: free dims keep their
// entries, batch dims must agree, a contracting dim sharded on one side is
// dropped and on both sides is ambiguous unless spmd.out_sharding says.

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @matmul_free_dims(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

// One-side-sharded contracting dims are dropped (FSDP style).
func.func @matmul_one_side_contracting(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"X"}]>}, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8,4]}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @matmul_rhs_contracting(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"Y"}, {}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@Y,4]}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Seed: contracting dims sharded on both sides are ambiguous.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @matmul_ambiguous(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please specify the output sharding via the `out_sharding` parameter. Got lhs_contracting_spec=('Y',) and rhs_contracting_spec=('X',)}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

// Even sharded on the same axis on both sides.
func.func @matmul_ambiguous_same_axis(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"X"}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{Got lhs_contracting_spec=('X',) and rhs_contracting_spec=('X',)}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Seed: spmd.out_sharding resolves the ambiguity.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @matmul_out_sharding(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4]}}
  %0 = linalg.matmul {spmd.out_sharding = #spmd.sharding<@mesh, [{"X"}, {}]>} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @matmul_illegal(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<2x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"X"}]>}, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{linalg.matmul operation with inputs: f32[8@X,2], f32[2,8@X] produces an illegally sharded result: f32[8@X,8@X]}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x2xf32>, tensor<2x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @batch_matmul(%a: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}, {}]>}, %b: tensor<4x16x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}, {"Y"}]>}, %c: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  // expected-remark @+1 {{f32[4@X,8,6@Y]}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%c : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %0 : tensor<4x8x6xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @batch_dims_differ(%a: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}, {}]>}, %b: tensor<4x16x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"Y"}, {}, {}]>}, %c: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  // expected-error @+1 {{dot_general requires lhs batch dimensions and rhs batch dimensions to have the same sharding, got ('X',) and ('Y',).}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%c : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %0 : tensor<4x8x6xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @batch_dim_one_side(%a: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}, {}]>}, %b: tensor<4x16x6xf32>, %c: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  // expected-error @+1 {{dot_general requires lhs batch dimensions and rhs batch dimensions to have the same sharding, got ('X',) and (None,).}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%c : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %0 : tensor<4x8x6xf32>
}

// -----

// A generic with two inputs and a reduction loop is a contraction too
// (here an einsum 'bk,kn->bn').
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @generic_contraction(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %0 = linalg.generic {indexing_maps = [affine_map<(b, n, k) -> (b, k)>, affine_map<(b, n, k) -> (k, n)>, affine_map<(b, n, k) -> (b, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @matvec(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %v: tensor<16xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{f32[8@X]}}
  %0 = linalg.matvec ins(%a, %v : tensor<8x16xf32>, tensor<16xf32>) outs(%c : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
