// Global-view programs whose operands disagree: spmd-insert-reshards and
// spmd-reshard-to-collectives move the data, spmd-partition gives every
// device its blocks. Each runs on 1, 2, 4 and 8 emulated devices (1-D and
// 2-D meshes, a non-iota device order) and must match the single-device
// reference.
// RUN: tessera-run %s --entry transpose_add --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry transpose_add --random-inputs --check --mesh x=1,y=1 | FileCheck %s
// RUN: tessera-run %s --entry transpose_add --random-inputs --check --mesh x=2,y=1 | FileCheck %s
// RUN: tessera-run %s --entry transpose_add --random-inputs --check --mesh x=1,y=4 | FileCheck %s
// RUN: tessera-run %s --entry transpose_add --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry reductions --random-inputs --check | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry reductions --random-inputs --check --mesh x=2,y=2 | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry reductions --random-inputs --check --mesh x=1,y=2 | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry reshapes --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry reshapes --random-inputs --check --mesh x=2,y=2 | FileCheck %s
// RUN: tessera-run %s --entry reshapes --random-inputs --check --mesh x=8,y=1 | FileCheck %s
// RUN: tessera-run %s --entry iota --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry iota --random-inputs --check --mesh x=4,y=1 | FileCheck %s
// RUN: tessera-run %s --entry slices --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry slices --random-inputs --check --mesh x=2,y=2 | FileCheck %s
// RUN: tessera-run %s --entry loop --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry loop --random-inputs --check --mesh x=1,y=2 | FileCheck %s
// RUN: tessera-run %s --entry attention --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry attention --random-inputs --check --mesh x=2,y=2 | FileCheck %s
// RUN: tessera-run %s --entry integers --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry integers --random-inputs --check --mesh x=4,y=2 | FileCheck %s
// RUN: tessera-run %s --entry reduce_scatter --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry reduce_scatter --random-inputs --check --mesh x=1,y=8 | FileCheck %s
// RUN: tessera-run %s --entry permute --random-inputs --check | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry permute --random-inputs --check --mesh x=2,y=2 | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry permute --random-inputs --check --mesh x=4,y=2 | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry permute --random-inputs --check --mesh x=1,y=8 | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry destinations --random-inputs --check | FileCheck %s --check-prefix=FIVE
// RUN: tessera-run %s --entry destinations --random-inputs --check --mesh x=1,y=4 | FileCheck %s --check-prefix=FIVE
// RUN: tessera-run %s --entry destinations --random-inputs --check --mesh x=2,y=2 | FileCheck %s --check-prefix=FIVE
// RUN: tessera-run %s --entry random_fills --random-inputs --check | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry random_fills --random-inputs --check --mesh x=1,y=4 | FileCheck %s --check-prefix=TWO
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference
// TWO: check: all 2 results match the single-device reference
// FIVE: check: all 5 results match the single-device reference
// The partitioned reduce_scatter entry: one comm.reduce_scatter and nothing
// else moves data (each device sends its 16x4 partial products once).
// IR-LABEL: func.func @reduce_scatter
// IR-NOT: comm.all
// IR: comm.reduce_scatter sum %{{.*}} over @mesh {"y"} dim 0 : tensor<16x16xf32> -> tensor<4x16xf32>
// IR-NOT: comm.
// IR: return
// The permute entry: the axes of a dimension in another order move each
// block to one device (one comm.permute per result, nothing gathered), also
// when the dimension is padded (12 rows over 8 devices).
// IR-LABEL: func.func @permute
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [0 -> 0, 1 -> 4, 2 -> 1, 3 -> 5, 4 -> 2, 5 -> 6, 6 -> 3, 7 -> 7] : tensor<2x8xf32>
// IR-NOT: comm.all_gather
// IR: comm.permute %{{.*}} over @mesh {"x", "y"} pairs [0 -> 0, 1 -> 4, 2 -> 1, 3 -> 5, 4 -> 2, 5 -> 6, 6 -> 3, 7 -> 7] : tensor<2x8xf32>
// IR-NOT: comm.
// IR: return
// The destinations entry: zeros need no select on the group's first
// device; the fill of ones does.
// IR-LABEL: func.func @destinations
// IR-COUNT-1: arith.select
// IR-NOT: arith.select
// IR: return

spmd.mesh @mesh = <["x"=2, "y"=4], device_ids=[5, 3, 0, 6, 1, 7, 2, 4]>

// A transposed operand: all-to-all / gathers and slices; the result is
// declared on other axes than the ops compute it.
func.func @transpose_add(
    %a: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y", "x"}]>}) {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%b : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0]
  %s = arith.addf %a, %t : tensor<16x32xf32>
  %m = arith.mulf %s, %a : tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// Sum and max reductions over sharded dimensions.
func.func @reductions(
    %a: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>})
    -> (tensor<16xf32>, tensor<32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.reduce ins(%a : tensor<16x32xf32>) outs(%i1 : tensor<16xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  %e2 = tensor.empty() : tensor<32xf32>
  %i2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.reduce ins(%a : tensor<16x32xf32>) outs(%i2 : tensor<32xf32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %r = arith.maximumf %v, %acc : f32
      linalg.yield %r : f32
    }
  return %s, %m : tensor<16xf32>, tensor<32xf32>
}

// Reshapes split and merge sharded dimensions.
func.func @reshapes(
    %a: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %x = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 8, 32] : tensor<16x32xf32> into tensor<2x8x32xf32>
  %n = math.sin %x : tensor<2x8x32xf32>
  %c = tensor.collapse_shape %n [[0, 1, 2]] : tensor<2x8x32xf32> into tensor<512xf32>
  return %c : tensor<512xf32>
}

// An index-dependent value (an iota) in a sharded dimension.
func.func @iota(
    %a: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) {
  %e = tensor.empty() : tensor<16x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.muli %i, %j : index
    %ki = arith.index_cast %k : index to i32
    %f = arith.sitofp %ki : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}

// Slices and concatenation need whole dimensions.
func.func @slices(
    %a: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<16x48xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %s = tensor.extract_slice %a[0, 8] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %c = tensor.concat dim(1) %a, %s : (tensor<16x32xf32>, tensor<16x16xf32>) -> tensor<16x48xf32>
  return %c : tensor<16x48xf32>
}

// A loop carrying a sharded value, with a constant operand.
func.func @loop(
    %a: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> tensor<16x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant dense<0.5> : tensor<16x32xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %a) -> tensor<16x32xf32> {
    %m = arith.mulf %t, %half : tensor<16x32xf32>
    %s = math.tanh %m : tensor<16x32xf32>
    scf.yield %s : tensor<16x32xf32>
  }
  return %r : tensor<16x32xf32>
}

// Two contractions, the second over the sharded dimension of the first's
// result (an all-reduce), with a softmax-like row normalisation between.
func.func @attention(
    %q: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
    %k: tensor<32x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %v: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x32xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %s = linalg.matmul ins(%q, %k : tensor<16x32xf32>, tensor<32x32xf32>) outs(%i1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %p = math.exp %s : tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.reduce ins(%p : tensor<16x32xf32>) outs(%i2 : tensor<16xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    }
  %b = linalg.broadcast ins(%sum : tensor<16xf32>) outs(%e1 : tensor<16x32xf32>) dimensions = [1]
  %n = arith.divf %p, %b : tensor<16x32xf32>
  %e3 = tensor.empty() : tensor<16x16xf32>
  %i3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = linalg.matmul ins(%n, %v : tensor<16x32xf32>, tensor<32x16xf32>) outs(%i3 : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}

// Integer sums must match bit for bit.
func.func @integers(
    %a: tensor<16x32xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>},
    %b: tensor<32x8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> tensor<16x8xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x8xi32>
  %i = linalg.fill ins(%zero : i32) outs(%e : tensor<16x8xi32>) -> tensor<16x8xi32>
  %m = linalg.matmul ins(%a, %b : tensor<16x32xi32>, tensor<32x8xi32>) outs(%i : tensor<16x8xi32>) -> tensor<16x8xi32>
  return %m : tensor<16x8xi32>
}

// A row-parallel contraction whose result is wanted sharded on the reduced
// axis: a reduce-scatter (Megatron's sequence parallelism).
func.func @reduce_scatter(
    %h: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
    %w: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %i = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.matmul ins(%h, %w : tensor<16x32xf32>, tensor<32x16xf32>) outs(%i : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}

// Blocks that change devices but not size: permutes.
func.func @permute(
    %a: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>},
    %b: tensor<12x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y", "x"}, {}]>},
        tensor<12x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y", "x"}, {}]>}) {
  %0 = math.exp %a : tensor<16x8xf32>
  %1 = math.sin %b : tensor<12x8xf32>
  return %0, %1 : tensor<16x8xf32>, tensor<12x8xf32>
}

// Destinations of a contraction over "y": a zero fill used once and a zero
// splat constant (made unreduced in place), a fill of ones (kept on one
// device of each "y" group) and a zero fill that is also returned.
func.func @destinations(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
    %b: tensor<16x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
        tensor<8x4xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %cz = arith.constant dense<0.0> : tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %zeros = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %ones = linalg.fill ins(%one : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %shared = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%zeros : tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%cz : tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%ones : tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%shared : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0, %1, %2, %3, %shared : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// A named op whose body reads linalg.index: every one of them gets its
// block's offsets (the partitioner learns from the first op of a name
// whether its body reads the index).
func.func @random_fills(
    %a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %min = arith.constant -1.0 : f64
  %max = arith.constant 1.0 : f64
  %seed = arith.constant 42 : i32
  %0 = linalg.fill_rng_2d ins(%min, %max, %seed : f64, f64, i32) outs(%a : tensor<8x4xf32>) -> tensor<8x4xf32>
  %1 = linalg.fill_rng_2d ins(%min, %max, %seed : f64, f64, i32) outs(%a : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}
