// A device whose compiled code faults stops with a one-line error naming
// the device and the signal (the runtime's handlers catch it on the device
// thread), and tessera-run exits with 1 instead of crashing.
// RUN: python3 %S/../Inputs/npy.py iota 4 i32 %t.iota.npy
// RUN: python3 %S/../Inputs/npy.py raw '<i4' 4 %t.zeros.npy 16
// RUN: not tessera-run %s --input 0=%t.iota.npy --input 1=%t.zeros.npy 2>&1 | FileCheck %s
// RUN: not tessera-run %s --input 0=%t.iota.npy --input 1=%t.zeros.npy --checks 2>&1 | FileCheck %s --check-prefix=CHECKS
// CHECK: tessera-run: error: the program failed on the emulated mesh: device 0: SIGFPE (integer divide by zero) in @main at pc 0x{{[0-9a-f]+}}
// With --checks the division is guarded: an assertion with its location.
// CHECKS: tessera-run: error: the program failed on the emulated mesh: device 0: assertion failed: {{.*}}runtime-faults.mlir:[[@LINE+3]]:8: arith.divsi: division by zero
// CHECKS-NOT: SIGFPE
func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arith.divsi %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
