// RUN: tessera-opt %s --split-input-file --spmd-insert-reshards=check-vma=true --verify-diagnostics | FileCheck %s
// RUN: tessera-opt %s --split-input-file --spmd-insert-reshards | FileCheck %s --check-prefix=OFF
// RUN: tessera-opt %s --split-input-file --tessera-partition --verify-diagnostics | FileCheck %s --check-prefix=PIPELINE

// spmd-insert-reshards with check-vma=true checks each manual computation
// as spmd-check-vma does, when its walk reaches it and before it changes
// anything in it. tessera-partition runs it so. Without the option the
// pass does not check.

spmd.mesh @mesh = <["x"=2, "y"=2]>

// A manual computation that passes is resharded as usual: the operand
// becomes sharded over "x" as in_shardings says.
// CHECK-LABEL: func @passes
// CHECK: spmd.reshard %arg0 <@mesh, [{"x"}]>
// OFF-LABEL: func @passes
// PIPELINE-LABEL: func @passes
func.func @passes(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<8xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    %s = comm.all_gather %l over @mesh {"x"} dim 0 : tensor<4xf32> -> tensor<8xf32>
    spmd.return %s : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// A result declared replicated over "x" that varies along it. Without the
// option, the pass reshards the operand and goes on.
// OFF-LABEL: func @varying
// OFF: spmd.reshard %arg0 <@mesh, [{"x"}]>
func.func @varying(%a: tensor<8xf32>) -> tensor<4xf32> {
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

spmd.mesh @mesh = <["x"=2, "y"=2]>

// Both the outer and the nested computation are wrong: the nested one is
// reported, as spmd-check-vma (which goes innermost first) reports it.
func.func @nested(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}, {"y"}]>]
      out_shardings=[<@mesh, [{}, {}]>] manual_axes={"x"} (%l: tensor<4x8xf32>) {
    // expected-error @+1 {{out_shardings[0] is #spmd.sharding<@mesh, [{}, {}]> which implies that the corresponding output value is replicated across mesh axis 'y'}}
    %1 = spmd.manual_computation(%l) in_shardings=[<@mesh, [{}, {"y"}]>]
        out_shardings=[<@mesh, [{}, {}]>] manual_axes={"y"} (%m: tensor<4x4xf32>) {
      // expected-note @+1 {{is defined here}}
      %n = arith.negf %m : tensor<4x4xf32>
      spmd.return %n : tensor<4x4xf32>
    } : (tensor<4x8xf32>) -> tensor<4x4xf32>
    spmd.return %1 : tensor<4x4xf32>
  } : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// spmd.check_vma = false skips the check (JAX's check_vma=False).
// CHECK-LABEL: func @unchecked
// CHECK: spmd.manual_computation
// PIPELINE-LABEL: func @unchecked
// PIPELINE: arith.negf %arg0 : tensor<4xf32>
func.func @unchecked(%a: tensor<8xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<4xf32>) {
    %n = arith.negf %l : tensor<4xf32>
    spmd.return %n : tensor<4xf32>
  } {spmd.check_vma = false} : (tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
