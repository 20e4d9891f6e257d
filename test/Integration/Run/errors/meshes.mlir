// A 2x3 and a 3x2 mesh over the same six devices: "r"=3 of the second is no
// axis or sub-axis of the first (the mesh tessera-run emulates), so the
// runtime cannot form its groups. spmd-partition moves values between the
// two (a gather on one mesh, a slice on the other), but tessera-run stops
// with an error naming the collective, not a wrong answer.
// RUN: not tessera-run %s --random-inputs --check 2>&1 | FileCheck %s
// CHECK: meshes.mlir:[[@LINE+9]]:3: error: 'comm.all_gather' op is over a mesh whose axes do not fall on whole axes or sub-axes of the runtime's mesh #spmd.mesh<["p"=2, "q"=3]>
// CHECK-NOT: check: all

spmd.mesh @m23 = <["p"=2, "q"=3]>
spmd.mesh @m32 = <["r"=3, "s"=2]>
func.func @main(%a: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@m23, [{"p"}, {}]>})
    -> (tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@m23, [{"q"}, {}]>}) {
  %0 = spmd.sharding_constraint %a <@m32, [{"r"}, {"s"}]> : tensor<6x4xf32>
  %1 = math.exp %0 {spmd.sharding = #spmd.sharding_per_value<[<@m32, [{"r"}, {"s"}]>]>} : tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}
