// Runtime shape assertions, end to end: poly-insert-assertions puts JAX's
// checks at the entry of the polymorphic functions, poly-lower-assertions
// turns them into a message on stderr and exit(1), and the upstream pipeline
// lowers everything to LLVM for mlir-runner. Each @main_* calls a
// polymorphic function with the shapes of one JAX example.
// RUN: tessera-opt %s --poly-insert-assertions --poly-lower-assertions --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --expand-strided-metadata --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts -o %t.mlir
// RUN: mlir-runner %t.mlir -e main_ok -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s --check-prefix=OK
// RUN: not mlir-runner %t.mlir -e main_doc -entry-point-result=void -shared-libs=%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=DOC --strict-whitespace
// RUN: not mlir-runner %t.mlir -e main_at_least_one -entry-point-result=void -shared-libs=%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=GE1 --strict-whitespace
// RUN: not mlir-runner %t.mlir -e main_inconsistent -entry-point-result=void -shared-libs=%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=INCONSISTENT --strict-whitespace
// RUN: not mlir-runner %t.mlir -e main_constraint -entry-point-result=void -shared-libs=%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=CONSTRAINT --strict-whitespace
// RUN: not mlir-runner %t.mlir -e main_two_arguments -entry-point-result=void -shared-libs=%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=TWO --strict-whitespace
// RUN: mlir-runner %t.mlir -e main_two_arguments_ok -entry-point-result=void -shared-libs=%mlir_runner_utils | FileCheck %s --check-prefix=TWO-OK

// Tests that shapes that match the specification run: b = 3, d = 2.
// OK: {{^}}6{{$}}
// OK-NOT: Input shapes

// Tests JAX's documented example: spec `b, b, 2*d`, shape (3, 3, 5).
// DOC: {{^}}Input shapes do not match the polymorphic shapes specification. Division had remainder 1 when computing the value of 'd'. Using the following polymorphic shapes specifications: args[0].shape = (b, b, 2*d). Obtained dimension variables: 'b' = 3 from specification 'b' for dimension args[0].shape[0] (= 3), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.{{$}}
// DOC-NOT: {{.}}

// Tests a dimension variable < 1: spec `3, 4, a + 1`, shape (3, 4, 1).
// GE1: {{^}}Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'a'. Using the following polymorphic shapes specifications: args[0].shape = (3, 4, a + 1). Obtained dimension variables: 'a' = 0 from specification 'a + 1' for dimension args[0].shape[2] (= 1), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.{{$}}

// Tests an inconsistent dimension: spec `3, a, a + 8`, shape (3, 4, 13).
// INCONSISTENT: {{^}}Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[0].shape[2] (= 13) and the specification 'a + 8' (= 12). Using the following polymorphic shapes specifications: args[0].shape = (3, a, a + 8). Obtained dimension variables: 'a' = 4 from specification 'a' for dimension args[0].shape[1] (= 4), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.{{$}}

// Tests an explicit constraint, with JAX's double space: `a >= b + 2` with
// shape (3, 2).
// CONSTRAINT: {{^}}Input shapes do not match the symbolic shape constraint a >= b + 2. Expected '- b + a - 2' to be greater or equal to 0, but found -1.  Using the following polymorphic shapes specifications: args[0].shape = (a, b). Obtained dimension variables: 'a' = 3 from specification 'a' for dimension args[0].shape[0] (= 3), 'b' = 2 from specification 'b' for dimension args[0].shape[1] (= 2), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.{{$}}

// Tests two arguments: `a, b` with (2, 3) and `a + b` with (4,).
// TWO: {{^}}Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[1].shape[0] (= 4) and the specification 'b + a' (= 5). Using the following polymorphic shapes specifications: args[0].shape = (a, b),args[1].shape = (b + a,). Obtained dimension variables: 'a' = 2 from specification 'a' for dimension args[0].shape[0] (= 2), 'b' = 3 from specification 'b' for dimension args[0].shape[1] (= 3), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.{{$}}

// Tests the same function with matching shapes: the result is a*b + a + b.
// TWO-OK: {{^}}11{{$}}

func.func @doc(%x: tensor<?x?x?xf32> {poly.shape = #poly.shape<"b, b, 2*d">}) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %d = arith.divsi %s, %c2 : index
  %r = arith.muli %b, %d : index
  return %r : index
}

func.func @at_least_one(%x: tensor<3x4x?xf32> {poly.shape = #poly.shape<"3, 4, a + 1">}) {
  return
}

func.func @inconsistent(%x: tensor<3x?x?xf32> {poly.shape = #poly.shape<"3, a, a + 8">}) {
  return
}

func.func @constraint(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a, b">}) attributes {poly.constraints = ["a >= b + 2"]} {
  return
}

func.func @two_arguments(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a, b">}, %y: tensor<?xf32> {poly.shape = #poly.shape<"a + b">}) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.dim %x, %c0 : tensor<?x?xf32>
  %b = tensor.dim %x, %c1 : tensor<?x?xf32>
  %s = tensor.dim %y, %c0 : tensor<?xf32>
  %ab = arith.muli %a, %b : index
  %r = arith.addi %ab, %s : index
  return %r : index
}

func.func @main_ok() {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %t = tensor.empty(%c3, %c3, %c4) : tensor<?x?x?xf32>
  %r = func.call @doc(%t) : (tensor<?x?x?xf32>) -> index
  vector.print %r : index
  return
}

func.func @main_doc() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %t = tensor.empty(%c3, %c3, %c5) : tensor<?x?x?xf32>
  %r = func.call @doc(%t) : (tensor<?x?x?xf32>) -> index
  vector.print %r : index
  return
}

func.func @main_at_least_one() {
  %c1 = arith.constant 1 : index
  %t = tensor.empty(%c1) : tensor<3x4x?xf32>
  func.call @at_least_one(%t) : (tensor<3x4x?xf32>) -> ()
  return
}

func.func @main_inconsistent() {
  %c4 = arith.constant 4 : index
  %c13 = arith.constant 13 : index
  %t = tensor.empty(%c4, %c13) : tensor<3x?x?xf32>
  func.call @inconsistent(%t) : (tensor<3x?x?xf32>) -> ()
  return
}

func.func @main_constraint() {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %t = tensor.empty(%c3, %c2) : tensor<?x?xf32>
  func.call @constraint(%t) : (tensor<?x?xf32>) -> ()
  return
}

func.func @main_two_arguments() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %x = tensor.empty(%c2, %c3) : tensor<?x?xf32>
  %y = tensor.empty(%c4) : tensor<?xf32>
  %r = func.call @two_arguments(%x, %y) : (tensor<?x?xf32>, tensor<?xf32>) -> index
  vector.print %r : index
  return
}

func.func @main_two_arguments_ok() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %x = tensor.empty(%c2, %c3) : tensor<?x?xf32>
  %y = tensor.empty(%c5) : tensor<?xf32>
  %r = func.call @two_arguments(%x, %y) : (tensor<?x?xf32>, tensor<?xf32>) -> index
  vector.print %r : index
  return
}
