// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.manual_computation and spmd.return is reported.

spmd.mesh @meshA = <["a"=2]>
spmd.mesh @meshB = <["b"=2]>

func.func @different_meshes(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{all in and out shardings must be bound to the same mesh or an empty mesh}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@meshA, [{}, {}]>] out_shardings=[<@meshB, [{}, {}]>] manual_axes={"a"} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @meshA = <["a"=2]>
spmd.mesh @meshB = <["b"=2]>

func.func @different_operand_meshes(%arg0: tensor<16x32xf32>, %arg1: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{operand shardings can only be bound to the same mesh or an empty mesh}}
  %0 = spmd.manual_computation(%arg0, %arg1) in_shardings=[<@meshA, [{}, {}]>, <@meshB, [{}, {}]>] out_shardings=[<@meshA, [{}, {}]>] manual_axes={} (%arg2: tensor<16x32xf32>, %arg3: tensor<16x32xf32>) {
    spmd.return %arg2 : tensor<16x32xf32>
  } : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @unknown_mesh(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op operand - unknown mesh: @meshA}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@meshA, [{?}, {?}]>] out_shardings=[<@meshA, [{?}, {?}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @meshA = <["a"=2]>

func.func @unknown_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{unknown manual axis: "b"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@meshA, [{"a"}, {}]>] out_shardings=[<@meshA, [{"a"}, {?}]>] manual_axes={"a", "b"} (%arg1: tensor<8x32xf32>) {
    spmd.return %arg1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @empty = <[]>

func.func @manual_axis_on_empty_mesh(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{unknown manual axis: "a"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@empty, [{}, {}]>] out_shardings=[<@empty, [{}, {}]>] manual_axes={"a"} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @duplicate_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{duplicate manual axis: "a"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a", "a"} (%arg1: tensor<8x32xf32>) {
    spmd.return %arg1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @no_inputs_or_outputs_with_manual_axes() {
  // expected-error @+1 {{cannot have manual_axes when there are no input/output shardings}}
  spmd.manual_computation() in_shardings=[] out_shardings=[] manual_axes={"a"} () {
    spmd.return
  } : () -> ()
  return
}

// -----

spmd.mesh @mesh = <["a"=4]>

func.func @split_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{operand sharding at index 0 cannot use a manual axis as a sub/split axis. Saw manual axes {a} and sharding #spmd.sharding<@mesh, [{"a":(1)2}, {}]>}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a":(1)2}, {}]>] out_shardings=[<@mesh, [{"a":(1)2}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
    spmd.return %arg1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=4]>

func.func @split_manual_axis_replicated(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{operand sharding at index 0 cannot use a manual axis as a sub/split axis. Saw manual axes {a, b} and sharding #spmd.sharding<@mesh, [{}, {}], replicated={"a", "b":(1)2}>}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}], replicated={"a", "b":(1)2}>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"a", "b"} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=4]>

func.func @split_manual_axis_result(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{result sharding at index 0 cannot use a manual axis as a sub/split axis}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"b":(2)2}, {}]>] manual_axes={"b"} (%arg1: tensor<16x32xf32>) {
    %1 = tensor.empty() : tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @more_operand_shardings(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op operand shardings don't match number of values: 2 shardings vs 1 values}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @fewer_operand_shardings(%arg0: tensor<16x32xf32>, %arg1: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op operand shardings don't match number of values: 1 shardings vs 2 values}}
  %0 = spmd.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg2: tensor<16x32xf32>, %arg3: tensor<16x32xf32>) {
    spmd.return %arg2 : tensor<16x32xf32>
  } : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @more_result_shardings(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op result shardings don't match number of values: 2 shardings vs 1 values}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @operand_rank_mismatch(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op operand - sharding doesn't match tensor rank: 3 != 2}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @result_rank_mismatch(%arg0: tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  // expected-error @+1 {{op result 1 - sharding doesn't match tensor rank: 1 != 2}}
  %0:2 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1, %arg1 : tensor<16x32xf32>, tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>)
  return %0#0, %0#1 : tensor<16x32xf32>, tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @unknown_axis_in_sharding(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op operand - unknown axis name: "b"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"b"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=4]>

func.func @dimension_not_divisible(%arg0: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{operand dimension size 6 is not divisible by the manual axes size 4}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%arg1: tensor<1xf32>) {
    spmd.return %arg1 : tensor<1xf32>
  } : (tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

spmd.mesh @mesh = <["a"=4]>

func.func @result_dimension_not_divisible(%arg0: tensor<8xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{result dimension size 6 is not divisible by the manual axes size 4}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, [{"a"}]>] manual_axes={"a"} (%arg1: tensor<2xf32>) {
    spmd.return %arg1 : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @operand_shape_mismatch_replicated(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{operand shape, corresponding sharding, and region operand shape at index 0 must match. Expected local shape 'tensor<16x32xf32>', actual local shape 'tensor<8x32xf32>'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={} (%arg1: tensor<8x32xf32>) {
    spmd.return %arg1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @operand_shape_mismatch_sharded(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{operand shape, corresponding sharding, and region operand shape at index 0 must match. Expected local shape 'tensor<8x32xf32>', actual local shape 'tensor<16x32xf32>'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"a"} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @result_shape_mismatch(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{result shape, corresponding sharding, and region result shape at index 0 must match. Expected local shape 'tensor<8x32xf32>', actual local shape 'tensor<16x32xf32>'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}], replicated={"a"}>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @element_type_mismatch(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{Expected local shape 'tensor<8x32xf32>', actual local shape 'tensor<8x32xi32>'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xi32>) {
    %1 = tensor.empty() : tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @global_dynamic_local_static(%arg0: tensor<?x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{Expected local shape 'tensor<?x32xf32>', actual local shape 'tensor<16x32xf32>'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<16x32xf32>) {
    %1 = tensor.empty() : tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<?x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @region_arg_not_a_tensor(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{Expected local shape 'tensor<16x32xf32>', actual local shape 'i32'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: i32) {
    %1 = tensor.empty() : tensor<16x32xf32>
    spmd.return %1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @results_number_mismatch(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{number of op results and region results must match. Op has 1 op results and 2 region results}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1, %arg1 : tensor<16x32xf32>, tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @operands_number_mismatch(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{number of op operands and region operands must match. Op has 1 op operands and 2 region operands}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @free_variables(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    // expected-error @+1 {{'arith.addf' op using value defined outside the region}}
    %1 = arith.addf %arg0, %arg1 : tensor<16x32xf32>
    spmd.return %1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @foo = <["a"=2, "b"=2]>

func.func @nested_same_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<8x32xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@foo, [{"a"}, {}]>] out_shardings=[<@foo, [{}, {}], replicated={"a"}>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
    %1 = spmd.manual_computation(%arg1) in_shardings=[<@foo, [{"b"}, {}]>] out_shardings=[<@foo, [{"b"}, {}]>] manual_axes={"b"} (%arg2: tensor<4x32xf32>) {
      // expected-error @+1 {{op operates on axis "a" which is already bound by a parent spmd.manual_computation op}}
      %2 = spmd.manual_computation(%arg2) in_shardings=[<@foo, [{}, {}]>] out_shardings=[<@foo, [{}, {}]>] manual_axes={"a"} (%arg3: tensor<4x32xf32>) {
        spmd.return %arg3 : tensor<4x32xf32>
      } : (tensor<4x32xf32>) -> tensor<4x32xf32>
      spmd.return %2 : tensor<4x32xf32>
    } : (tensor<8x32xf32>) -> tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @nested_in_sharding_uses_parent_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
    // expected-error @+1 {{op operand - operates on axis "a" which is already bound by a parent spmd.manual_computation op}}
    %1 = spmd.manual_computation(%arg1) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"b"} (%arg2: tensor<8x32xf32>) {
      spmd.return %arg2 : tensor<8x32xf32>
    } : (tensor<8x32xf32>) -> tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @body_op_sharding_uses_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
    // expected-error @+1 {{op result - operates on axis "a" which is already bound by a parent spmd.manual_computation op}}
    %1 = arith.negf %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"a"}]>]>} : tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @free_axis_before_manual_axis(%arg0: tensor<16x32xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{op operand sharding at index 0 must have all manual axes come before free axes in its dimension sharding at index 1. Saw manual axis "b" after free axis "a"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {"a", "b"}]>] out_shardings=[<@mesh, [{}, {}], replicated={"b"}>] manual_axes={"b"} (%arg1: tensor<16x16xf32>) {
    spmd.return %arg1 : tensor<16x16xf32>
  } : (tensor<16x32xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>

func.func @free_axis_before_manual_axis_result(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{op result sharding at index 0 must have all manual axes come before free axes in its dimension sharding at index 0. Saw manual axis "b" after free axis "a"}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{"a", "b"}, {}]>] manual_axes={"b"} (%arg1: tensor<16x32xf32>) {
    %1 = tensor.empty() : tensor<8x32xf32>
    spmd.return %1 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @return_outside_spmd_region(%arg0: tensor<8xf32>) {
  // expected-error @+1 {{'spmd.return' op expects parent op to be one of 'spmd.manual_computation, spmd.auto_axes, spmd.explicit_axes'}}
  spmd.return %arg0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @missing_in_shardings(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{expected 'in_shardings'}}
  %0 = spmd.manual_computation(%arg0) out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @operand_not_ranked(%arg0: tensor<*xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op operand - only ranked tensors can have a sharding. type: 'tensor<*xf32>'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<*xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>
spmd.mesh @maximal = <[], device_ids=[0]>

func.func @maximal_sharding(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{operand sharding at index 0 is a maximal sharding, which is not supported by spmd.manual_computation}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@maximal, []>] out_shardings=[<@maximal, []>] manual_axes={} (%arg1: tensor<16x32xf32>) {
    spmd.return %arg1 : tensor<16x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @generic_form_without_block(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %0 = "spmd.manual_computation"(%arg0) <{in_shardings = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>, manual_axes = #spmd.manual_axes<{}>, out_shardings = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>}> ({
  }) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @non_tensor_changes_type(%arg0: i32) -> i32 {
  // expected-error @+1 {{'spmd.manual_computation' op operand type and region operand type at index 0 must match for a value that is not a ranked tensor: 'i32' vs 'i64'}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, []>] out_shardings=[<@mesh, []>] manual_axes={"a"} (%a: i64) {
    %c = arith.trunci %a : i64 to i32
    spmd.return %c : i32
  } : (i32) -> i32
  return %0 : i32
}

// -----

spmd.mesh @mesh = <["a"=2]>

func.func @non_tensor_with_dims(%arg0: i32) -> i32 {
  // expected-error @+1 {{'spmd.manual_computation' op operand - non-shaped tensors can only have a sharding with rank 0 and no replicated or unreduced axes.}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"a"}]>] out_shardings=[<@mesh, []>] manual_axes={"a"} (%a: i32) {
    spmd.return %a : i32
  } : (i32) -> i32
  return %0 : i32
}
