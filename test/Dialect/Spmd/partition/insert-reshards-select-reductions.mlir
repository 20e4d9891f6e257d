// RUN: tessera-opt %s --split-input-file --spmd-insert-reshards | FileCheck %s

// Tests that spmd-insert-reshards splits a select reduction (argmax) over
// a sharded dimension into a reduction of each block and a combine over
// the partial pairs, which alone are resharded (gathered); and that
// reductions whose partial results the body cannot combine, or whose
// dimension the axes do not divide, or that sit in a manual computation,
// are left whole.

spmd.mesh @mesh = <["x"=4]>

// CHECK-LABEL: func.func @argmax
// CHECK: %[[EXP:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [4, 2, 3] {{.*}} tensor<8x3xf32> into tensor<4x2x3xf32>
// CHECK: %[[PART:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]{{.*}} ins(%[[EXP]] : tensor<4x2x3xf32>)
// CHECK-SAME: {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>, <@mesh, [{}, {"x"}]>]>}
// CHECK: linalg.index 2
// CHECK: arith.muli
// CHECK: linalg.index 1
// CHECK: %[[V:.*]] = spmd.reshard %[[PART]]#0 <@mesh, [{}, {}]>
// CHECK: %[[I:.*]] = spmd.reshard %[[PART]]#1 <@mesh, [{}, {}]>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[V]], %[[I]] : tensor<3x4xf32>, tensor<3x4xi32>)
// CHECK-NOT: linalg.index
// CHECK: return
func.func @argmax(%a: tensor<8x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                  %v0: tensor<3xf32>, %i0: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x3xf32>) outs(%v0, %i0 : tensor<3xf32>, tensor<3xi32>) {
    ^bb0(%x: f32, %av: f32, %ai: i32):
      %k = linalg.index 1 : index
      %kc = arith.index_cast %k : index to i32
      %gt = arith.cmpf ogt, %x, %av : f32
      %nv = arith.maximumf %x, %av : f32
      %ni = arith.select %gt, %kc, %ai : i32
      linalg.yield %nv, %ni : f32, i32
  } -> (tensor<3xf32>, tensor<3xi32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xi32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// A Welford update reads the count: it is not a selection, so the input
// is gathered and reduced whole.
// CHECK-LABEL: func.func @negative_welford
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[G:.*]] = spmd.reshard %{{.*}} <@mesh, [{}, {}]>
// CHECK: linalg.generic {{.*}} ins(%[[G]] : tensor<8x3xf32>)
func.func @negative_welford(%a: tensor<8x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                            %n0: tensor<3xf32>, %m0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x3xf32>) outs(%n0, %m0 : tensor<3xf32>, tensor<3xf32>) {
    ^bb0(%x: f32, %n: f32, %mean: f32):
      %one = arith.constant 1.0 : f32
      %n1 = arith.addf %n, %one : f32
      %d = arith.subf %x, %mean : f32
      %q = arith.divf %d, %n1 : f32
      %mean1 = arith.addf %mean, %q : f32
      linalg.yield %n1, %mean1 : f32, f32
  } -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// 6 rows on 4 devices: blocks are padded, no split.
// CHECK-LABEL: func.func @negative_not_divisible
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @negative_not_divisible(%a: tensor<6x3xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                                  %v0: tensor<3xi32>, %i0: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<6x3xi32>) outs(%v0, %i0 : tensor<3xi32>, tensor<3xi32>) {
    ^bb0(%x: i32, %av: i32, %ai: i32):
      %k = linalg.index 1 : index
      %kc = arith.index_cast %k : index to i32
      %gt = arith.cmpi sgt, %x, %av : i32
      %nv = arith.select %gt, %x, %av : i32
      %ni = arith.select %gt, %kc, %ai : i32
      linalg.yield %nv, %ni : i32, i32
  } -> (tensor<3xi32>, tensor<3xi32>)
  return %r#0, %r#1 : tensor<3xi32>, tensor<3xi32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=2]>

// A select reduction in a manual computation is left whole, even over a
// dimension a free axis shards: its input is gathered over "y".
// CHECK-LABEL: func.func @argmax_in_manual
// CHECK: spmd.manual_computation
// CHECK-NOT: tensor.expand_shape
// CHECK: spmd.reshard %{{.*}} <@mesh, [{}, {}]>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.*}} : tensor<4x3xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: spmd.return
func.func @argmax_in_manual(%a: tensor<8x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>},
                            %v0: tensor<3xf32>, %i0: tensor<3xi32>) -> tensor<6xi32> {
  %0 = spmd.manual_computation(%a, %v0, %i0) in_shardings=[<@mesh, [{"x", "y"}, {}]>, <@mesh, [{}]>, <@mesh, [{}]>]
      out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%l: tensor<4x3xf32>, %lv: tensor<3xf32>, %li: tensor<3xi32>) {
    %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "reduction"]}
        ins(%l : tensor<4x3xf32>) outs(%lv, %li : tensor<3xf32>, tensor<3xi32>) {
      ^bb0(%x: f32, %av: f32, %ai: i32):
        %k = linalg.index 1 : index
        %kc = arith.index_cast %k : index to i32
        %gt = arith.cmpf ogt, %x, %av : f32
        %nv = arith.maximumf %x, %av : f32
        %ni = arith.select %gt, %kc, %ai : i32
        linalg.yield %nv, %ni : f32, i32
    } -> (tensor<3xf32>, tensor<3xi32>)
    spmd.return %r#1 : tensor<3xi32>
  } : (tensor<8x3xf32>, tensor<3xf32>, tensor<3xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}
