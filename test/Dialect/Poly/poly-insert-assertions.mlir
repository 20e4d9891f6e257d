// RUN: tessera-opt %s --split-input-file --poly-insert-assertions | FileCheck %s
// RUN: tessera-opt %s --split-input-file --poly-insert-assertions --poly-insert-assertions | FileCheck %s

// The second RUN line checks that the pass is idempotent: a function marked
// `poly.assertions_inserted` is left alone.

// Tests JAX's documented example `b, b, 2*d`: the argument sizes with
// tensor.dim, then the checks in JAX's order (b >= 1, consistency of
// args[0].shape[1], the remainder of 2*d, d >= 1) with JAX's messages, then
// the variables; tensor.dim of the argument in the body is the entry's.
// CHECK-LABEL: func.func @doc_example
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x?xf32> {poly.shape = #poly.shape<"b, b, 2*d">}) -> index attributes {poly.assertions_inserted}
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[S0:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x?x?xf32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S1:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<?x?x?xf32>
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[S2:.*]] = tensor.dim %[[X]], %[[C2]] : tensor<?x?x?xf32>
// CHECK-NEXT: %[[B_OK:.*]] = arith.cmpi sge, %[[S0]], %[[C1]] : index
// CHECK-NEXT: poly.shape_assertion %[[B_OK]], %[[S0]] {error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, b, 2*d). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."} : index
// CHECK-NEXT: %[[SAME:.*]] = arith.cmpi eq, %[[S1]], %[[S0]] : index
// CHECK-NEXT: poly.shape_assertion %[[SAME]], %[[S1]], %[[S0]] {error_message = "Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[0].shape[1] (= {0}) and the specification 'b' (= {1}). Using the following polymorphic shapes specifications: args[0].shape = (b, b, 2*d). Obtained dimension variables: 'b' = {1} from specification 'b' for dimension args[0].shape[0] (= {1}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."} : index, index
// CHECK-NEXT: %[[D:.*]] = arith.floordivsi %[[S2]], %[[C2]] : index
// CHECK-NEXT: %[[TWO_D:.*]] = arith.muli %[[D]], %[[C2]] : index
// CHECK-NEXT: %[[REM:.*]] = arith.subi %[[S2]], %[[TWO_D]] : index
// CHECK-NEXT: %[[EVEN:.*]] = arith.cmpi eq, %[[REM]], %[[C0]] : index
// CHECK-NEXT: poly.shape_assertion %[[EVEN]], %[[REM]], %[[S0]] {error_message = "Input shapes do not match the polymorphic shapes specification. Division had remainder {0} when computing the value of 'd'. Using the following polymorphic shapes specifications: args[0].shape = (b, b, 2*d). Obtained dimension variables: 'b' = {1} from specification 'b' for dimension args[0].shape[0] (= {1}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."} : index, index
// CHECK-NEXT: %[[D_OK:.*]] = arith.cmpi sge, %[[D]], %[[C1]] : index
// CHECK-NEXT: poly.shape_assertion %[[D_OK]], %[[S0]], %[[D]], %[[S2]] {error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'd'. Using the following polymorphic shapes specifications: args[0].shape = (b, b, 2*d). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), 'd' = {1} from specification '2*d' for dimension args[0].shape[2] (= {2}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."} : index, index, index
// CHECK-NOT: poly.shape_assertion
// CHECK-NOT: tensor.dim
// CHECK: %[[HALF:.*]] = arith.divsi %[[S2]], %{{.*}} : index
// CHECK-NEXT: %[[R:.*]] = arith.muli %[[S0]], %[[HALF]] : index
// CHECK-NEXT: return %[[R]] : index
func.func @doc_example(%x: tensor<?x?x?xf32> {poly.shape = #poly.shape<"b, b, 2*d">}) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %s = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %d = arith.divsi %s, %c2 : index
  %r = arith.muli %b, %d : index
  return %r : index
}

// -----

// Tests several arguments: args[1] is checked against the variables solved
// from args[0], and the message lists both specifications joined by `,`.
// CHECK-LABEL: func.func @two_arguments
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32> {{.*}}, %[[Y:.*]]: tensor<?xf32> {{.*}})
// CHECK-DAG: %[[A:.*]] = tensor.dim %[[X]], %[[C0:[^ ]*]] : tensor<?x?xf32>
// CHECK-DAG: %[[B:.*]] = tensor.dim %[[X]], %[[C1:[^ ]*]] : tensor<?x?xf32>
// CHECK-DAG: %[[Y0:.*]] = tensor.dim %[[Y]], %[[C0]] : tensor<?xf32>
// CHECK: poly.shape_assertion %{{.*}}, %[[A]] {error_message = "{{.*}}Expected value >= 1 for dimension variable 'a'.{{.*}}"}
// CHECK: poly.shape_assertion %{{.*}}, %[[A]], %[[B]] {error_message = "{{.*}}Expected value >= 1 for dimension variable 'b'.{{.*}}"}
// CHECK: %[[SUM:.*]] = arith.addi %[[B]], %[[A]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[Y0]], %[[SUM]] : index
// CHECK-NEXT: poly.shape_assertion %[[OK]], %[[Y0]], %[[SUM]], %[[A]], %[[B]] {error_message = "Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[1].shape[0] (= {0}) and the specification 'b + a' (= {1}). Using the following polymorphic shapes specifications: args[0].shape = (a, b),args[1].shape = (b + a,). Obtained dimension variables: 'a' = {2} from specification 'a' for dimension args[0].shape[0] (= {2}), 'b' = {3} from specification 'b' for dimension args[0].shape[1] (= {3}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."} : index, index, index, index
// CHECK-NEXT: return
func.func @two_arguments(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a, b">},
                         %y: tensor<?xf32> {poly.shape = #poly.shape<"a + b">}) {
  return
}

// -----

// Tests an explicit constraint: checked last, as `diff >= 0`, with JAX's
// double space after the value.
// CHECK-LABEL: func.func @constraint
// CHECK-DAG: %[[A:.*]] = tensor.dim %{{.*}}, %[[C0:[^ ]*]] : tensor<?x?xf32>
// CHECK-DAG: %[[B:.*]] = tensor.dim %{{.*}}, %[[C1:[^ ]*]] : tensor<?x?xf32>
// CHECK-COUNT-2: poly.shape_assertion
// CHECK: %[[DIFF:.*]] = arith.subi %[[A]], %[[B]] : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[DIFF2:.*]] = arith.subi %[[DIFF]], %[[C2]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi sge, %[[DIFF2]], %[[C0]] : index
// CHECK-NEXT: poly.shape_assertion %[[OK]], %[[DIFF2]], %[[A]], %[[B]] {error_message = "Input shapes do not match the symbolic shape constraint a >= b + 2. Expected '- b + a - 2' to be greater or equal to 0, but found {0}.  Using the following polymorphic shapes specifications: args[0].shape = (a, b). Obtained dimension variables: 'a' = {1} from specification 'a' for dimension args[0].shape[0] (= {1}), 'b' = {2} from specification 'b' for dimension args[0].shape[1] (= {2}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."} : index, index, index
func.func @constraint(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a, b">}) attributes {poly.constraints = ["a >= b + 2"]} {
  return
}

// -----

// Tests Python's semantics: c is solved through floordiv by a constant and
// through mod by a symbolic divisor, which is guarded against 0 (XLA's
// result, -1, instead of a division by zero before the checks ran).
// CHECK-LABEL: func.func @floordiv_mod
// CHECK-DAG: %[[A:.*]] = tensor.dim %{{.*}}, %[[C0:[^ ]*]] : tensor<?x?x?x?xf32>
// CHECK-DAG: %[[B:.*]] = tensor.dim %{{.*}}, %[[C1:[^ ]*]] : tensor<?x?x?x?xf32>
// CHECK-DAG: %[[S2:.*]] = tensor.dim %{{.*}}, %[[C2:[^ ]*]] : tensor<?x?x?x?xf32>
// CHECK-DAG: %[[S3:.*]] = tensor.dim %{{.*}}, %[[C3:[^ ]*]] : tensor<?x?x?x?xf32>
// CHECK: %[[HALF:.*]] = arith.floordivsi %[[A]], %[[C2]] : index
// CHECK-NEXT: %[[C:.*]] = arith.subi %[[S2]], %[[HALF]] : index
// CHECK-NEXT: %[[C_OK:.*]] = arith.cmpi sge, %[[C]], %[[C1]] : index
// CHECK-NEXT: poly.shape_assertion %[[C_OK]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.cmpi eq, %[[B]], %[[C0]] : index
// CHECK-NEXT: %[[DIVISOR:.*]] = arith.select %[[ZERO]], %[[C1]], %[[B]] : index
// CHECK-NEXT: %[[Q0:.*]] = arith.floordivsi %[[A]], %[[DIVISOR]] : index
// CHECK-NEXT: %[[CM1:.*]] = arith.constant -1 : index
// CHECK-NEXT: %[[Q:.*]] = arith.select %[[ZERO]], %[[CM1]], %[[Q0]] : index
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[Q]], %[[B]] : index
// CHECK-NEXT: %[[M:.*]] = arith.subi %[[A]], %[[P]] : index
// CHECK-NEXT: %[[M_S2:.*]] = arith.addi %[[M]], %[[S2]] : index
// CHECK-NEXT: %[[SPEC:.*]] = arith.subi %[[M_S2]], %[[HALF]] : index
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[S3]], %[[SPEC]] : index
// CHECK-NEXT: poly.shape_assertion %[[OK]], %[[S3]], %[[SPEC]], {{.*}} {error_message = "Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[0].shape[3] (= {0}) and the specification 'mod(a, b) + c' (= {1}).
func.func @floordiv_mod(%x: tensor<?x?x?x?xf32> {poly.shape = #poly.shape<"a, b, floordiv(a, 2) + c, mod(a, b) + c">}) {
  return
}

// -----

// Tests checks decided at compile time: with `a == b` the constraint check
// is `0 == 0` (omitted), and `b - 1` makes `b >= 1` hold for every size
// (b = args[0].shape[0] + 1), so only the consistency check remains. The
// value of b is still computed for the body.
// CHECK-LABEL: func.func @decided_statically
// CHECK-DAG: %[[S0:.*]] = tensor.dim %{{.*}}, %[[C0:[^ ]*]] : tensor<?x?xf32>
// CHECK-DAG: %[[S1:.*]] = tensor.dim %{{.*}}, %[[C1:[^ ]*]] : tensor<?x?xf32>
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[S1]], %[[S0]] : index
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[S0]], %[[C1]] : index
// CHECK-NEXT: poly.shape_assertion %[[OK]], %[[S1]], %[[S0]], %[[B]] {error_message = "{{.*}}Found inconsistency between dimension size args[0].shape[1] (= {0}) and the specification 'b - 1' (= {1}).{{.*}}"}
// CHECK-NOT: poly.shape_assertion
// CHECK: return %[[B]] : index
func.func @decided_statically(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"a - 1, b - 1">}) -> index attributes {poly.constraints = ["a == b"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tensor.dim %x, %c0 : tensor<?x?xf32>
  %b = arith.addi %s, %c1 {poly.value = #poly.expr<"b">} : index
  return %b : index
}

// -----

// Tests that annotated index values equal to a dimension variable or to a
// symbolic argument dimension are replaced by the entry's values, and that
// other annotated values are left alone.
// CHECK-LABEL: func.func @annotated_values
// CHECK-DAG: %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xf32>
// CHECK: %[[K:.*]] = arith.floordivsi %[[N]], %{{.*}} : index
// CHECK: poly.shape_assertion
// CHECK-NOT: arith.divsi
// CHECK: %[[SQ:.*]] = arith.muli %[[K]], %[[K]] {poly.value = #poly.expr<"k^2">} : index
// CHECK-NEXT: return %[[K]], %[[N]], %[[SQ]] : index, index, index
func.func @annotated_values(%x: tensor<?xf32> {poly.shape = #poly.shape<"4*k">}) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim {poly.value = #poly.expr<"4*k">} %x, %c0 : tensor<?xf32>
  %k = arith.divsi %n, %c4 {poly.value = #poly.expr<"k">} : index
  %sq = arith.muli %k, %k {poly.value = #poly.expr<"k^2">} : index
  return %k, %n, %sq : index, index, index
}

// -----

// Tests memref arguments (memref.dim) and the body's memref.dim.
// CHECK-LABEL: func.func @memref_argument
// CHECK-SAME: (%[[M:.*]]: memref<?x8xf32> {{.*}}) -> index
// CHECK: %[[N:.*]] = memref.dim %[[M]], %{{.*}} : memref<?x8xf32>
// CHECK: poly.shape_assertion
// CHECK-NOT: memref.dim
// CHECK: return %[[N]] : index
func.func @memref_argument(%m: memref<?x8xf32> {poly.shape = #poly.shape<"n, 8">}) -> index {
  %c0 = arith.constant 0 : index
  %n = memref.dim %m, %c0 : memref<?x8xf32>
  return %n : index
}

// -----

// Tests JAX's limit of 32 message inputs: the check of a33 needs 34 values,
// so the last two print N/A.
// CHECK-LABEL: func.func @thirty_four_variables
// CHECK: poly.shape_assertion {{.*}}Expected value >= 1 for dimension variable 'a33'.{{.*}}'a31' = {31} from specification 'a31' for dimension args[0].shape[31] (= {31}), 'a32' = N/A from specification 'a32' for dimension args[0].shape[32] (= N/A), 'a33' = N/A from {{.*}}"} : index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index{{$}}
func.func @thirty_four_variables(%x: tensor<?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?xf32> {poly.shape = #poly.shape<"a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, a33">}) {
  return
}

// -----

// Tests that functions without argument specs, declarations, and functions
// already marked are left alone.
// CHECK-LABEL: func.func @not_polymorphic
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @declaration
// CHECK-LABEL: func.func @already_inserted
// CHECK-NEXT: return
func.func @not_polymorphic(%x: tensor<4xf32>) {
  return
}
func.func private @declaration(%x: tensor<?xf32> {poly.shape = #poly.shape<"n">})
func.func @already_inserted(%x: tensor<?xf32> {poly.shape = #poly.shape<"n">}) attributes {poly.assertions_inserted} {
  return
}
