// Programs on several meshes over the same devices with other axes: a 2x4
// mesh, its 8-device 1-D view and a 4x2 regrouping (meshes-no-common.mlir
// has meshes whose axes cannot spell each other's layouts). Values move between the meshes by
// collectives (a permute to the layout the other mesh's axes spell, or a
// gather where they cannot), tessera-run emulates the devices of the
// largest mesh, and each run must match the single-device reference.
// `--mesh` resizes the axes it names in every mesh; a mesh that keeps its
// number of devices keeps its device order (@reversed below).
// RUN: tessera-run %s --entry view --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry view --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry view --random-inputs --check --mesh x=8,y=1 | FileCheck %s
// RUN: tessera-run %s --entry partial --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry partial --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry regroup --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry reordered --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry reordered --random-inputs --check --mesh x=4,y=2 --show-sharding | FileCheck %s --check-prefix=ORDER
// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @flat = <["z"=8]>
spmd.mesh @grid = <["a"=4, "b"=2]>
spmd.mesh @reversed = <["x"=2, "y"=4], device_ids=[7, 6, 5, 4, 3, 2, 1, 0]>

// Operands of one op on the 2x4 mesh and on its 1-D view.
func.func @view(%a: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                %b: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@flat, [{"z"}, {}]>})
    -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@flat, [{}, {"z"}]>}) {
  %0 = arith.addf %a, %b : tensor<16x8xf32>
  %1 = math.exp %0 : tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// Partial sums of a contraction on one mesh, reduced on the other.
func.func @partial(%a: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                   %w: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@flat, [{"z"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x4xf32>) -> tensor<16x4xf32>
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}], unreduced={"y"}>]>}
      ins(%a, %w : tensor<16x8xf32>, tensor<8x4xf32>) outs(%f : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %m : tensor<16x4xf32>
}

// The 2x4 mesh and a 4x2 regrouping of its devices.
func.func @regroup(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@grid, [{"a"}, {"b"}]>}) {
  %0 = math.tanh %a : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Another device order of the 2x4 mesh; --mesh x=4,y=2 keeps it.
func.func @reordered(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@reversed, [{"x", "y"}, {}]>}) {
  %0 = math.exp %a : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
// ORDER: check: all 1 results match the single-device reference
