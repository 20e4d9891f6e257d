// Integer arithmetic is bit-exact: division and remainder (signed), shifts,
// min/max, and a while loop computing Fibonacci numbers.
// RUN: python3 %S/../Inputs/npy.py iota 6 i32 %t.a.npy
// RUN: tessera-run %s --input 0=%t.a.npy --print-results | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 52 --check | FileCheck %s --check-prefix=CHECK-RANDOM

// (a - 3) / 2 and (a - 3) % 2 with C semantics (toward zero).
// CHECK: result0: i32[6] = [-1, -1, 0, 0, 0, 1]
// CHECK-NEXT: result1: i32[6] = [-1, 0, -1, 0, 1, 0]
// a << 2 | 1, then max(min(x, 13), 5).
// CHECK-NEXT: result2: i32[6] = [5, 5, 9, 13, 13, 13]
// Fibonacci(a) by iteration.
// CHECK-NEXT: result3: i32[6] = [0, 1, 1, 2, 3, 5]
// CHECK-RANDOM: check: all 4 results match the single-device reference
#id = affine_map<(i) -> (i)>
func.func @main(%a: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
  %three = arith.constant dense<3> : tensor<6xi32>
  %two = arith.constant dense<2> : tensor<6xi32>
  %one = arith.constant dense<1> : tensor<6xi32>
  %b = arith.subi %a, %three : tensor<6xi32>
  %q = arith.divsi %b, %two : tensor<6xi32>
  %r = arith.remsi %b, %two : tensor<6xi32>
  %sh = arith.shli %a, %two : tensor<6xi32>
  %o = arith.ori %sh, %one : tensor<6xi32>
  %hi = arith.constant dense<13> : tensor<6xi32>
  %lo = arith.constant dense<5> : tensor<6xi32>
  %mn = arith.minsi %o, %hi : tensor<6xi32>
  %c = arith.maxsi %mn, %lo : tensor<6xi32>
  %e = tensor.empty() : tensor<6xi32>
  %fib = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<6xi32>) outs(%e : tensor<6xi32>) {
  ^bb0(%n: i32, %out: i32):
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %res:3 = scf.while (%i = %c0, %x = %c0, %y = %c1) : (i32, i32, i32) -> (i32, i32, i32) {
      %lt = arith.cmpi slt, %i, %n : i32
      scf.condition(%lt) %i, %x, %y : i32, i32, i32
    } do {
    ^bb0(%i: i32, %x: i32, %y: i32):
      %i1 = arith.addi %i, %c1 : i32
      %s = arith.addi %x, %y : i32
      scf.yield %i1, %y, %s : i32, i32, i32
    }
    linalg.yield %res#1 : i32
  } -> tensor<6xi32>
  return %q, %r, %c, %fib : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
}
