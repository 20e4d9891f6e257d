// Tests that tessera-run compiles only the functions the entry reaches (its
// callees, transitively), at every LLVM optimization level, with the same
// results.
// RUN: tessera-run %s --random-inputs --emit=mlir | FileCheck %s --check-prefix=EMIT
// RUN: tessera-run %s --entry other --random-inputs --emit=mlir | FileCheck %s --check-prefix=OTHER
// RUN: tessera-run %s --random-inputs --seed 4 --check --opt-level 0 | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 4 --check --opt-level 1 | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 4 --check --opt-level 3 | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 4 --emit=llvm --opt-level 0 | FileCheck %s --check-prefix=LLVM

// EMIT-DAG: llvm.func @main
// EMIT-DAG: llvm.func @square
// EMIT-DAG: llvm.func @plus_one
// EMIT-NOT: @other
// OTHER-DAG: llvm.func @other
// OTHER-NOT: @square
// OTHER-NOT: @plus_one
// OTHER-NOT: @main(
// The same values at each level: (a * a + 1) for a in [-8, 8].
// CHECK: result0: i32[8] = [17, 2, 5, 50, 5, 2, 2, 17]
// CHECK: check: all 1 results match the single-device reference
// At -O0 the call to the callee stays a call.
// LLVM: call {{.*}}@square
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xi32> {
  %0 = call @square(%a) : (tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}
func.func private @square(%a: tensor<8xi32>) -> tensor<8xi32> {
  %0 = arith.muli %a, %a : tensor<8xi32>
  %1 = call @plus_one(%0) : (tensor<8xi32>) -> tensor<8xi32>
  return %1 : tensor<8xi32>
}
func.func private @plus_one(%a: tensor<8xi32>) -> tensor<8xi32> {
  %c = arith.constant dense<1> : tensor<8xi32>
  %0 = arith.addi %a, %c : tensor<8xi32>
  return %0 : tensor<8xi32>
}
func.func @other(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
