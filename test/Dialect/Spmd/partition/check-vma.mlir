// RUN: tessera-opt %s --spmd-check-vma --split-input-file --verify-diagnostics | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

// Collectives make values invariant: psum, all_gather.
// CHECK-LABEL: func @replicated_by_collectives
func.func @replicated_by_collectives(%a: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<8x4xf32>) {
  %0:2 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x", "y"}, {}]>]
      out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>] manual_axes={"x", "y"}
      (%l: tensor<2x4xf32>) {
    %s = comm.all_reduce sum %l over @mesh {"x", "y"} : tensor<2x4xf32>
    %t = comm.all_gather %s over @mesh {"x", "y"} dim 0 : tensor<2x4xf32> -> tensor<8x4xf32>
    %c = arith.constant dense<1.0> : tensor<4x4xf32>
    spmd.return %c, %t : tensor<4x4xf32>, tensor<8x4xf32>
  } : (tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<8x4xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<8x4xf32>
}

// A value varying along "x" may be returned sharded or unreduced on "x".
// CHECK-LABEL: func @mentioned
func.func @mentioned(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %0:2 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>, <@mesh, [{}], unreduced={"x"}>] manual_axes={"x"}
      (%l: tensor<4xf32>) {
    %n = arith.negf %l : tensor<4xf32>
    spmd.return %n, %n : tensor<4xf32>, tensor<4xf32>
  } : (tensor<8xf32>) -> (tensor<8xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<8xf32>, tensor<4xf32>
}

// The check can be turned off.
// CHECK-LABEL: func @unchecked
func.func @unchecked(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    spmd.return %l : tensor<4xf32>
  } {spmd.check_vma = false} : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Free axes are not checked.
// CHECK-LABEL: func @free_axes
func.func @free_axes(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"y"}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<8xf32>) {
    spmd.return %l : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @varying_input(%a: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'spmd.manual_computation' op was given out_shardings which require replication which can't be statically inferred given the mesh: out_shardings[0] is #spmd.sharding<@mesh, [{}]> which implies that the corresponding output value is replicated across mesh axis 'x', but could not infer replication over any axes}}
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    // expected-note @+1 {{the output value, possibly varying over {x}, is defined here}}
    %n = arith.negf %l : tensor<4xf32>
    spmd.return %n : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2]>

func.func @axis_index(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{out_shardings[0] is #spmd.sharding<@mesh, [{"y"}]> which implies that the corresponding output value is only varying across mesh axes {y} and not {x}, but it was inferred to be possibly varying over {x,y}}}
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"y"}]>]
      out_shardings=[<@mesh, [{"y"}]>] manual_axes={"x", "y", "z"} (%l: tensor<2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %b = tensor.splat %f : tensor<2xf32>
    // expected-note @+1 {{possibly varying over {x,y}}}
    %s = arith.addf %l, %b : tensor<2xf32>
    spmd.return %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// A permute keeps values varying; a loop carries it to the result.
func.func @permute_loop(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{replicated across mesh axis 'x'}}
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // expected-note @+1 {{is defined here}}
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %l) -> tensor<4xf32> {
      %p = comm.permute %t over @mesh {"x"} pairs [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<4xf32>
      scf.yield %p : tensor<4xf32>
    }
    spmd.return %r : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @bad_flag(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.negf' op 'spmd.check_vma' must be a boolean on an 'spmd.manual_computation'}}
  %0 = arith.negf %a {spmd.check_vma = false} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
