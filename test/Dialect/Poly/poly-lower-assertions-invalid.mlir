// RUN: tessera-opt %s --split-input-file --poly-lower-assertions --verify-diagnostics

// Tests a module whose @dprintf is not C's (dprintf is variadic, so only an
// llvm.func can be it).
// expected-error @below {{'func.func' op poly-lower-assertions calls the C function 'dprintf' with type '!llvm.func<i32 (i32, ptr, ...)>', but the module defines '@dprintf' differently}}
func.func private @dprintf(i32)
func.func @f(%ok: i1) {
  poly.shape_assertion %ok {error_message = "failed"}
  return
}

// -----

// Tests a module whose @exit has another type.
// expected-error @below {{'llvm.func' op poly-lower-assertions calls the C function 'exit' with type '!llvm.func<void (i32)>', but the module defines '@exit' differently}}
llvm.func @exit(i64)
func.func @f(%ok: i1) {
  poly.shape_assertion %ok {error_message = "failed"}
  return
}

// -----

// Tests that a message with a NUL character is rejected (C strings end
// there).
func.func @f(%ok: i1) {
  // expected-error @below {{'poly.shape_assertion' op not supported by poly-lower-assertions: a message with a NUL character}}
  poly.shape_assertion %ok {error_message = "before\00after"}
  return
}

// -----

// Tests that inputs wider than 64 bits are rejected.
func.func @f(%ok: i1, %v: i128) {
  // expected-error @below {{'poly.shape_assertion' op not supported by poly-lower-assertions: input #0 has type 'i128', wider than 64 bits}}
  poly.shape_assertion %ok, %v {error_message = "v = {0}"} : i128
  return
}

// -----

// Tests that assertions in nested symbol tables are rejected.
module {
  module @inner {
    func.func @f(%ok: i1) {
      // expected-error @below {{'poly.shape_assertion' op not supported by poly-lower-assertions: an assertion in a nested symbol table}}
      poly.shape_assertion %ok {error_message = "failed"}
      return
    }
  }
}
