// Calls of private functions (one called twice) from the entry; --entry
// picks a public function among several.
// RUN: python3 %S/../Inputs/npy.py iota 3 i64 %t.a.npy
// RUN: tessera-run %s --entry main --input x=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --entry main --random-inputs --check | FileCheck %s --check-prefix=CHECK-RANDOM

// square(a) + square(a + 1) on 0, 1, 2: 1, 5, 13.
// CHECK: result0: i64[3] = [1, 5, 13]
// CHECK-RANDOM: check: result0 i64[3]: bit-exact match
func.func private @square(%x: tensor<3xi64>) -> tensor<3xi64> {
  %s = arith.muli %x, %x : tensor<3xi64>
  return %s : tensor<3xi64>
}

func.func @main(%x: tensor<3xi64>) -> tensor<3xi64> {
  %one = arith.constant dense<1> : tensor<3xi64>
  %y = arith.addi %x, %one : tensor<3xi64>
  %a = call @square(%x) : (tensor<3xi64>) -> tensor<3xi64>
  %b = call @square(%y) : (tensor<3xi64>) -> tensor<3xi64>
  %s = arith.addi %a, %b : tensor<3xi64>
  return %s : tensor<3xi64>
}

func.func @other(%x: tensor<3xi64>) -> tensor<3xi64> {
  return %x : tensor<3xi64>
}
