// RUN: tessera-opt %s -split-input-file --spmd-infer-explicit --spmd-print-types --verify-diagnostics -o /dev/null

// Tests JAX's unary and n-ary elementwise rules on arith/math ops and
// elementwise linalg ops: equal entries are kept, None yields to a sharded
// entry, size-1 unsharded dims are broadcasts, and two different sharded
// entries or a mesh axis used twice are errors.

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @unary(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %0 = math.exp %a : tensor<8x4xf32>
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %1 = arith.negf %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @same(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4]}}
  %0 = arith.addf %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

// None yields to a sharded entry, dimension by dimension.
func.func @none_yields(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %0 = arith.mulf %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @unsharded_operand(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4]}}
  %0 = arith.subf %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @multi_axis(%a: tensor<8x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X", "Y"}, {}]>}) -> tensor<8x2xf32> {
  // expected-remark @+1 {{f32[8@(X,Y),2]}}
  %0 = math.tanh %a : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @casts(%a: tensor<8x4xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}) -> tensor<8x4xi32> {
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %0 = arith.extf %a : tensor<8x4xf16> to tensor<8x4xf32>
  // expected-remark @+1 {{i32[8@X,4@Y]}}
  %1 = arith.fptosi %0 : tensor<8x4xf32> to tensor<8x4xi32>
  return %1 : tensor<8x4xi32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @compare(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32>) -> tensor<8x4xi1> {
  // expected-remark @+1 {{bool[8@X,4]}}
  %0 = arith.cmpf olt, %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xi1>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @incompatible(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"Y"}, {"X"}]>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{arith.addf got incompatible shardings for broadcasting: ('X', 'Y'), ('Y', 'X').}}
  %0 = arith.addf %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @incompatible_tuple(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X", "Y"}, {}]>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{arith.maximumf got incompatible shardings for broadcasting: ('X', 'Y'), (('X', 'Y'), None).}}
  %0 = arith.maximumf %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Seed: i32[4@X,4] + i32[4,4@X] would use X twice.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @illegally_sharded(%a: tensor<4x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<4x4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"X"}]>}) -> tensor<4x4xi32> {
  // expected-error @+1 {{arith.addi operation with inputs: i32[4@X,4], i32[4,4@X] produces an illegally sharded result: i32[4@X,4@X]}}
  %0 = arith.addi %a, %b : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

// Seed: i32[4@X,1] + i32[1,8@Y] broadcasts to i32[4@X,8@Y] (a constant-0
// index in an indexing map is a size-1 broadcast dimension).
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @broadcasting_add(%a: tensor<4x1xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<1x8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}, %init: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-remark @+1 {{i32[4@X,8@Y]}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x1xi32>, tensor<1x8xi32>) outs(%init : tensor<4x8xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %s = arith.addi %x, %y : i32
    linalg.yield %s : i32
  } -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// The outs of a linalg op never change the result's type.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @linalg_elementwise(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32>, %init: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4]}}
  %0 = linalg.add ins(%a, %b : tensor<8x4xf32>, tensor<8x4xf32>) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// A rank-0 input (a scalar) is ignored.
spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @scalar_input(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {"Y"}]>}, %s: tensor<f32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4@Y]}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %s : tensor<8x4xf32>, tensor<f32>) outs(%init : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @select(%p: tensor<8x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4]}}
  %0 = arith.select %p, %a, %b : tensor<8x4xi1>, tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @select_cases_differ(%p: tensor<8x4xi1>, %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{select cases must have the same shardings, got [P('X', None), P(None, None)].}}
  %0 = arith.select %p, %a, %b : tensor<8x4xi1>, tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @select_which_differs(%p: tensor<8x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"Y"}]>}, %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{select `which` must be scalar or have the same sharding as cases, got `which` sharding P(None, 'Y') but case sharding P('X', None).}}
  %0 = arith.select %p, %a, %b : tensor<8x4xi1>, tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>

func.func @select_scalar_which(%p: i1, %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8@X,4]}}
  %0 = arith.select %p, %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

spmd.mesh @a = <["X"=4, "Y"=2], axis_types=[explicit, explicit]>
spmd.mesh @b = <["X"=2, "Y"=4], axis_types=[explicit, explicit]>

func.func @two_meshes(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@a, [{"X"}, {}]>}, %y: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@b, [{"X"}, {}]>}) -> tensor<8x4xf32> {
  // expected-error @+1 {{Mesh for all inputs should be equal. Got one mesh: #spmd.mesh<["X"=4, "Y"=2], axis_types=[explicit, explicit]> and another mesh: #spmd.mesh<["X"=2, "Y"=4], axis_types=[explicit, explicit]>}}
  %0 = arith.addf %x, %y : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Without Explicit axes no rule runs: types show no axes.
spmd.mesh @mesh = <["X"=4, "Y"=2]>

func.func @all_auto(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"X"}, {}]>}, %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"Y"}, {}]>}) -> tensor<8x4xf32> {
  // expected-remark @+1 {{f32[8,4]}}
  %0 = arith.addf %a, %b : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
