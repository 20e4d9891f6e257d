// RUN: tessera-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics

// Tests JAX's syntax error for a spec that ends early.
// expected-error @+1 {{syntax error in symbolic shape 'b +' in dimension 0: expecting one of {NAME, MINUS, NUMBER} but found ENDMARKER.}}
func.func @syntax_error(%x: tensor<?xf32> {poly.shape = #poly.shape<"b +">}) {
  return
}

// -----

// Tests that `non_negative` is an ordinary variable name, as in JAX today.
// expected-error @+1 {{syntax error in symbolic shape 'non_negative(b - 2)' in dimension 0: expecting one of {STAR} but found LPAR.}}
func.func @non_negative_removed(%x: tensor<?xf32> {poly.shape = #poly.shape<"non_negative(b - 2)">}) {
  return
}

// -----

// Tests that a #poly.expr is one expression of JAX's grammar.
// expected-error @+1 {{syntax error in symbolic shape '2*' in dimension 0}}
func.func @expr_syntax_error() attributes {test.e = #poly.expr<"2*">} {
  return
}

// -----

// Tests that a placeholder cannot stand for a `?` (JAX's `None`).
// expected-error @+1 {{'func.func' op arg 0 - syntax error in symbolic shape '_, 4' in dimension 0: unexpected placeholder for unknown dimension; like=(None, 4).}}
func.func @placeholder_on_dynamic(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"_, 4">}) {
  return
}

// -----

// Tests that a constant must equal the static size.
// expected-error @+1 {{'func.func' op arg 0 - syntax error in symbolic shape 'b, 3' in dimension 1: different size 3 for known dimension; like=(None, 4).}}
func.func @constant_mismatch(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 3">}) {
  return
}

// -----

// Tests that a constant cannot stand for a `?`, even one that an equality
// constraint makes constant.
// expected-error @+1 {{'func.func' op arg 0 - syntax error in symbolic shape 'b, d' in dimension 1: different size 5 for known dimension; like=(None, None).}}
func.func @constant_on_dynamic(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b, d">})
    attributes {poly.constraints = ["d == 5"]} {
  return
}

// -----

// Tests that placeholders cannot take more dimensions than the type has.
// expected-error @+1 {{'func.func' op arg 0 - syntax error in symbolic shape 'b, _, _' in dimension 2: cannot resolve placeholder '_' because we parsed 2 already and 'like' shape has only 2 dimensions.}}
func.func @too_many_placeholders(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, _, _">}) {
  return
}

// -----

// Tests that a symbolic dimension needs a `?` in the type.
// expected-error @+1 {{'func.func' op arg 0 - symbolic dimension 'c' (dimension 1 of spec 'b, c') needs '?' in 'tensor<?x4xf32>', which has the static size 4}}
func.func @symbolic_on_static(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, c">}) {
  return
}

// -----

// Tests that the spec has the type's rank.
// expected-error @+1 {{'func.func' op arg 0 - spec 'b' has 1 dimension but 'tensor<?x4xf32>' has rank 2}}
func.func @rank_mismatch(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b">}) {
  return
}

// -----

// Tests that poly.shape holds a #poly.shape.
// expected-error @+1 {{'func.func' op arg 0 - 'poly.shape' must be a #poly.shape attribute}}
func.func @not_a_shape(%x: tensor<?xf32> {poly.shape = "b"}) {
  return
}

// -----

// Tests that poly.shape needs a ranked shaped type.
// expected-error @+1 {{'func.func' op arg 0 - 'poly.shape' requires a ranked shaped type, got 'f32'}}
func.func @scalar_argument(%x: f32 {poly.shape = #poly.shape<"">}) {
  return
}

// -----

// Tests that only poly.shape is a poly argument attribute.
// expected-error @+1 {{'func.func' op arg 0 - unknown poly arg attribute 'poly.spec'}}
func.func @unknown_arg_attribute(%x: tensor<?xf32> {poly.spec = #poly.shape<"b">}) {
  return
}

// -----

// Tests that only poly.shape is a poly result attribute.
// expected-error @+1 {{'func.func' op result 0 - unknown poly result attribute 'poly.value'}}
func.func @unknown_result_attribute(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    -> (tensor<?xf32> {poly.value = #poly.expr<"b">}) {
  return %x : tensor<?xf32>
}

// -----

// Tests that a result spec does not take placeholders (no `like` shape).
// expected-error @+1 {{'func.func' op result 0 - syntax error in symbolic shape 'b, _' in dimension 1: spec contains ... but no 'like' shape was given.}}
func.func @result_placeholder(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
    -> (tensor<?x4xf32> {poly.shape = #poly.shape<"b, _">}) {
  return %x : tensor<?x4xf32>
}

// -----

// Tests that a result spec matches the static sizes.
// expected-error @+1 {{'func.func' op result 0 - dimension 1 of spec 'b, 5' is '5' but 'tensor<?x4xf32>' has the static size 4 there}}
func.func @result_static_mismatch(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
    -> (tensor<?x4xf32> {poly.shape = #poly.shape<"b, 5">}) {
  return %x : tensor<?x4xf32>
}

// -----

// Tests JAX's error for constraints that are not a sequence.
// expected-error @+1 {{'func.func' op poly.constraints - The symbolic constraints should be a sequence of strings. Got 'b >= 1'}}
func.func @constraints_not_a_list(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = "b >= 1"} {
  return
}

// -----

// Tests JAX's error for a constraint that is not a string.
// expected-error @+1 {{'func.func' op poly.constraints - SymbolicScope constraint must be a string: got 5 : i64}}
func.func @constraint_not_a_string(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = [5]} {
  return
}

// -----

// Tests JAX's error for a constraint without `==`, `>=` or `<=`.
// expected-error @+1 {{'func.func' op poly.constraints - Constraint parsing error: must contain one of '==' or '>=' or '<='}}
func.func @constraint_strict(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["b > 1"]} {
  return
}

// -----

// Tests JAX's syntax error in one side of a constraint.
// expected-error @+1 {{'func.func' op poly.constraints - syntax error in symbolic shape ' c +' in dimension 0}}
func.func @constraint_syntax(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["b >= c +"]} {
  return
}

// -----

// Tests JAX's error for a constant constraint that is false.
// expected-error @+1 {{'func.func' op poly.constraints - Unsatisfiable explicit constraint: b == b + 1}}
func.func @constraint_unsatisfiable_explicit(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["b == b + 1"]} {
  return
}

// -----

// Tests JAX's error for an equality whose left side is not `k*term`.
// expected-error @+1 {{'func.func' op poly.constraints - Invalid equality constraint: {e1} == {e2}. The left-hand-side must be of the form `term * coefficient`.}}
func.func @constraint_invalid_equality(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["a + b == c"]} {
  return
}

// -----

// Tests JAX's error for two equalities with the same left-hand side.
// expected-error @+1 {{'func.func' op poly.constraints - Found multiple equality constraints with the same left-hand-side: a}}
func.func @constraint_same_lhs(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["2*a == b", "3*a == c"]} {
  return
}

// -----

// Tests JAX's lazy error for a constraint against the implicit `b >= 1`,
// reported when the function is verified.
// expected-error @+1 {{'func.func' op poly.constraints - Unsatisfiable constraint: b <= 0}}
func.func @constraint_unsatisfiable(%x: tensor<?xf32> {poly.shape = #poly.shape<"b">})
    attributes {poly.constraints = ["b <= 0"]} {
  return
}

// -----

// Tests JAX's error for contradictory constraints found by combining them.
// expected-error @+1 {{'func.func' op poly.constraints - Unsatisfiable constraints: c >= b + 1}}
func.func @constraints_unsatisfiable(%x: tensor<?x?xf32> {poly.shape = #poly.shape<"b, c">})
    attributes {poly.constraints = ["b >= c", "c >= b + 1"]} {
  return
}

// -----

// Tests that poly.constraints belongs on functions.
// expected-error @+1 {{'test.op' op 'poly.constraints' is only allowed on functions}}
"test.op"() {poly.constraints = ["b >= 1"]} : () -> ()

// -----

// Tests that only poly.shape, poly.value and poly.constraints are poly
// attributes of ops.
// expected-error @+1 {{'test.op' op unknown poly attribute 'poly.shapes'}}
"test.op"() {poly.shapes = #poly.shape<"">} : () -> ()

// -----

// Tests that a function's poly.shape goes on its arguments or results.
// expected-error @+1 {{'func.func' op 'poly.shape' belongs on the arguments and results of a function, not on the function}}
func.func @shape_on_function() attributes {poly.shape = #poly.shape<"">} {
  return
}

// -----

// Tests that an op's poly.shape needs results.
func.func @shape_without_results() {
  // expected-error @+1 {{'test.op' op 'poly.shape' requires an op with results}}
  "test.op"() {poly.shape = #poly.shape<"">} : () -> ()
  return
}

// -----

// Tests that a single result's poly.shape is a #poly.shape.
func.func @result_not_a_shape() {
  // expected-error @+1 {{'tensor.empty' op result - 'poly.shape' must be a #poly.shape attribute}}
  %0 = tensor.empty() {poly.shape = [#poly.shape<"4">]} : tensor<4xf32>
  return
}

// -----

// Tests that several results take an array of poly.shape entries.
func.func @results_not_an_array() {
  // expected-error @+1 {{'test.two' op 'poly.shape' of an op with 2 results must be an array with one entry per result}}
  %0:2 = "test.two"() {poly.shape = #poly.shape<"4">} : () -> (tensor<4xf32>, index)
  return
}

// -----

// Tests that the array has one entry per result.
func.func @results_wrong_count() {
  // expected-error @+1 {{'test.two' op 'poly.shape' has 1 entries but the op has 2 results}}
  %0:2 = "test.two"() {poly.shape = [#poly.shape<"4">]} : () -> (tensor<4xf32>, index)
  return
}

// -----

// Tests that an entry of the array is a #poly.shape or unit.
func.func @results_bad_entry() {
  // expected-error @+1 {{'test.two' op result #0 - 'poly.shape' must be a #poly.shape attribute or unit}}
  %0:2 = "test.two"() {poly.shape = ["4", unit]} : () -> (tensor<4xf32>, index)
  return
}

// -----

// Tests that a result's poly.shape needs a ranked shaped type.
func.func @shape_of_index() {
  // expected-error @+1 {{'test.one' op result - 'poly.shape' requires a ranked shaped type, got 'index'}}
  %0 = "test.one"() {poly.shape = #poly.shape<"">} : () -> index
  return
}

// -----

// Tests that an op result's spec matches the static sizes of its type.
func.func @op_result_static_mismatch() {
  // expected-error @+1 {{'tensor.empty' op result - dimension 0 of spec 'b' is 'b' but 'tensor<4xf32>' has the static size 4 there}}
  %0 = tensor.empty() {poly.shape = #poly.shape<"b">} : tensor<4xf32>
  return
}

// -----

// Tests that an op result's spec has the type's rank (in the array form).
func.func @op_result_rank_mismatch() {
  // expected-error @+1 {{'test.two' op result #1 - spec 'b' has 1 dimension but 'tensor<?x?xf32>' has rank 2}}
  %0:2 = "test.two"() {poly.shape = [unit, #poly.shape<"b">]} : () -> (index, tensor<?x?xf32>)
  return
}

// -----

// Tests that poly.value holds a #poly.expr.
func.func @value_not_an_expr() {
  // expected-error @+1 {{'test.one' op result - 'poly.value' must be a #poly.expr attribute}}
  %0 = "test.one"() {poly.value = "b"} : () -> index
  return
}

// -----

// Tests that an entry of a poly.value array is a #poly.expr or unit.
func.func @values_bad_entry() {
  // expected-error @+1 {{'test.two' op result #1 - 'poly.value' must be a #poly.expr attribute or unit}}
  %0:2 = "test.two"() {poly.value = [unit, 3]} : () -> (index, index)
  return
}

// -----

// Tests that poly.value annotates index or integer results.
func.func @value_of_float() {
  // expected-error @+1 {{'arith.constant' op result - 'poly.value' requires an index or integer type, got 'f32'}}
  %0 = arith.constant {poly.value = #poly.expr<"b">} 1.0 : f32
  return
}

// -----

// Tests JAX's limit of 32 inputs to a shape assertion.
func.func @assertion_too_many_inputs(%p: i1, %d: index) {
  // expected-error @+1 {{'poly.shape_assertion' op expects at most 32 error message inputs, got 33}}
  poly.shape_assertion %p, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d {error_message = "m"} : index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index
  return
}

// -----

// Tests that a placeholder names an existing input.
func.func @assertion_placeholder_out_of_range(%p: i1, %d: index) {
  // expected-error @+1 {{'poly.shape_assertion' op expects error_message to contain format specifiers with error_message_input index less than 1, found specifier '{1}'}}
  poly.shape_assertion %p, %d {error_message = "got {0} and {1}"} : index
  return
}

// -----

// Tests that a brace starts a placeholder `{N}` or an escaped `{{`.
func.func @assertion_bad_specifier(%p: i1, %d: index) {
  // expected-error @+1 {{'poly.shape_assertion' op expects error_message to contain only format specifiers '{N}' and escaped braces '{{', found '{x}' at offset 4}}
  poly.shape_assertion %p, %d {error_message = "got {x}"} : index
  return
}

// -----

// Tests that a placeholder is closed.
func.func @assertion_unterminated_specifier(%p: i1, %d: index) {
  // expected-error @+1 {{'poly.shape_assertion' op expects error_message to contain only format specifiers '{N}' and escaped braces '{{', found '{0' at offset 4}}
  poly.shape_assertion %p, %d {error_message = "got {0"} : index
  return
}

// -----

// Tests that the predicate is an i1.
func.func @assertion_predicate_type(%p: i32) {
  // expected-error @+1 {{'poly.shape_assertion' op operand #0 must be 1-bit signless integer, but got 'i32'}}
  "poly.shape_assertion"(%p) {error_message = "m"} : (i32) -> ()
  return
}

// -----

// Tests that the inputs are index or signless integer values.
func.func @assertion_input_type(%p: i1, %f: f32) {
  // expected-error @+1 {{'poly.shape_assertion' op operand #1 must be variadic of signless integer or index, but got 'f32'}}
  "poly.shape_assertion"(%p, %f) {error_message = "{0}"} : (i1, f32) -> ()
  return
}
