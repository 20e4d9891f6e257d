// Tests that a failed cf.assert on an emulated device reports its message,
// its location and the device through the runtime, ends that device and
// releases the others (waiting in a collective), and that stdout printed
// before the failure is kept; with --checks an out-of-bounds
// tensor.extract is an assertion with the op's location instead of a read
// out of bounds.
// RUN: not tessera-run %s --entry assert_on_one --random-inputs 2>&1 | FileCheck %s --check-prefix=ASSERT
// RUN: python3 %S/../Inputs/npy.py iota 4 f32 %t.data.npy
// RUN: python3 %S/../Inputs/npy.py iota '' i64 %t.index.npy
// RUN: not tessera-run %s --entry lookup --input 0=%t.data.npy --input 1=%t.index.npy --checks 2>&1 | FileCheck %s --check-prefix=BOUNDS

// ASSERT: tessera-run: @assert_on_one on x=2 (2 devices)
// ASSERT: tessera-run: error: the program failed on the emulated mesh: device 1: assertion failed: {{.*}}asserts.mlir:[[@LINE+10]]:5: the last device refuses
// BOUNDS: tessera-run: error: the program failed on the emulated mesh: device {{[01]}}: assertion failed: {{.*}}asserts.mlir:[[@LINE+22]]:8: tensor.extract: index 0 out of bounds
spmd.mesh @mesh = <["x"=2]>
func.func @assert_on_one(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<2xf32>) {
    %i = comm.axis_index over @mesh {"x"} : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    // Device 1 fails; device 0 waits for it in the all_reduce.
    cf.assert %first, "the last device refuses"
    %s = comm.all_reduce sum %l over @mesh {"x"} : tensor<2xf32>
    spmd.return %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// Index 16 (the input 0, plus 16) of a 4-element tensor; both devices run
// it, and either may fail first.
func.func @lookup(%t: tensor<4xf32>, %i: tensor<i64>) -> tensor<f32> {
  %j = tensor.extract %i[] : tensor<i64>
  %c16 = arith.constant 16 : i64
  %j16 = arith.addi %j, %c16 : i64
  %k = arith.index_cast %j16 : i64 to index
  %v = tensor.extract %t[%k] : tensor<4xf32>
  %r = tensor.from_elements %v : tensor<f32>
  return %r : tensor<f32>
}
