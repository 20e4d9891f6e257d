// Tests that the watchdog ends the run whatever the devices do: device 0
// never reaches a collective (it spins forever) while device 1 waits in an
// all_reduce; with a 1 s watchdog the run fails naming the spinning device
// and tessera-run exits 1 within twice the watchdog time plus the compile
// (the test's own timeout is 60 s). A watchdog time that is not a number,
// as an option or in the environment, is an error.
// RUN: not tessera-run %s --random-inputs --watchdog-seconds 1 2>&1 | FileCheck %s
// RUN: env TESSERA_WATCHDOG_SECONDS=nan not tessera-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=ENV

// CHECK: tessera-run: error: the program failed on the emulated mesh: watchdog: no collective completed for 1 s
// CHECK-SAME: device 0
// CHECK-SAME: was still running {{.*}} after the failure and was abandoned
// ENV: tessera-run: error: cannot create the mesh x=2: TESSERA_WATCHDOG_SECONDS='nan' is not a finite number of seconds >= 0
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %forever = arith.constant 4611686018427387904 : index
    %spin = arith.cmpi eq, %i, %c0 : index
    // Device 0 runs a float recurrence 2^62 times (no closed form without
    // fast-math), device 1 none.
    %n = arith.select %spin, %forever, %c0 : index
    %one = arith.constant 1.0 : f32
    %rate = arith.constant 1.0000001 : f32
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%x = %one) -> (f32) {
      %y = arith.mulf %x, %rate : f32
      %z = arith.addf %y, %one : f32
      scf.yield %z : f32
    }
    %t = tensor.splat %acc : tensor<2xf32>
    %u = arith.addf %l, %t : tensor<2xf32>
    %s = comm.all_reduce sum %u over @mesh {"x"} : tensor<2xf32>
    spmd.return %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
