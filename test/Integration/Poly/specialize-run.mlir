// poly-specialize, end to end: @main calls polymorphic functions with two
// different shapes; poly-specialize clones them per call site (b = 3 and
// b = 2, n = 6 and n = 4), the runtime assertions inserted first are discharged at compile
// time, and the static program runs under mlir-runner.
// RUN: tessera-opt %s --poly-insert-assertions --poly-specialize | FileCheck %s --check-prefix=IR
// RUN: tessera-opt %s --poly-insert-assertions --poly-specialize --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --expand-strided-metadata --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts -o %t.mlir
// RUN: mlir-runner %t.mlir -e main -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s

// Tests that the program is static, with one clone per shape.
// IR-NOT: ?x
// IR-NOT: poly.
// IR-LABEL: func.func private @row_sums_twice_b3
// IR-SAME: (%{{.*}}: tensor<3x4xf32>) -> tensor<6xf32>
// IR-LABEL: func.func private @row_sums_twice_b2
// IR-SAME: (%{{.*}}: tensor<2x4xf32>) -> tensor<4xf32>
// IR-LABEL: func.func private @print_n6
// IR-SAME: (%{{.*}}: tensor<6xf32>)
// IR-LABEL: func.func private @print_n4
// IR-SAME: (%{{.*}}: tensor<4xf32>)
// IR-LABEL: func.func @main
// IR: call @row_sums_twice_b3
// IR: call @row_sums_twice_b2
// IR: call @print_n6
// IR: call @print_n4

// Tests the numbers: the size and the row sums of each matrix, concatenated
// with themselves.
// CHECK: 6
// CHECK-NEXT: 10
// CHECK-NEXT: 26
// CHECK-NEXT: 2
// CHECK-NEXT: 10
// CHECK-NEXT: 26
// CHECK-NEXT: 2
// CHECK-NEXT: 4
// CHECK-NEXT: 4
// CHECK-NEXT: 40
// CHECK-NEXT: 4
// CHECK-NEXT: 40

// The row sums of a b x 4 matrix, concatenated with themselves: 2*b values.
func.func private @row_sums_twice(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">}) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %sums = linalg.reduce ins(%x : tensor<?x4xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %twice = tensor.concat dim(0) %sums, %sums : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %twice : tensor<?xf32>
}

// Prints the elements of `t`.
func.func private @print(%t: tensor<?xf32> {poly.shape = #poly.shape<"n">}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %t, %c0 : tensor<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = tensor.extract %t[%i] : tensor<?xf32>
    vector.print %v : f32
  }
  return
}

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [0.5, 0.5, 0.5, 0.5]]> : tensor<3x4xf32>
  %b = arith.constant dense<[[1.0, 1.0, 1.0, 1.0], [10.0, 10.0, 10.0, 10.0]]> : tensor<2x4xf32>
  %da = tensor.cast %a : tensor<3x4xf32> to tensor<?x4xf32>
  %db = tensor.cast %b : tensor<2x4xf32> to tensor<?x4xf32>
  %ra = func.call @row_sums_twice(%da) : (tensor<?x4xf32>) -> tensor<?xf32>
  %rb = func.call @row_sums_twice(%db) : (tensor<?x4xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %na = tensor.dim %ra, %c0 : tensor<?xf32>
  vector.print %na : index
  func.call @print(%ra) : (tensor<?xf32>) -> ()
  %nb = tensor.dim %rb, %c0 : tensor<?xf32>
  vector.print %nb : index
  func.call @print(%rb) : (tensor<?xf32>) -> ()
  return
}
