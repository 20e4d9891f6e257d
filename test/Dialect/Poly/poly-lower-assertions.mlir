// RUN: tessera-opt %s --split-input-file --poly-lower-assertions | FileCheck %s

// Tests the lowering of an assertion: the negated predicate guards a
// dprintf on file descriptor 2 of the message as a printf format (values in
// placeholder order, a repeated placeholder passed twice, `{{` a literal
// `{`, `%` escaped, a newline) and exit(1). Index and narrower integers are
// printed as i64 (signed; i1 as 0 or 1).
// CHECK-LABEL: module
// CHECK-NEXT: llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32
// CHECK-NEXT: llvm.func @exit(i32)
// CHECK-NEXT: llvm.mlir.global private constant @[[MSG:__poly_assertion_message_0]]("a=%lld b=%lld a=%lld c=%lld d=%lld {literal} 100%% done\0A\00")
// CHECK-NEXT: llvm.mlir.global private constant @[[NONE:__poly_assertion_message_1]]("no values\0A\00")
// CHECK-LABEL: func.func @lowered
// CHECK-SAME: (%[[OK:.*]]: i1, %[[A:.*]]: index, %[[B:.*]]: i32, %[[C:.*]]: i64, %[[D:.*]]: i1)
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[FAILED:.*]] = arith.xori %[[OK]], %[[TRUE]] : i1
// CHECK-NEXT: scf.if %[[FAILED]] {
// CHECK-NEXT: %[[FD:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[FMT:.*]] = llvm.mlir.addressof @[[MSG]] : !llvm.ptr
// CHECK-NEXT: %[[A64:.*]] = arith.index_cast %[[A]] : index to i64
// CHECK-NEXT: %[[B64:.*]] = arith.extsi %[[B]] : i32 to i64
// CHECK-NEXT: %[[D64:.*]] = arith.extui %[[D]] : i1 to i64
// CHECK-NEXT: llvm.call @dprintf(%[[FD]], %[[FMT]], %[[A64]], %[[B64]], %[[A64]], %[[C]], %[[D64]]) vararg(!llvm.func<i32 (i32, ptr, ...)>) : (i32, !llvm.ptr, i64, i64, i64, i64, i64) -> i32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: llvm.call @exit(%[[ONE]]) : (i32) -> ()
// CHECK-NEXT: }
// CHECK: llvm.mlir.addressof @[[NONE]]
// CHECK: llvm.call @dprintf(%{{.*}}, %{{.*}}) vararg
// CHECK: llvm.mlir.addressof @[[NONE]]
// CHECK-NOT: poly.shape_assertion
func.func @lowered(%ok: i1, %a: index, %b: i32, %c: i64, %d: i1) {
  poly.shape_assertion %ok, %a, %b, %c, %d {error_message = "a={0} b={1} a={0} c={2} d={3} {{literal} 100% done"} : index, i32, i64, i1
  poly.shape_assertion %ok {error_message = "no values"}
  poly.shape_assertion %ok {error_message = "no values"}
  return
}

// -----

// Tests that declarations of the C functions already in the module are
// used: an llvm.func @dprintf and a func.func @exit (called with func.call).
// CHECK-LABEL: module
// CHECK-NOT: llvm.func @dprintf
// CHECK: llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32
// CHECK-NOT: llvm.func @exit
// CHECK-LABEL: func.func @existing_declarations
// CHECK: llvm.call @dprintf
// CHECK: call @exit(%{{.*}}) : (i32) -> ()
llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32
func.func private @exit(i32)
func.func @existing_declarations(%ok: i1) {
  poly.shape_assertion %ok {error_message = "failed"}
  return
}

// -----

// Tests that assertions inside loops and branches are lowered in place.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi
// CHECK: %[[FAILED:.*]] = arith.xori %[[OK]]
// CHECK-NEXT: scf.if %[[FAILED]] {
// CHECK: llvm.call @exit
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %ok = arith.cmpi slt, %i, %n : index
    poly.shape_assertion %ok, %i {error_message = "i = {0}"} : index
  }
  return
}

// -----

// Tests that a module without assertions is unchanged (no declarations).
// CHECK-LABEL: module
// CHECK-NEXT: func.func @no_assertions
// CHECK-NOT: llvm.func
func.func @no_assertions() {
  return
}
