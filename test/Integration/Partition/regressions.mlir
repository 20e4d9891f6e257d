// Programs the differential fuzzer (utils/tessera-fuzz-partition) found
// computing wrong results or emitting invalid IR, reduced.
// RUN: tessera-run %s --entry collapse --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry expand --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry explicitly_replicated --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry sub_axis_argument --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry vector_absi --random-inputs --check | FileCheck %s --check-prefix=THREE
// RUN: tessera-run %s --entry minor_first --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry returned_twice --random-inputs --print-results | FileCheck %s --check-prefix=TWICE

// CHECK: check: all 1 results match the single-device reference
// THREE: check: all 3 results match the single-device reference

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

// math.absi fused into a matmul's packing became a 2-D vector op, which
// MathToLLVM does not lower (tessera-cpu-lower-vectors now expands it).
func.func @vector_absi(%a0: tensor<4x4x4xi32>, %a1: tensor<32x2xi32>) -> (tensor<8x4x4xi32>, tensor<8xi32>, tensor<4x2xi32>) {
  %v0_e = tensor.empty() : tensor<4x4x4xi32>
  %v0 = linalg.transpose ins(%a0 : tensor<4x4x4xi32>) outs(%v0_e : tensor<4x4x4xi32>) permutation = [2, 1, 0]
  %v1 = tensor.concat dim(2) %v0, %v0 : (tensor<4x4x4xi32>, tensor<4x4x4xi32>) -> tensor<4x4x8xi32>
  %v2 = tensor.concat dim(0) %v0, %a0 : (tensor<4x4x4xi32>, tensor<4x4x4xi32>) -> tensor<8x4x4xi32>
  %v3_e = tensor.empty() : tensor<8xi32>
  %v3_z = arith.constant 0 : i32
  %v3_f = linalg.fill ins(%v3_z : i32) outs(%v3_e : tensor<8xi32>) -> tensor<8xi32>
  %v3 = linalg.reduce ins(%v1 : tensor<4x4x8xi32>) outs(%v3_f : tensor<8xi32>) dimensions = [0, 1]
    (%in: i32, %acc: i32) {
      %r = arith.addi %in, %acc : i32
      linalg.yield %r : i32
    }
  %v4 = math.absi %v1 : tensor<4x4x8xi32>
  %v5 = tensor.collapse_shape %v4 [[0], [1, 2]] : tensor<4x4x8xi32> into tensor<4x32xi32>
  %v6_e = tensor.empty() : tensor<4x2xi32>
  %v6_z = arith.constant 0 : i32
  %v6_f = linalg.fill ins(%v6_z : i32) outs(%v6_e : tensor<4x2xi32>) -> tensor<4x2xi32>
  %v6 = linalg.matmul ins(%v5, %a1 : tensor<4x32xi32>, tensor<32x2xi32>) outs(%v6_f : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %v2, %v3, %v6 : tensor<8x4x4xi32>, tensor<8xi32>, tensor<4x2xi32>
}

// The halves of "x" minor first, ("x":(2)2 then "x":(1)2 in the sharding
// grammar) are "x":(1)2 then "x":(2)2 in comm's notation, which counts the
// minor parts: a valid list that comm's verifier took for a mergeable one
// (it applied the sharding grammar's rule).
func.func @minor_first(%a: tensor<2x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x":(2)2}, {"x":(1)2}]>}) -> tensor<6xf32> {
  %0 = math.sin %a : tensor<2x3xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  return %1 : tensor<6xf32>
}
