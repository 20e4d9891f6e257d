//===- Passes.td - poly passes -----------------------------*- tablegen -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_TD
#define TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PolyInferPass : Pass<"poly-infer", "::mlir::ModuleOp"> {
  let summary = "Symbolic shape inference and checking with JAX's errors";
  let description = [{
    JAX's shape polymorphism at compile time. For every function whose
    arguments carry `poly.shape` or which carries `poly.constraints` (and
    every function that calls or is called by one):

    1. builds the function's symbolic scope from `poly.constraints` and
       parses the argument specs against the argument types;
    2. solves the dimension variables from the argument shapes (JAX's
       `solve_dim_vars`): `Cannot solve for values of dimension variables
       ...` and `UnexpectedDimVar` (a variable only in a constraint or a
       declared result) are compile-time errors;
    3. computes the symbolic value of every SSA value in order through
       `poly::SymbolicShapeOpInterface`, checking every shape rule with
       JAX's messages (broadcasting, `dot_general`, reshape, slicing, pad,
       concatenate, loop carries, cond branches, nested calls). An op that
       touches a symbolic value and has no model is an error;
    4. writes `poly.shape` on every op result and function result with a
       dynamic dimension, `poly.value` on every index/integer result with a
       non-constant symbolic value, and the normalized spec back on every
       argument. A `tensor.reshape` whose shape holds the constant `-1` gets
       the inferred size in its place.

    Callees are analyzed before their callers; a call solves the callee's
    dimension variables from the caller's symbolic shapes (JAX's nested
    export, e.g. `a = 2*c`) and instantiates the callee's result shapes.

    ```mlir
    func.func @f(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
        -> tensor<?x4xf32> {
      %0 = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>)
          -> tensor<?x4xf32>
      return %0 : tensor<?x4xf32>
    }
    // After --poly-infer, the concat and the result of @f carry
    // {poly.shape = #poly.shape<"2*b, 4">}.
    ```

    Results are deterministic. The default decision procedure answers some
    comparisons JAX finds inconclusive (e.g. `b >= mod(b, 3)`); `jax-exact`
    uses JAX's own.
  }];
  let options = [
    Option<"jaxExact", "jax-exact", "bool", /*default=*/"false",
           "Decide comparisons with JAX's own procedure instead of the "
           "stronger default, reproducing JAX's inconclusive errors">
  ];
}

def PolyInsertAssertionsPass
    : Pass<"poly-insert-assertions", "::mlir::ModuleOp"> {
  let summary = "Runtime shape checks at function entry, with JAX's messages";
  let description = [{
    The checks `jax.export` puts in an exported `main` (JAX's
    `_wrap_main_func` with the checks of `solve_dim_vars`): for every
    function with a body whose arguments carry `poly.shape`, the pass solves
    the dimension variables from the argument specs exactly as `poly-infer`
    does (argument `i` is `args[i]`) and inserts at the function entry

    1. one `tensor.dim` (`memref.dim`) per symbolic dimension `j` of argument
       `i` (JAX's synthetic variable `args[i].shape[j]`);
    2. for every check, in JAX's order (divisibility, then `>= 1` for each
       solved variable, consistency of the other dimensions, explicit
       constraints last), the predicate and a `poly.shape_assertion` whose
       message is JAX's text with `{0}`, `{1}`, ... for the values, so that
       the first failing check stops execution with JAX's exact message;
    3. the value of every dimension variable, computed with `arith` on
       `index` with Python's semantics (`arith.floordivsi`; `mod` takes the
       sign of the divisor; `max`/`min` are `arith.maxsi`/`arith.minsi`).

    ```mlir
    func.func @f(%x: tensor<?x?x?xf32> {poly.shape = #poly.shape<"b, b, 2*d">}) {
      ...
    }
    // After --poly-insert-assertions, the entry of @f computes
    // args[0].shape[0..2] with tensor.dim, then asserts b >= 1,
    // args[0].shape[1] == b, mod(args[0].shape[2], 2) == 0 and d >= 1, and
    // @f is marked `poly.assertions_inserted`.
    ```

    A check that is decided at compile time (constant once solved, or
    decided knowing only that every dimension size is `>= 0`) is omitted
    when it always holds and is a compile-time error with its message when
    it never holds. In the body, `tensor.dim`/`memref.dim` of a symbolic
    argument dimension and index values annotated with `poly.value` equal to
    a dimension variable or to a symbolic argument dimension are replaced by
    the values computed at the entry; nothing else in the body changes.
    Functions already marked `poly.assertions_inserted` are skipped.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tessera::poly::PolyDialect"
  ];
}

def PolyLowerAssertionsPass
    : Pass<"poly-lower-assertions", "::mlir::ModuleOp"> {
  let summary = "Lower poly.shape_assertion to a message on stderr and exit(1)";
  let description = [{
    Replaces every `poly.shape_assertion` with code that, when the predicate
    is false, prints the message with every `{N}` replaced by the decimal
    value of input `N` (`{{` is a literal `{`) and a newline on the standard
    error stream, then exits the process with status 1:

    ```mlir
    %failed = arith.xori %ok, %true : i1
    scf.if %failed {
      %fmt = llvm.mlir.addressof @__poly_assertion_message_0 : !llvm.ptr
      %d = arith.index_cast %d0 : index to i64
      %n = llvm.call @dprintf(%c2_i32, %fmt, %d) vararg(...) : (i32, !llvm.ptr, i64) -> i32
      llvm.call @exit(%c1_i32) : (i32) -> ()
    }
    ```

    The message becomes a private `llvm.mlir.global` constant (a `printf`
    format: `%` is escaped, each value is a `%lld`); `dprintf` (file
    descriptor 2) and `exit` are C library functions, declared as
    `llvm.func` unless the module declares them already. The result lowers
    with the upstream `--convert-scf-to-cf --convert-to-llvm` and runs under
    `mlir-runner` without any Tessera runtime library.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def PolySpecializePass : Pass<"poly-specialize", "::mlir::ModuleOp"> {
  let summary = "Replace symbolic dimensions by concrete values";
  let description = [{
    Turns a polymorphic program static, as `Exported.call` does for concrete
    arguments. The values of the dimension variables of the polymorphic entry
    points (functions with a body that nothing in the module references,
    whose arguments carry `poly.shape`) come from exactly one of

    - `bindings="b=3,d=2"`: every dimension variable; the argument shapes the
      values imply must pass every check of the specification (JAX's
      messages: a value `< 1`, a violated explicit constraint);
    - `arg-shapes="3x3x5,4x2"`: one concrete shape per argument carrying
      `poly.shape`, in order, checked and solved as `Exported.call` does
      (JAX's `Rank mismatch ...`, `Shape mismatch ...`, `Division had
      remainder ...` messages are compile-time errors).

    Without polymorphic entry points no option is needed. The pass runs
    `poly-infer` first and then, in every specialized function, gives every
    tensor value (arguments, results, op results, region arguments) the
    static type its symbolic shape has under the values and replaces every
    index value annotated with `poly.value` by a constant. Ops whose sizes
    are operands (`tensor.empty`, slices, `expand_shape`, `splat`, ...) are
    kept dynamic behind `tensor.cast`s and made static by the upstream
    canonicalization patterns (plus `poly::populateStaticSizePatterns`).
    `poly.shape_assertion`s whose predicate is then constant are
    discharged: true ones are removed, a false one in the entry block is a
    compile-time error with its message filled in. All `poly.*`
    annotations of the function are removed, and a tensor that would stay
    dynamic is an error naming its op.

    Functions with static arguments that call polymorphic functions are
    specialized in place (all their shapes are constants). A call of a
    function with a dynamic signature from a specialized function goes to a
    private clone of the callee specialized for the call's shapes, named
    after the values of its variables (`@f_b3_d2`; `@f_static` without
    variables); a private callee left without calls is erased.

    ```mlir
    func.func @f(%x: tensor<?x4xf32> {poly.shape = #poly.shape<"b, 4">})
        -> tensor<?x4xf32> { ... }
    // --poly-specialize=bindings="b=3":
    func.func @f(%x: tensor<3x4xf32>) -> tensor<3x4xf32> { ... }
    ```
  }];
  let options = [
    Option<"bindings", "bindings", "std::string", /*default=*/"\"\"",
           "The values of the dimension variables, `b=3,d=2`">,
    Option<"argShapes", "arg-shapes", "std::string", /*default=*/"\"\"",
           "One concrete shape per argument carrying poly.shape, "
           "`3x3x5,4x2`">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // TESSERA_DIALECT_POLY_TRANSFORMS_PASSES_TD
