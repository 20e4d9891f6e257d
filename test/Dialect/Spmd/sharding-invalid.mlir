// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics

// Tests every invariant of #spmd.sharding and #spmd.sharding_per_value as
// attached to function arguments, results and ops, and the parse errors of
// the sharding syntax.

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - unknown mesh: @other}}
func.func @unknown_mesh(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@other, [{}, {"a"}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unknown_mesh_op(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - unknown mesh: @other}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@other, [{}, {"a"}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - unknown axis name: "z"}}
func.func @unknown_axis(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"z"}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unknown_axis_inlined(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - unknown axis name: "z"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<mesh<["a"=2]>, [{}, {"z"}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unknown_replicated_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - unknown axis name: "z"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], replicated={"z"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unknown_unreduced_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - unknown axis name: "z"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"z"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @rank_mismatch(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{op result - sharding doesn't match tensor rank: 2 != 1}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"b"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - sharding doesn't match tensor rank: 1 != 2}}
func.func @rank_mismatch_dynamic(%arg0: tensor<?x?xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_in_dim(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"a", "a"}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_across_dims(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}, {"a"}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_dim_and_replicated(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"a"}], replicated={"a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_dim_and_unreduced(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"a"}], unreduced={"a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_replicated_and_unreduced(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], replicated={"a"}, unreduced={"a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_in_replicated(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], replicated={"a", "a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_in_unreduced(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "b"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"b", "b"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @duplicate_sub_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - duplicate axis ref: "a":(1)2}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)2}, {"a":(1)2}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unordered_replicated(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - replicated axes are not ordered w.r.t. mesh}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], replicated={"b", "a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unordered_unreduced(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - unreduced axes are not ordered w.r.t. mesh}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"c", "a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unordered_replicated_sub_axes(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - replicated axes are not ordered w.r.t. mesh}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], replicated={"a":(2)2, "a":(1)2}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @closed_empty_priority(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - dim 1 is empty and closed but has a priority}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}, {}p3]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - dim 0 is empty and closed but has a priority}}
func.func @closed_empty_priority_arg(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}p0, {}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_axis_pre_size_zero(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - sub-axis pre-size must be at least 1: "a":(0)2}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(0)2}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_axis_size_one(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - sub-axis sizes must be greater than 1: "a":(1)1}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)1}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_axis_not_dividing(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - sub-axis next pre-size 3 doesn't divide the size of the full axis 4: "a":(1)3}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)3}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_axis_beyond_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - sub-axis next pre-size 8 doesn't divide the size of the full axis 4: "a":(4)2}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(4)2}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_axis_full_size(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - sub-axis size is equal to the full axis size: "a":(1)4}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)4}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=8]>

func.func @sub_axes_mergeable(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - two consecutive sub-axes can be merged: "a":(1)2, "a":(2)2}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)2, "a":(2)2}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=8]>

func.func @sub_axes_overlap(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - overlapping sub-axes: "a":(1)4, "a":(2)2}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(1)4}, {"a":(2)2}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=16]>

func.func @sub_axes_overlap_replicated(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - overlapping sub-axes: "a":(1)4, "a":(2)4}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(2)4}, {}], replicated={"a":(1)4}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_and_full_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - both sub-axis and full-axis are used for axis name: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}, {"a":(1)2}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @sub_and_full_axis_unreduced(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - both sub-axis and full-axis are used for axis name: "a"}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a":(2)2}, {}], unreduced={"a"}>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @size_zero_dim_sharded(%arg0: tensor<0x8xf32>) -> tensor<0x8xf32> {
  // expected-error @+1 {{op result - dim 0 of size 0 cannot be sharded}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}, {}]>]>} : tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

spmd.mesh @maximal = <[], device_ids=[0]>

func.func @maximal_with_rank(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{op result - a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@maximal, [{}, {}]>]>} : tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - only ranked tensors can have a sharding}}
func.func @unranked(%arg0: tensor<*xf32> {spmd.sharding = #spmd.sharding<@mesh, []>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - non-shaped tensors can only have a sharding with rank 0 and no replicated or unreduced axes}}
func.func @non_shaped_rank(%arg0: i32 {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - non-shaped tensors can only have a sharding with rank 0 and no replicated or unreduced axes}}
func.func @non_shaped_replicated(%arg0: i32 {spmd.sharding = #spmd.sharding<@mesh, [], replicated={"a"}>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - should have a sharding attribute of type TensorShardingAttr}}
func.func @wrong_attr_on_arg(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op result 1 - unknown axis name: "z"}}
func.func @result_failure(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"z"}]>}) {
  return %arg0, %arg0 : tensor<8xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @wrong_attr_on_op(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{should have a sharding attribute of type TensorShardingPerValueAttr for 'spmd.sharding'}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding<@mesh, [{"a"}]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @num_shardings_mismatch(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{op result shardings don't match number of values: 2 shardings vs 1 values}}
  %0 = arith.negf %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}]>, <@mesh, [{"a"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @multi_result_prefix(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{op result 1 - unknown axis name: "z"}}
  %0:2 = "test.two"(%arg0) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}]>, <@mesh, [{"z"}]>]>} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4]>
spmd.mesh @other = <["x"=4]>

func.func @different_meshes(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{op result shardings can only be bound to the same mesh or an empty mesh}}
  %0:2 = "test.two"(%arg0) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"a"}]>, <@other, [{"x"}]>]>} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<8xf32>
}

// -----

func.func @different_inlined_meshes(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{op result shardings can only be bound to the same mesh or an empty mesh}}
  %0:2 = "test.two"(%arg0) {spmd.sharding = #spmd.sharding_per_value<[<mesh<["a"=2]>, [{"a"}]>, <mesh<["b"=2]>, [{"b"}]>]>} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @out_sharding_single_multi_result(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.out_sharding' given as a single #spmd.sharding needs exactly one result, got 2}}
  %0:2 = "test.two"(%arg0) {spmd.out_sharding = #spmd.sharding<@mesh, [{"a"}]>} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %0#0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @out_sharding_invalid(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{op result - unknown axis name: "q"}}
  %0 = arith.negf %arg0 {spmd.out_sharding = #spmd.sharding<@mesh, [{"q"}]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @unknown_spmd_attr(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown spmd attribute 'spmd.shardings'}}
  %0 = arith.negf %arg0 {spmd.shardings = 1 : i32} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

// expected-error @+1 {{'func.func' op arg 0 - unknown spmd attribute 'spmd.shard'}}
func.func @unknown_spmd_arg_attr(%arg0: tensor<8xf32> {spmd.shard = 1 : i32}) {
  return
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @debug_attr_kind(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.sharding_origins' must be a dictionary or array attribute}}
  %0 = arith.negf %arg0 {spmd.sharding_origins = 1 : i32} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=4, "b"=2, "c"=2]>

func.func @debug_origin_name_kind(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.sharding_origin_name' must be a string attribute}}
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{"a"}]> {spmd.sharding_origin_name = 1 : i32} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{expecting priority in format 'p<number>', got: q1}}
func.func private @bad_priority() attributes {s = #spmd.sharding<@mesh, [{"a"}q1]>}

// -----

// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'unreduced_axes'}}
// expected-error @+1 {{unknown unreduced kind 'prod', expected 'sum', 'max' or 'min'}}
func.func private @bad_unreduced_kind() attributes {s = #spmd.sharding<@mesh, [{}], unreduced=prod{"a"}>}

// -----

// expected-error @+1 {{expected a mesh symbol (@name) or an inlined mesh (mesh<...>)}}
func.func private @bad_mesh_ref() attributes {s = #spmd.sharding<"mesh", [{}]>}

// -----

// expected-error @+1 {{failed to parse Spmd_TensorSharding, expected valid named axis list after comma}}
func.func private @bad_trailing_keyword() attributes {s = #spmd.sharding<@mesh, [{}], replicate={"a"}>}

// -----

// expected-error @+1 {{failed to parse Spmd_TensorSharding, expected valid named axis list after comma}}
func.func private @replicated_twice() attributes {s = #spmd.sharding<@mesh, [{}], replicated={"a"}, replicated={"b"}>}

// -----

// expected-error @+1 {{failed to parse Spmd_TensorSharding, expected valid named axis list after comma}}
func.func private @unreduced_twice() attributes {s = #spmd.sharding<@mesh, [{}], unreduced={"a"}, unreduced={"b"}>}

// -----

// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{expecting integer priority, got: p9999999999999999999}}
func.func private @priority_overflow() attributes {s = #spmd.sharding<@mesh, [{"a"}p9999999999999999999]>}

// -----

// expected-error @+2 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+1 {{priorities with leading zeros are not allowed, got: p01}}
func.func private @priority_leading_zero() attributes {s = #spmd.sharding<@mesh, [{"a"}p01]>}

// -----

// expected-error @+3 {{failed to parse Spmd_TensorSharding parameter 'dim_shardings' which is to be a `::llvm::ArrayRef<DimensionShardingAttr>`}}
// expected-error @+2 {{failed to parse Spmd_AxisRef parameter 'name' which is to be a `::llvm::StringRef`}}
// expected-error @+1 {{expected string}}
func.func private @unquoted_axis() attributes {s = #spmd.sharding<@mesh, [{a}]>}

// -----

// expected-error @+1 {{duplicate axis name: "a"}}
func.func private @bad_inlined_mesh() attributes {s = #spmd.sharding<mesh<["a"=2, "a"=2]>, [{}]>}

// -----

spmd.mesh @mesh = <["x"=2]>

// Tests that an op may not carry a spmd.sharding and a spmd.out_sharding
// that give a result two different shardings.
func.func @sharding_and_out_sharding_disagree(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'math.exp' op 'spmd.sharding' and 'spmd.out_sharding' disagree on result 0: #spmd.sharding<@mesh, [{"x"}]> vs #spmd.sharding<@mesh, [{}]>}}
  %0 = math.exp %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>, spmd.out_sharding = #spmd.sharding<@mesh, [{}]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

// Tests that an op may carry both when they agree.
func.func @sharding_and_out_sharding_agree(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = math.exp %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>, spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that spmd.original_func_name (spmd-flatten-call-graph's) is a
// string on a function.
// expected-error @+1 {{'func.func' op 'spmd.original_func_name' must be a string attribute on a function}}
func.func private @copy(%arg0: tensor<8xf32>) -> tensor<8xf32> attributes {spmd.original_func_name = 3 : i32} {
  return %arg0 : tensor<8xf32>
}
