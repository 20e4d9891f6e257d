// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.all_slice is reported.

spmd.mesh @mesh1 = <["x"=2, "y"=2]>
spmd.mesh @mesh2 = <["a"=2, "b"=2]>

// expected-note @+1 {{operand mesh: #spmd.mesh<["a"=2, "b"=2]>}}
func.func @incompatible_meshes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh2, [{"a"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result mesh does not match operand mesh}}
  %0 = spmd.all_slice [{}, {"b"}] %arg0 out_sharding=<@mesh1, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @invalid_out_sharding(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op duplicate axis ref: "x"}}
  %0 = spmd.all_slice [{"y"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {"x", "x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @slicing_axes_can_be_merged(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op two consecutive sub-axes can be merged: "x":(1)2, "x":(2)2}}
  %0 = spmd.all_slice [{}, {"x":(1)2, "x":(2)2}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @duplicate_slicing_axes_across_dims(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op duplicate axis ref: "x"}}
  %0 = spmd.all_slice [{"y", "x"}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @full_and_sub_axis(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op both sub-axis and full-axis are used for axis name: "x"}}
  %0 = spmd.all_slice [{"x":(1)2}, {"x"}] %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @slicing_axes_rank_zero(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding has rank 2 but collective axes has rank 1}}
  %0 = spmd.all_slice [{}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @incompatible_slicing_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding doesn't match expected sharding ["x", "y"] on dimension 1}}
  %0 = spmd.all_slice [{}, {"x", "y"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @too_many_slicing_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding doesn't match expected sharding ["x", "y"] on dimension 0}}
  %0 = spmd.all_slice [{"x", "y"}, {}] %arg0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @incompatible_result_sub_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding doesn't match expected sharding ["x"] on dimension 1}}
  %0 = spmd.all_slice [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x":(1)2}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @slicing_already_sharded_axis(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding doesn't match expected sharding ["x", "x"] on dimension 1}}
  %0 = spmd.all_slice [{}, {"x"}] %arg0 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=8, "y"=2]>

func.func @sub_axes_that_do_not_merge(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x":(1)2}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding doesn't match expected sharding ["x":(1)2, "x":(4)2] on dimension 1}}
  %0 = spmd.all_slice [{}, {"x":(4)2}] %arg0 out_sharding=<@mesh, [{"y"}, {"x":(1)4}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unsharded_operand_is_replicated(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op result sharding doesn't match expected sharding ["x"] on dimension 0}}
  %0 = spmd.all_slice [{"x"}, {}] %arg0 out_sharding=<@mesh, [{"y", "x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @introduces_unreduced_axes(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<16x8xf32> {
  // expected-error @+1 {{'spmd.all_slice' op cannot add new unreduced axis 'z'.}}
  %0 = spmd.all_slice [{"x"}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}], unreduced={"z"}> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @unquoted_slicing_axis(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+3 {{failed to parse axis list which is expected to be an `ArrayRef<AxisRefAttr>`}}
  // expected-error @+2 {{failed to parse Spmd_AxisRef parameter 'name' which is to be a `::llvm::StringRef`}}
  // expected-error @+1 {{expected string}}
  %0 = spmd.all_slice [{x}, {}] %arg0 out_sharding=<@mesh, [{"x"}, {}]> : tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
