// A tensor.pad of a sharded dimension is replaced by a halo exchange
// (comm.permute of the neighbours' rows). When its result's axes do not
// divide the padded size, the last device's block holds elements past the
// end; the value that replaces the pad keeps the pad's sharding, so a
// reduction over that dimension still reads only the valid part. (Found by
// tessera-fuzz-partition: the pad value was summed for the elements past
// the end.)
// RUN: tessera-run %s --entry sum --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry sum --random-inputs --check --mesh x=2 | FileCheck %s
// RUN: tessera-run %s --entry prod --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry prod --random-inputs --check --mesh x=2 | FileCheck %s
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR
// CHECK: check: all 1 results match the single-device reference

spmd.mesh @mesh = <["x"=4]>

// 4 columns over 4 devices, padded by 2 in front: 6 columns, in blocks of 2
// over 4 devices (8 places, the last device's 2 past the end).
// IR-LABEL: func.func @sum
// IR: comm.permute
// IR: %[[BLOCK:.*]] = tensor.extract_slice %{{.*}} : tensor<4x5xf32> to tensor<4x2xf32>
// IR: %[[VALID:.*]] = tensor.extract_slice %[[BLOCK]][0, 0] [4, %{{.*}}] [1, 1] : tensor<4x2xf32> to tensor<4x?xf32>
// IR: linalg.reduce ins(%[[VALID]] : tensor<4x?xf32>)
// IR: comm.all_reduce sum
func.func @sum(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4xf32> {
  %c = arith.constant -1.0 : f32
  %p = tensor.pad %a low[0, 2] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x4xf32> to tensor<4x6xf32>
  %e = tensor.empty() : tensor<4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%p : tensor<4x6xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// A high pad: 5 columns in blocks of 2 (the last device's second element
// past the end). A product that read it would multiply by the padding
// value once more.
func.func @prod(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4xf32> {
  %c = arith.constant 2.0 : f32
  %p = tensor.pad %a low[0, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<4x4xf32> to tensor<4x5xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%p : tensor<4x5xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.mulf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}
