// RUN: tessera-opt %s --split-input-file --tessera-cpu-codegen="vector-bits=512 vector-registers=32 l1-cache-bytes=49152 l2-cache-bytes=1048576" | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tessera-cpu-codegen="vector-bits=512 vector-registers=32 l1-cache-bytes=49152 l2-cache-bytes=1048576" --verify-diagnostics -o /dev/null

// Tests that tessera-cpu-codegen vectorizes the linalg ops that are not
// contractions: one vector of 4 registers (64 f32 on AVX-512) along the loop
// of the innermost dimension of most of the data, 1 along the others.

// Elementwise, with a transposed operand: a static main tile, and the
// peeled remainder (100 = 64 + 36) masked.

// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[MASK:.*]] = vector.constant_mask [1, 36] : vector<1x64xi1>
// CHECK: scf.for
// CHECK: %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK: %[[Y:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<64x1xf32>, vector<1x64xf32>
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : vector<1x64xf32>
// CHECK: math.exp %[[S]] : vector<1x64xf32>
// CHECK: vector.transfer_read %{{.*}}, %[[MASK]] {{.*}} : tensor<1x36xf32>, vector<1x64xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[MASK]] {{.*}} : vector<1x64xf32>, tensor<1x36xf32>
// CHECK-NOT: linalg.generic
#id = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>
func.func @elementwise(%a: tensor<8x100xf32>, %b: tensor<100x8xf32>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  %r = linalg.generic {indexing_maps = [#id, #tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x100xf32>, tensor<100x8xf32>) outs(%e : tensor<8x100xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
}

// -----

// Dynamic shapes: masks from the runtime sizes.

// CHECK-LABEL: func.func @elementwise_dynamic
// CHECK: vector.create_mask
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<1x64xf32>
#id = affine_map<(i, j) -> (i, j)>
func.func @elementwise_dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%a : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A reduction along the innermost dimension: 64 partial sums carried in a
// vector through the reduction loop, combined once per row.

// CHECK-LABEL: func.func @sum_rows
// CHECK: scf.for
// CHECK: %[[PARTIAL:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<1x64xf32>)
// CHECK: %[[X:.*]] = vector.transfer_read %{{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK: arith.addf %[[X]], %[[ACC]] : vector<1x64xf32>
// CHECK: vector.multi_reduction <add>, %[[PARTIAL]], %{{.*}} [1] : vector<1x64xf32> to vector<1xf32>
func.func @sum_rows(%a: tensor<8x256xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.reduce ins(%a : tensor<8x256xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

// A reduction along an outer dimension: vectors along the kept dimension,
// accumulated through the reduction loop.

// CHECK-LABEL: func.func @sum_columns
// CHECK: scf.for %{{.*}} step %c64
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<64xf32>)
// CHECK: arith.addf %[[ACC]], %{{.*}} : vector<64xf32>
func.func @sum_columns(%a: tensor<256x128xf32>, %init: tensor<128xf32>) -> tensor<128xf32> {
  %r = linalg.reduce ins(%a : tensor<256x128xf32>) outs(%init : tensor<128xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<128xf32>
}

// -----

// A convolution: vectors along the output channels, accumulated in
// registers through the window and input channel loops, one contraction
// (FMAs) per step.

// CHECK-LABEL: func.func @conv
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} -> (vector<64xf32>)
// CHECK: scf.for %{{.*}} -> (vector<64xf32>)
// CHECK: scf.for %{{.*}} -> (vector<64xf32>)
// CHECK: vector.contract {{.*}} : vector<64x1x1x1xf32>, vector<64x1x1x1xf32> into vector<64xf32>
// CHECK: vector.transfer_write %[[ACC]]
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf
func.func @conv(%i: tensor<1x10x10x8xf32>, %f: tensor<3x3x8x64xf32>, %c: tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : tensor<1x10x10x8xf32>, tensor<3x3x8x64xf32>) outs(%c : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  return %r : tensor<1x8x8x64xf32>
}

// -----

// A reduction whose combiner is no single op with a neutral element (a
// select on a comparison with the accumulator, of a value that reads
// linalg.index) has no partial form: it is tiled along the reduced loop
// and its tiles reduce in order, and nothing is reported (the second RUN
// line fails on any diagnostic; the partial-reduction tiling used to report
// "Failed to anaysis the reduction operation" before falling back).

// CHECK-LABEL: func.func @select_max
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64 iter_args(%{{.*}} = %{{.*}}) -> (tensor<1xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x64xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK: linalg.index 1
func.func @select_max(%x: tensor<8x512xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x512xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%v: f32, %m: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %w = arith.addf %v, %jf : f32
    %gt = arith.cmpf ogt, %w, %m : f32
    %nm = arith.select %gt, %w, %m : f32
    linalg.yield %nm : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
