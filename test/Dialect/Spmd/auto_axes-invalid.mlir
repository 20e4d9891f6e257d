// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// Tests that every verifier rule of spmd.auto_axes and spmd.explicit_axes is reported.

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_missing_out_shardings(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op Missing required keyword argument: 'out_shardings'}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_missing_in_shardings(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op Missing required keyword argument: 'in_shardings'}}
  %0 = spmd.explicit_axes(%arg0) axes={"x"} (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_too_many_out_shardings(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op result shardings don't match number of values: 2 shardings vs 1 values}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{}]>, <@mesh, [{}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_too_few_in_shardings(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op operand shardings don't match number of values: 1 shardings vs 2 values}}
  %0 = spmd.explicit_axes(%arg0, %arg1) axes={"x"} in_shardings=[<@mesh, [{"x"}]>] (%arg2: tensor<8xf32>, %arg3: tensor<8xf32>) {
    spmd.return %arg2 : tensor<8xf32>
  } : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_invalid_out_sharding(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op result - sharding doesn't match tensor rank: 2 != 1}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{}, {}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_unknown_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op unknown axis name: "z"}}
  %0 = spmd.auto_axes(%arg0) axes={"z"} out_shardings=[<@mesh, [{}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_duplicate_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op duplicate axis name: "x"}}
  %0 = spmd.explicit_axes(%arg0) axes={"x", "y", "x"} in_shardings=[<@mesh, [{"x"}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @auto_axes_without_mesh() {
  // expected-error @+1 {{'spmd.auto_axes' op cannot have axes when there are no out_shardings on a mesh with axes}}
  spmd.auto_axes() axes={"x"} out_shardings=[] () {
    spmd.return
  } : () -> ()
  return
}

// -----

spmd.mesh @empty = <[]>

func.func @explicit_axes_on_empty_mesh(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op cannot have axes when there are no in_shardings on a mesh with axes}}
  %0 = spmd.explicit_axes(%arg0) axes={"x"} in_shardings=[<@empty, [{}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_from_manual(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{axis "x" made manual here}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%arg1: tensor<4xf32>) {
    // expected-error @+1 {{'spmd.auto_axes' op Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not allowed (axis "x" is manual here)}}
    %1 = spmd.auto_axes(%arg1) axes={"x"} out_shardings=[<@mesh, [{"y"}]>] (%arg2: tensor<4xf32>) {
      spmd.return %arg2 : tensor<4xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    spmd.return %1 : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[manual, auto]>

func.func @explicit_from_manual_mesh_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op Going from `Manual` AxisType to `Auto` or `Explicit` AxisType is not allowed (axis "x" is manual here)}}
  %0 = spmd.explicit_axes(%arg0) axes={"x", "y"} in_shardings=[<@mesh, [{"y"}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @auto_out_sharding_uses_auto_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op out_shardings passed to spmd.auto_axes cannot contain axis names that are of type Auto or Manual. Got sharding #spmd.sharding<@mesh, [{"y"}]> at index 0 with axis name: "y" of type: Auto}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{"y"}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_out_sharding_uses_axis_auto_outside(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = spmd.auto_axes(%arg0) axes={"y"} out_shardings=[<@mesh, [{}, {"y"}]>] (%arg1: tensor<8x8xf32>) {
    // expected-error @+1 {{'spmd.auto_axes' op out_shardings passed to spmd.auto_axes cannot contain axis names that are of type Auto or Manual. Got sharding #spmd.sharding<@mesh, [{"x"}, {"y"}]> at index 0 with axis name: "y" of type: Auto}}
    %1 = spmd.auto_axes(%arg1) axes={"x"} out_shardings=[<@mesh, [{"x"}, {"y"}]>] (%arg2: tensor<8x8xf32>) {
      spmd.return %arg2 : tensor<8x8xf32>
    } : (tensor<8x8xf32>) -> tensor<8x8xf32>
    spmd.return %1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, manual]>

func.func @auto_unreduced_uses_manual_mesh_axis(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op out_shardings passed to spmd.auto_axes cannot contain axis names that are of type Auto or Manual. Got sharding #spmd.sharding<@mesh, [{"x"}], unreduced={"y"}> at index 0 with axis name: "y" of type: Manual}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{"x"}], unreduced={"y"}>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_in_sharding_uses_unlisted_auto_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op in_shardings passed to spmd.explicit_axes cannot contain axis names that are of type Auto or Manual. Got sharding #spmd.sharding<@mesh, [{"x"}, {"y"}]> at index 0 with axis name: "y" of type: Auto}}
  %0 = spmd.explicit_axes(%arg0) axes={"x"} in_shardings=[<@mesh, [{"x"}, {"y"}]>] (%arg1: tensor<8x8xf32>) {
    spmd.return %arg1 : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_out_sharding_uses_parent_manual_axis(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-note @+1 {{parent bounding this axis as manual}}
  %0 = spmd.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<4x8xf32>) {
    // expected-error @+1 {{'spmd.auto_axes' op result - operates on axis "x" which is already bound by a parent spmd.manual_computation op}}
    %1 = spmd.auto_axes(%arg1) axes={"y"} out_shardings=[<@mesh, [{"x"}, {}]>] (%arg2: tensor<4x8xf32>) {
      spmd.return %arg2 : tensor<4x8xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32>
    spmd.return %1 : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_block_argument_count(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op number of block arguments must match the number of operands: 2 != 1}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{}]>] (%arg1: tensor<8xf32>, %arg2: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2], axis_types=[explicit, explicit]>

func.func @auto_block_argument_type(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.auto_axes' op expected the type of the 0'th block argument to match the type of the corresponding operand: 'tensor<4xf32>' vs 'tensor<8xf32>'}}
  %0 = spmd.auto_axes(%arg0) axes={"x"} out_shardings=[<@mesh, [{}]>] (%arg1: tensor<4xf32>) {
    %1 = tensor.empty() : tensor<8xf32>
    spmd.return %1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_returned_value_count(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op number of returned values must match the number of results: 2 != 1}}
  %0 = spmd.explicit_axes(%arg0) axes={"x"} in_shardings=[<@mesh, [{"x"}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1, %arg1 : tensor<8xf32>, tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_returned_value_type(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op expected the type of the 0'th returned value to match the type of the corresponding result: 'tensor<8xi32>' vs 'tensor<8xf32>'}}
  %0 = spmd.explicit_axes(%arg0) axes={"x"} in_shardings=[<@mesh, [{"x"}]>] (%arg1: tensor<8xf32>) {
    %1 = tensor.empty() : tensor<8xi32>
    spmd.return %1 : tensor<8xi32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_free_variables(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = spmd.explicit_axes(%arg0) axes={"x"} in_shardings=[<@mesh, [{"x"}]>] (%arg1: tensor<8xf32>) {
    // expected-error @+1 {{'arith.addf' op using value defined outside the region}}
    %1 = arith.addf %arg0, %arg1 : tensor<8xf32>
    spmd.return %1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @auto_axes_missing_axes(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected 'axes'}}
  %0 = spmd.auto_axes(%arg0) out_shardings=[<@mesh, [{}]>] (%arg1: tensor<8xf32>) {
    spmd.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// The malformed explicit_axes op is reported; its user, which would read the
// result sharding of the malformed op, must not crash.
func.func @user_of_explicit_axes_without_block(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %0 = "spmd.explicit_axes"(%arg0) <{axes = ["x"], in_shardings = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>}> ({
  }) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = spmd.all_gather [{"x"}] %0 out_sharding=<@mesh, [{}]> : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @explicit_axes_without_block(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.explicit_axes' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %0 = "spmd.explicit_axes"(%arg0) <{axes = ["x"], in_shardings = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>}> ({
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
