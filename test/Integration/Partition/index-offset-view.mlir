// A linalg op that reads linalg.index of a loop whose sharding comes from
// an operand on another mesh than its results' (a mesh of other axes over
// the same devices): a sharding over axes of size 1 only is as good as
// replicated, so it stays on its mesh, and the device's offset along the
// loop must be read on that operand's mesh, whose axes these are (it was
// read on the results' mesh, which has no axis "v": 'unknown axis name';
// found by tessera-fuzz-partition, seed 7, program 761).
// RUN: tessera-run %s --entry argmax_over_view --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-run %s --entry argmax_over_view --random-inputs --seed 4 --check | FileCheck %s
// RUN: tessera-run %s --entry position_over_view --random-inputs --seed 5 --check | FileCheck %s

// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["a"=1, "b"=2]>
spmd.mesh @view = <["v"=2]>

// On one device ("v" of size 1: the single-device reference of --check)
// the argument keeps its view sharding into the argmax.
func.func @argmax_over_view(%m: tensor<1x3xi32> {spmd.sharding = #spmd.sharding<@view, [{"v"}, {}]>}) -> (tensor<3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}]>}) {
  %e = tensor.empty() : tensor<3xi32>
  %lowest = arith.constant -2147483648 : i32
  %best = linalg.fill ins(%lowest : i32) outs(%e : tensor<3xi32>) -> tensor<3xi32>
  %e2 = tensor.empty() : tensor<3xi32>
  %zero = arith.constant 0 : i32
  %where = linalg.fill ins(%zero : i32) outs(%e2 : tensor<3xi32>) -> tensor<3xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%m : tensor<1x3xi32>) outs(%best, %where : tensor<3xi32>, tensor<3xi32>) {
  ^bb0(%x: i32, %bv: i32, %bi: i32):
    %k = linalg.index 0 : index
    %ki = arith.index_cast %k : index to i32
    %gt = arith.cmpi sgt, %x, %bv : i32
    %nv = arith.select %gt, %x, %bv : i32
    %ni = arith.select %gt, %ki, %bi : i32
    linalg.yield %nv, %ni : i32, i32
  } -> (tensor<3xi32>, tensor<3xi32>)
  %sum = arith.addi %r#0, %r#1 : tensor<3xi32>
  return %sum : tensor<3xi32>
}

// An elementwise op that adds each element's row.
func.func @position_over_view(%m: tensor<2x3xi32> {spmd.sharding = #spmd.sharding<@view, [{"v"}, {}]>}) -> (tensor<2x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"b"}, {}]>}) {
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
