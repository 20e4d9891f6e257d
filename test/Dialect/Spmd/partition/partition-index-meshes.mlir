// RUN: tessera-opt %s --tessera-partition | FileCheck %s

// Tests that the device's offset added to linalg.index is read on the mesh
// of the operand whose sharding the loop takes: the argument is sharded
// over "v" of @view, an axis of size 1 (as good as replicated, so it is
// not moved to the results' @mesh, which has no "v").
spmd.mesh @mesh = <["a"=1, "b"=1]>
spmd.mesh @view = <["v"=1]>

// CHECK-LABEL: func.func @row_plus_index(
// CHECK: %[[OFF:.*]] = comm.axis_index over @view {"v"} : index
// CHECK: %[[START:.*]] = arith.muli %[[OFF]], %{{.*}} : index
// CHECK: linalg.generic
// CHECK: %[[K:.*]] = linalg.index 0 : index
// CHECK: arith.addi %[[K]], %[[START]] : index
func.func @row_plus_index(%m: tensor<2x3xi32> {spmd.sharding = #spmd.sharding<@view, [{"v"}, {}]>}) -> (tensor<2x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) {
  %e = tensor.empty() : tensor<2x3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<2x3xi32>) outs(%e : tensor<2x3xi32>) {
  ^bb0(%x: i32, %o: i32):
    %k = linalg.index 0 : index
    %ki = arith.index_cast %k : index to i32
    %s = arith.addi %x, %ki : i32
    linalg.yield %s : i32
  } -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
