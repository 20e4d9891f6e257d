// A linalg.index of a sharded loop is offset by the device's block, built
// on the mesh of the operand whose sharding gives the loop's axes. Here the
// input is on @mesh (its axis "x" of size 1 needs no reshard) and the
// results on @view: the offset must not name "x" on @view (it did, and the
// single-device reference failed to build: 'comm.axis_index' op unknown
// axis name). Found by tessera-fuzz-partition (seed 103, program 378).
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --check --mesh x=2,y=1 | FileCheck %s
// RUN: tessera-run %s --random-inputs --check --mesh x=2,y=2,v=4 | FileCheck %s
// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=1, "y"=2]>
spmd.mesh @view = <["v"=2]>
func.func @main(%a: tensor<8x8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<8xi32> {spmd.sharding = #spmd.sharding<@view, [{"v"}]>}) {
  %big = arith.constant 2147483647 : i32
  %e = tensor.empty() : tensor<8xi32>
  %f = linalg.fill ins(%big : i32) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %zero = arith.constant 0 : i32
  %fi = linalg.fill ins(%zero : i32) outs(%e : tensor<8xi32>) -> tensor<8xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x8xi32>) outs(%f, %fi : tensor<8xi32>, tensor<8xi32>) {
  ^bb0(%x: i32, %av: i32, %ai: i32):
    %k = linalg.index 1 : index
    %kc = arith.index_cast %k : index to i32
    %c = arith.cmpi slt, %x, %av : i32
    %nv = arith.select %c, %x, %av : i32
    %ni = arith.select %c, %kc, %ai : i32
    linalg.yield %nv, %ni : i32, i32
  } -> (tensor<8xi32>, tensor<8xi32>)
  return %r#1 : tensor<8xi32>
}
