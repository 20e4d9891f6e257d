// RUN: tessera-opt %s -split-input-file -verify-diagnostics

// Tests that every kind of sharding holder reports a missing mesh, an
// unknown axis or an invalid axis list when its mesh is declared after
// it (function arguments and results, op attributes, spmd ops), and that a
// nested module does not see the meshes of the enclosing one.

// expected-error @+1 {{'func.func' op arg 0 - unknown axis name: "y"}}
func.func @arg_axis_missing_from_late_mesh(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@late, [{"y"}]>}) -> tensor<8xf32> {
  return %arg0 : tensor<8xf32>
}
spmd.mesh @late = <["x"=2]>

// -----

// expected-error @+1 {{'func.func' op result 0 - sub-axis next pre-size 4 doesn't divide the size of the full axis 2: "x":(2)2}}
func.func @result_bad_sub_axis(%arg0: tensor<7xf32>) -> (tensor<7xf32> {spmd.sharding = #spmd.sharding<@late, [{"x":(2)2}]>}) {
  return %arg0 : tensor<7xf32>
}
spmd.mesh @late = <["x"=2]>

// -----

func.func @op_attribute_late_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.negf' op result - unknown axis name: "q"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@late, [{"q"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
spmd.mesh @late = <["x"=2]>

// -----

func.func @out_sharding_late_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.negf' op result - unknown mesh: @missing}}
  %0 = arith.negf %arg0 {spmd.out_sharding = #spmd.sharding<@missing, [{"x"}]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
spmd.mesh @late = <["x"=2]>

// -----

func.func @count_checked_before_lookup(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.negf' op result shardings don't match number of values: 2 shardings vs 1 values}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@late, [{}]>, <@late, [{}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
spmd.mesh @late = <["x"=2]>

// -----

// A mesh is looked up in the nearest symbol table only: the inner module has
// no @mesh, and the outer one is not visible from inside it.
spmd.mesh @mesh = <["x"=2]>
module @inner {
  // expected-error @+1 {{'func.func' op arg 0 - unknown mesh: @mesh}}
  func.func @f(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}]>}) -> tensor<8xf32> {
    return %arg0 : tensor<8xf32>
  }
}

// -----

func.func @spmd_op_late_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op duplicate axis ref: "x"}}
  %0 = spmd.reshard %arg0 <@late, [{"x"}], replicated={"x"}> : tensor<8xf32>
  return %0 : tensor<8xf32>
}
spmd.mesh @late = <["x"=3]>
