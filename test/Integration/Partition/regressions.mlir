// Programs the differential fuzzer (utils/tessera-fuzz-partition) found
// computing wrong results or emitting invalid IR, reduced.
// RUN: tessera-run %s --entry collapse --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry expand --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry explicitly_replicated --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry sub_axis_argument --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry returned_twice --random-inputs --print-results | FileCheck %s --check-prefix=TWICE

// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=4]>

// A reshape over a sharded dimension splits "x" into sub-axes: "x":(1)2 is
// the major half of "x" (the first dimension), "x":(2)2 the minor half.
func.func @collapse(%a: tensor<2x2xf32>) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  return %c : tensor<4xf32>
}

func.func @expand(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<2x4xf32> {
  %e = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %n = math.sin %e : tensor<2x4xf32>
  return %n : tensor<2x4xf32>
}

// Explicitly replicated axes do not stay in the resharded value.
func.func @explicitly_replicated(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], replicated={"x"}>}) -> tensor<4x4xf32> {
  %c = spmd.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<4x4xf32>
  %n = arith.negf %c : tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

// A sub-axis sharding on an argument: the single-device reference (every
// axis of size 1) drops the sub-axes it cannot have.
func.func @sub_axis_argument(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(1)2}]>}) -> tensor<8xf32> {
  %n = math.sin %a : tensor<8xf32>
  return %n : tensor<8xf32>
}

// A value returned twice: both results are read before the buffer is freed.
// TWICE: result0: f32[2] = [[[V0:.*]], [[V1:.*]]]
// TWICE: result1: f32[2] = [[[V0]], [[V1]]]
func.func @returned_twice(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %v = arith.negf %a : tensor<2xf32>
  return %v, %v : tensor<2xf32>, tensor<2xf32>
}
