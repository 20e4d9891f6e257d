// RUN: tessera-opt %s --tessera-propagate --spmd-insert-reshards | FileCheck %s

// An argmin over a dimension sharded on the 1-D view of the mesh's devices,
// whose result is declared on the 2-D mesh: the partial results (one per
// block of the view's "v") are on the view, their other dimensions
// replicated; the combine runs on the result's mesh.

spmd.mesh @mesh = <["i"=3, "j"=2]>
spmd.mesh @view = <["v"=6]>

// CHECK-LABEL: func.func @argmin_on_view
// CHECK: %[[E:.*]] = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@view, [{}, {"v"}]>]>} : tensor<4x6xi32>
// CHECK: linalg.broadcast {{.*}} outs(%[[E]] : tensor<4x6xi32>) dimensions = [1]  {spmd.sharding = #spmd.sharding_per_value<[<@view, [{}, {"v"}]>]>}
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}}spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"j"}]>, <@mesh, [{"j"}]>]>
func.func @argmin_on_view(%a: tensor<6x4xi32> {spmd.sharding = #spmd.sharding<@view, [{"v"}, {?}]>})
    -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"j"}]>}) {
  %max = arith.constant 2147483647 : i32
  %e = tensor.empty() : tensor<4xi32>
  %f = linalg.fill ins(%max : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %ie = tensor.empty() : tensor<4xi32>
  %zero = arith.constant 0 : i32
  %if = linalg.fill ins(%zero : i32) outs(%ie : tensor<4xi32>) -> tensor<4xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>],
                         iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<6x4xi32>) outs(%f, %if : tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%x: i32, %av: i32, %ai: i32):
    %k = linalg.index 0 : index
    %kc = arith.index_cast %k : index to i32
    %c = arith.cmpi slt, %x, %av : i32
    %nv = arith.select %c, %x, %av : i32
    %ni = arith.select %c, %kc, %ai : i32
    linalg.yield %nv, %ni : i32, i32
  } -> (tensor<4xi32>, tensor<4xi32>)
  %0 = arith.addi %r#1, %r#0 : tensor<4xi32>
  return %0 : tensor<4xi32>
}
