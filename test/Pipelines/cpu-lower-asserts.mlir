// RUN: tessera-opt %s --split-input-file --tessera-cpu-lower-asserts | FileCheck %s

// Tests that a cf.assert becomes a branch to the runtime's assertion call
// with its location and message, then unreachable.
// CHECK: llvm.mlir.global internal constant @tessera_assert_message_0("{{.*}}cpu-lower-asserts.mlir:[[@LINE+10]]:3: index out of range")
// CHECK: llvm.func @tessera_rt_assert_failed(!llvm.ptr, i64)
// CHECK-LABEL: func.func @one_assert
// CHECK:   cf.cond_br %{{.*}}, ^[[CONT:.*]], ^[[FAIL:bb[0-9]+]]
// CHECK: ^[[FAIL]]:
// CHECK:   llvm.call @tessera_rt_assert_failed(%{{.*}}, %{{.*}}) : (!llvm.ptr, i64) -> ()
// CHECK:   llvm.unreachable
// CHECK: ^[[CONT]]:
// CHECK:   return %{{.*}} : i32
func.func @one_assert(%ok: i1, %x: i32) -> i32 {
  cf.assert %ok, "index out of range"
  return %x : i32
}

// -----

// Tests that a module without cf.assert is left alone (no declaration).
// CHECK-LABEL: func.func @negative_no_assert
// CHECK-NOT: tessera_rt_assert_failed
func.func @negative_no_assert(%x: i32) -> i32 {
  return %x : i32
}
