// Device programs that diverge become errors naming the devices and ops,
// not hangs: a collective only some devices reach, and a result a manual
// computation declares replicated but computes per device.
// RUN: not tessera-run %s --entry diverge --random-inputs --watchdog-seconds 5 2>&1 | FileCheck %s --check-prefix=DIVERGE
// RUN: not tessera-run %s --entry early_exit --random-inputs --watchdog-seconds 5 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not tessera-run %s --entry varying --random-inputs 2>&1 | FileCheck %s --check-prefix=VARYING

// In @diverge, device 0 waits in the all_reduce while device 1 has gone on
// to the all_gather that the sharding constraint on the result asks for.
// In @early_exit, a whole-body shard_map, device 1 returns without a
// collective.
// DIVERGE: tessera-run: error: the program failed on the emulated mesh: devices diverged: device 0 called comm.all_reduce at "{{.*}}divergence.mlir":24:12 (sum, f32, 2 elements over {x}) but device 1 called comm.all_gather at "{{.*}}divergence.mlir":31:8 (2xf32, gather dim 0 over {x})
// EARLY: tessera-run: error: the program failed on the emulated mesh: device 1 finished without reaching comm.all_reduce at "{{.*}}divergence.mlir":{{[0-9]+}}:{{[0-9]+}} that device 0 is waiting in
// VARYING: tessera-run: error: result 0 differs between device 0 and device 1: a manual computation declares it replicated over a manual axis (its out_shardings) but computes a value that varies along it
spmd.mesh @mesh = <["x"=2]>
func.func @diverge(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    // Only device 0 calls the all_reduce.
    %r = scf.if %first -> tensor<2xf32> {
      %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2xf32>
      scf.yield %s : tensor<2xf32>
    } else {
      scf.yield %l : tensor<2xf32>
    }
    spmd.return %r : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  %n = arith.negf %0 : tensor<4xf32>
  %g = spmd.sharding_constraint %n <@mesh, [{}]> : tensor<4xf32>
  return %g : tensor<4xf32>
}

func.func @early_exit(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %r = scf.if %first -> tensor<2xf32> {
      %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2xf32>
      scf.yield %s : tensor<2xf32>
    } else {
      scf.yield %l : tensor<2xf32>
    }
    spmd.return %r : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @varying(%a: tensor<4xf32>) -> tensor<2xf32> {
  // Each device returns its own block, but out_shardings says replicated.
  // spmd-check-vma would reject it; with the check off (JAX's
  // check_vma=False) the run compares the devices' copies.
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    spmd.return %l : tensor<2xf32>
  } {spmd.check_vma = false} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
