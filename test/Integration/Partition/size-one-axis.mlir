// Found by utils/tessera-fuzz-partition, reduced: a size-1 axis before a
// real one ({"y", "x"} with y = 1) must not hide the sharding from
// spmd-insert-reshards, and a splat constant keeps its own sharding.
// RUN: tessera-run %s --random-inputs --check | FileCheck %s
// CHECK: check: all 1 results match the single-device reference

// A size-1 axis before a real one ({"y", "x"} with y = 1), and a splat
// constant in the same layout: the add stays sharded (the size-1 axis does
// not hide the candidate) and the constant keeps its own sharding.
spmd.mesh @two = <["x"=2, "y"=1]>

func.func @size_one_axis(%a: tensor<10xf32>) -> tensor<10xf32> {
  %c = spmd.sharding_constraint %a <@two, [{"y", "x"}]> : tensor<10xf32>
  %one = arith.constant dense<1.0> : tensor<10xf32>
  %s = arith.addf %a, %one : tensor<10xf32>
  return %s : tensor<10xf32>
}

