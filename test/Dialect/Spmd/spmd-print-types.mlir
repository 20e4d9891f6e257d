// RUN: tessera-opt %s --split-input-file --spmd-print-types --verify-diagnostics
// RUN: tessera-opt %s --split-input-file --spmd-print-types 2>&1 >/dev/null | FileCheck %s
// RUN: tessera-opt %s --split-input-file --spmd-print-types=all-axes=true 2>&1 >/dev/null | FileCheck %s --check-prefix=ALL

// The first RUN line checks that every op with results gets exactly one
// remark, at its own line (`expected-remark` matches a substring). The
// second checks each default message in full, the third the messages with
// `all-axes=true`; both rely on remarks coming out in source order.

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests that a value's type comes from its own sharding: an elementwise op
// without one prints unsharded even when its operands are sharded function
// arguments (the pass infers nothing), and `spmd.sharding` /
// `spmd.out_sharding` on an op are printed.
func.func @args_through_elementwise(
    %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // CHECK: remark: f32[8,4]{{$}}
  // ALL: remark: f32[8,4]{{$}}
  // expected-remark @+1 {{f32[8,4]}}
  %0 = arith.negf %a : tensor<8x4xf32>
  // CHECK: remark: f32[8@x,4@y]{{$}}
  // ALL: remark: f32[8@x,4@y]{{$}}
  // expected-remark @+1 {{f32[8@x,4@y]}}
  %1 = arith.addf %0, %b {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
  // CHECK: remark: f32[8@x,4]{{$}}
  // ALL: remark: f32[8@x,4]{{$}}
  // expected-remark @+1 {{f32[8@x,4]}}
  %2 = math.exp %1 {spmd.out_sharding = #spmd.sharding<@mesh, [{"x"}, {}]>} : tensor<8x4xf32>
  return %2 : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests JAX's short dtype names and the `@(a,b)` form of a dimension sharded
// over several axes, major to minor.
func.func @dtypes_and_multi_axis(%p: tensor<8x4xf32>) {
  // CHECK: remark: i32[8@(x,y),4]{{$}}
  // ALL: remark: i32[8@(x,y),4]{{$}}
  // expected-remark @+1 {{i32[8@(x,y),4]}}
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x", "y"}, {}]>]>} : tensor<8x4xi32>
  // CHECK: remark: bf16[8,4@(y,x)]{{$}}
  // ALL: remark: bf16[8,4@(y,x)]{{$}}
  // expected-remark @+1 {{bf16[8,4@(y,x)]}}
  %1 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"y", "x"}]>]>} : tensor<8x4xbf16>
  // CHECK: remark: u8[16]{{$}}
  // ALL: remark: u8[16]{{$}}
  // expected-remark @+1 {{u8[16]}}
  %2 = tensor.empty() : tensor<16xui8>
  // CHECK: remark: f8_e4m3fn[16@y]{{$}}
  // ALL: remark: f8_e4m3fn[16@y]{{$}}
  // expected-remark @+1 {{f8_e4m3fn[16@y]}}
  %3 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>]>} : tensor<16xf8E4M3FN>
  // CHECK: remark: c64[2,2]{{$}}
  // ALL: remark: c64[2,2]{{$}}
  // expected-remark @+1 {{c64[2,2]}}
  %4 = tensor.empty() : tensor<2x2xcomplex<f32>>
  // CHECK: remark: bool[8,4]{{$}}
  // ALL: remark: bool[8,4]{{$}}
  // expected-remark @+1 {{bool[8,4]}}
  %5 = arith.cmpf olt, %p, %p : tensor<8x4xf32>
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests that an op with several results gets one remark listing their types
// in order, joined by `, `.
func.func @multi_result(%a: tensor<8xi32>) {
  // CHECK: remark: i32[8@x], bool[8@x]{{$}}
  // ALL: remark: i32[8@x], bool[8@x]{{$}}
  // expected-remark @+1 {{i32[8@x], bool[8@x]}}
  %sum, %overflow = arith.addui_extended %a, %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{"x"}]>]>} : tensor<8xi32>, tensor<8xi1>
  // CHECK: remark: i32[8], bool[8]{{$}}
  // ALL: remark: i32[8], bool[8]{{$}}
  // expected-remark @+1 {{i32[8], bool[8]}}
  %s2, %o2 = arith.addui_extended %a, %a : tensor<8xi32>, tensor<8xi1>
  // CHECK: remark: i32[8@y], i32[8]{{$}}
  // ALL: remark: i32[8@y], i32[8]{{$}}
  // expected-remark @+1 {{i32[8@y], i32[8]}}
  %lo, %hi = arith.mului_extended %a, %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}]>, <@mesh, [{}]>]>} : tensor<8xi32>
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests that ops nested in an scf.for body get their remarks, after the
// loop's own remark, and that index scalars print as `index[]`.
func.func @nested_for(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x4xf32> {
  // CHECK: remark: index[]{{$}}
  // ALL: remark: index[]{{$}}
  // expected-remark @+1 {{index[]}}
  %c0 = arith.constant 0 : index
  // CHECK: remark: index[]{{$}}
  // ALL: remark: index[]{{$}}
  // expected-remark @+1 {{index[]}}
  %c4 = arith.constant 4 : index
  // CHECK: remark: index[]{{$}}
  // ALL: remark: index[]{{$}}
  // expected-remark @+1 {{index[]}}
  %c1 = arith.constant 1 : index
  // CHECK: remark: f32[8@x,4]{{$}}
  // ALL: remark: f32[8@x,4]{{$}}
  // expected-remark @+1 {{f32[8@x,4]}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (tensor<8x4xf32>) {
    // CHECK: remark: f32[8@x,4@y]{{$}}
    // ALL: remark: f32[8@x,4@y]{{$}}
    // expected-remark @+1 {{f32[8@x,4@y]}}
    %n = arith.negf %acc {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
    // CHECK: remark: f32[8,4]{{$}}
    // ALL: remark: f32[8,4]{{$}}
    // expected-remark @+1 {{f32[8,4]}}
    %m = arith.addf %n, %acc : tensor<8x4xf32>
    scf.yield %m : tensor<8x4xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
  return %r : tensor<8x4xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests a multi-result scf.if with ops in both branches.
func.func @nested_if(%c: i1, %a: tensor<8xf32>, %b: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xi32>) {
  // CHECK: remark: f32[8@x], i32[8@y]{{$}}
  // ALL: remark: f32[8@x], i32[8@y]{{$}}
  // expected-remark @+1 {{f32[8@x], i32[8@y]}}
  %r:2 = scf.if %c -> (tensor<8xf32>, tensor<8xi32>) {
    // CHECK: remark: f32[8@x]{{$}}
    // ALL: remark: f32[8@x]{{$}}
    // expected-remark @+1 {{f32[8@x]}}
    %n = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<8xf32>
    scf.yield %n, %b : tensor<8xf32>, tensor<8xi32>
  } else {
    // CHECK: remark: i32[8]{{$}}
    // ALL: remark: i32[8]{{$}}
    // expected-remark @+1 {{i32[8]}}
    %m = arith.addi %b, %b : tensor<8xi32>
    scf.yield %a, %m : tensor<8xf32>, tensor<8xi32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, [{"y"}]>]>}
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}

// -----

spmd.mesh @mixed = <["x"=2, "y"=2], axis_types=[explicit, auto]>

// Tests that Auto axes are erased from types by default (inside a
// multi-axis dimension too) and shown with `all-axes`.
func.func @explicit_and_auto(%a: tensor<8x4xf32>) {
  // CHECK: remark: f32[8@x,4]{{$}}
  // ALL: remark: f32[8@x,4@y]{{$}}
  // expected-remark @+1 {{f32[8@x,4]}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mixed, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
  // CHECK: remark: f32[8@x,4]{{$}}
  // ALL: remark: f32[8@(y,x),4]{{$}}
  // expected-remark @+1 {{f32[8@x,4]}}
  %1 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mixed, [{"y", "x"}, {}]>]>} : tensor<8x4xf32>
  // CHECK: remark: f32[8,4]{{$}}
  // ALL: remark: f32[8@y,4]{{$}}
  // expected-remark @+1 {{f32[8,4]}}
  %2 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mixed, [{"y"}, {}]>]>} : tensor<8x4xf32>
  return
}

// -----

spmd.mesh @auto = <["x"=2, "y"=2]>

// Tests that on a fully Auto mesh every type prints unsharded, as in JAX.
func.func @fully_auto(%a: tensor<8x4xf32>) {
  // CHECK: remark: f32[8,4]{{$}}
  // ALL: remark: f32[8@x,4@y]{{$}}
  // expected-remark @+1 {{f32[8,4]}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@auto, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
  return
}

// -----

spmd.mesh @manual = <["x"=2, "y"=2], axis_types=[manual, explicit]>

// Tests that Manual axes are erased from types by default and shown with
// `all-axes`.
func.func @manual_axes(%a: tensor<8x4xf32>) {
  // CHECK: remark: f32[8,4@y]{{$}}
  // ALL: remark: f32[8@x,4@y]{{$}}
  // expected-remark @+1 {{f32[8,4@y]}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@manual, [{"x"}, {"y"}]>]>} : tensor<8x4xf32>
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2, "z"=2], axis_types=[explicit, explicit, auto]>

// Tests the unreduced annotation: `U`, `U_max`, `U_min`, several axes in
// parentheses, and unreduced Auto axes erased by default.
func.func @unreduced(%a: tensor<2x2xf32>) {
  // CHECK: remark: f32[2,2]{U:x}{{$}}
  // ALL: remark: f32[2,2]{U:x}{{$}}
  // expected-remark @+1 {{f32[2,2]{U:x}}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"x"}>]>} : tensor<2x2xf32>
  // CHECK: remark: f32[2@y,2]{U_max:x}{{$}}
  // ALL: remark: f32[2@y,2]{U_max:x}{{$}}
  // expected-remark @+1 {{f32[2@y,2]{U_max:x}}}
  %1 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y"}, {}], unreduced=max{"x"}>]>} : tensor<2x2xf32>
  // CHECK: remark: f32[2,2]{U_min:(x,y)}{{$}}
  // ALL: remark: f32[2,2]{U_min:(x,y)}{{$}}
  // expected-remark @+1 {{f32[2,2]{U_min:(x,y)}}}
  %2 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced=min{"x", "y"}>]>} : tensor<2x2xf32>
  // CHECK: remark: f32[2,2]{U:x}{{$}}
  // ALL: remark: f32[2,2]{U:(x,z)}{{$}}
  // expected-remark @+1 {{f32[2,2]{U:x}}}
  %3 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"x", "z"}>]>} : tensor<2x2xf32>
  // CHECK: remark: f32[2,2]{{$}}
  // ALL: remark: f32[2,2]{U:z}{{$}}
  // expected-remark @+1 {{f32[2,2]}}
  %4 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}], unreduced={"z"}>]>} : tensor<2x2xf32>
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests that rank-0 tensors and scalars both print as `f32[]`, with an
// unreduced annotation when they have one.
func.func @rank_zero(%t: tensor<f32>) {
  // CHECK: remark: f32[]{U:y}{{$}}
  // ALL: remark: f32[]{U:y}{{$}}
  // expected-remark @+1 {{f32[]{U:y}}}
  %0 = arith.addf %t, %t {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [], unreduced={"y"}>]>} : tensor<f32>
  // CHECK: remark: f32[]{{$}}
  // ALL: remark: f32[]{{$}}
  // expected-remark @+1 {{f32[]}}
  %1 = tensor.extract %0[] : tensor<f32>
  // CHECK: remark: f32[]{{$}}
  // ALL: remark: f32[]{{$}}
  // expected-remark @+1 {{f32[]}}
  %2 = arith.constant 1.0 : f32
  // CHECK: remark: bool[]{{$}}
  // ALL: remark: bool[]{{$}}
  // expected-remark @+1 {{bool[]}}
  %3 = arith.cmpf olt, %1, %2 : f32
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests that dynamic dimensions print as `?`, sharded or not (nothing here
// knows their symbolic names).
func.func @dynamic_dims(%a: tensor<?x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  // CHECK: remark: f32[?@x,4@y]{{$}}
  // ALL: remark: f32[?@x,4@y]{{$}}
  // expected-remark @+1 {{f32[?@x,4@y]}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<?x4xf32>
  // CHECK: remark: index[]{{$}}
  // ALL: remark: index[]{{$}}
  // expected-remark @+1 {{index[]}}
  %c0 = arith.constant 0 : index
  // CHECK: remark: index[]{{$}}
  // ALL: remark: index[]{{$}}
  // expected-remark @+1 {{index[]}}
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  // CHECK: remark: f32[?,?]{{$}}
  // ALL: remark: f32[?,?]{{$}}
  // expected-remark @+1 {{f32[?,?]}}
  %1 = tensor.empty(%d, %d) : tensor<?x?xf32>
  return
}

// -----

spmd.mesh @mesh = <["x"=4, "y"=2], axis_types=[explicit, explicit]>

// Tests that sub-axes print as `x:(m)k`.
func.func @sub_axes(%a: tensor<8x4xf32>) {
  // CHECK: remark: f32[8@x:(1)2,4@x:(2)2]{{$}}
  // ALL: remark: f32[8@x:(1)2,4@x:(2)2]{{$}}
  // expected-remark @+1 {{f32[8@x:(1)2,4@x:(2)2]}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x":(1)2}, {"x":(2)2}]>]>} : tensor<8x4xf32>
  // CHECK: remark: f32[8@(y,x:(1)2),4]{U:x:(2)2}{{$}}
  // ALL: remark: f32[8@(y,x:(1)2),4]{U:x:(2)2}{{$}}
  // expected-remark @+1 {{f32[8@(y,x:(1)2),4]{U:x:(2)2}}}
  %1 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"y", "x":(1)2}, {}], unreduced={"x":(2)2}>]>} : tensor<8x4xf32>
  return
}

// -----

// Tests an inlined mesh, and that replicated axes, open dimensions and
// priorities are not part of the type.
func.func @inlined_mesh_and_hidden_parts(%a: tensor<8x4xf32>) {
  // CHECK: remark: f32[8@a,4]{{$}}
  // ALL: remark: f32[8@a,4@b]{{$}}
  // expected-remark @+1 {{f32[8@a,4]}}
  %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<mesh<["a"=2, "b"=2], axis_types=[explicit, auto]>, [{"a"}, {"b"}]>]>} : tensor<8x4xf32>
  // CHECK: remark: f32[8@a,4]{{$}}
  // ALL: remark: f32[8@a,4]{{$}}
  // expected-remark @+1 {{f32[8@a,4]}}
  %1 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<mesh<["a"=2, "b"=2], axis_types=[explicit, explicit]>, [{"a", ?}p1, {?}], replicated={"b"}>]>} : tensor<8x4xf32>
  return
}

// -----

// Tests that types other than tensors and scalars print as MLIR prints them.
func.func @other_types() {
  // CHECK: remark: vector<4xf32>{{$}}
  // ALL: remark: vector<4xf32>{{$}}
  // expected-remark @+1 {{vector<4xf32>}}
  %0 = arith.constant dense<1.0> : vector<4xf32>
  // CHECK: remark: memref<8xf32>{{$}}
  // ALL: remark: memref<8xf32>{{$}}
  // expected-remark @+1 {{memref<8xf32>}}
  %1 = memref.alloc() : memref<8xf32>
  memref.dealloc %1 : memref<8xf32>
  return
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4], axis_types=[explicit, explicit]>

// Tests that ops in a function nested in another module find the mesh
// declared there.
module @outer {
  spmd.mesh @inner_mesh = <["p"=8], axis_types=[explicit]>
  func.func @nested_module(%a: tensor<8xf32>) {
    // CHECK: remark: f32[8@p]{{$}}
    // ALL: remark: f32[8@p]{{$}}
    // expected-remark @+1 {{f32[8@p]}}
    %0 = arith.negf %a {spmd.sharding = #spmd.sharding_per_value<[<@inner_mesh, [{"p"}]>]>} : tensor<8xf32>
    return
  }
}

// -----

// Tests that the implicit body of a named linalg op, which has no source
// location, gets no remark (only the matmul itself does).
func.func @implicit_linalg_body(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK: remark: f32[4,4]{{$}}
  // CHECK-NOT: <unknown>
  // ALL: remark: f32[4,4]{{$}}
  // ALL-NOT: <unknown>
  // expected-remark @+1 {{f32[4,4]}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
