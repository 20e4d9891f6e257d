// Meshes with the same axes and another device order: a reshard between
// them reaches the target's dimension shardings on the source mesh, then
// moves each block with one permute to the device of the target mesh that
// holds it. tessera-run places each tensor's blocks by its own mesh's device
// order and numbers the positions of each collective by its mesh's order.
// RUN: tessera-run %s --entry same --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry relayout --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry matmul --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry padded --random-inputs --check | FileCheck %s --check-prefix=TWO
// RUN: tessera-run %s --entry manual --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry gather --random-inputs --check | FileCheck %s
// RUN: tessera-run %s --entry same --random-inputs --show-sharding | FileCheck %s --check-prefix=SHOW
// RUN: tessera-opt %s --tessera-partition | FileCheck %s --check-prefix=IR

// CHECK: check: all 1 results match the single-device reference
// TWO: check: all 2 results match the single-device reference

// Block (i, j) is on device 4 i + j of @mesh and on the device at position
// 4 i + j of @shuffled: block (0, 0) on device 5, (0, 1) on device 3.
// SHOW: result0: f32[8,16]  #spmd.sharding<@shuffled, [{"x"}, {"y"}]>
// SHOW-NEXT: ┌───────┬───────┬───────┬───────┐
// SHOW-NEXT: │ CPU 5 │ CPU 3 │ CPU 0 │ CPU 6 │
// SHOW-NEXT: ├───────┼───────┼───────┼───────┤
// SHOW-NEXT: │ CPU 1 │ CPU 7 │ CPU 2 │ CPU 4 │

// Each block moves once: device 0 (position 2 of @shuffled) sends block
// (0, 0) to device 5 (position 0), and so on.
// IR-LABEL: func.func @same
// IR-NEXT: %[[P:.*]] = comm.permute %arg0 over @shuffled {"x", "y"} pairs [2 -> 0, 4 -> 1, 6 -> 2, 1 -> 3, 7 -> 4, 0 -> 5, 3 -> 6, 5 -> 7] : tensor<4x4xf32>
// IR-NEXT: %[[E:.*]] = math.exp %[[P]]
// IR-NEXT: return %[[E]]
// A relayout on the source mesh and the move to the target mesh fuse into
// one permute; nothing is gathered.
// IR-LABEL: func.func @relayout
// IR-NOT: comm.all_gather
// IR: comm.permute %arg0 over @shuffled {"x", "y"} pairs [2 -> 0, 4 -> 1, 6 -> 4, 1 -> 5, 7 -> 2, 0 -> 3, 3 -> 6, 5 -> 7] : tensor<4x4xf32>
// IR-NOT: comm.
// IR: return

spmd.mesh @mesh = <["x"=2, "y"=4]>
spmd.mesh @shuffled = <["x"=2, "y"=4], device_ids=[5, 3, 0, 6, 1, 7, 2, 4]>

func.func @same(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@shuffled, [{"x"}, {"y"}]>}) {
  %0 = math.exp %a : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// Other dimension shardings (sub-axes) on the target mesh.
func.func @relayout(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@shuffled, [{"y":(1)2}, {"x", "y":(2)2}]>}) {
  %0 = math.exp %a : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// A contraction computed on one mesh, its partial sums reduced and the
// result moved to the other.
func.func @matmul(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                  %b: tensor<16x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>})
    -> (tensor<8x12xf32> {spmd.sharding = #spmd.sharding<@shuffled, [{}, {"x"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x12xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x12xf32>) outs(%f : tensor<8x12xf32>) -> tensor<8x12xf32>
  return %m : tensor<8x12xf32>
}

// Padded blocks (7 rows over 4 devices, 5 columns over 2) move with their
// padding.
func.func @padded(%a: tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@shuffled, [{"y"}, {"x"}]>})
    -> (tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>},
        tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = math.exp %a : tensor<7x5xf32>
  %1 = arith.negf %0 : tensor<7x5xf32>
  return %0, %1 : tensor<7x5xf32>, tensor<7x5xf32>
}

// A less sharded result on the other mesh: the blocks move first, then are
// gathered over "y" on @shuffled.
// IR-LABEL: func.func @gather
// IR-NEXT: %[[P:.*]] = comm.permute %arg0 over @shuffled {"x", "y"}
// IR-SAME: : tensor<2x16xf32>
// IR-NEXT: %[[G:.*]] = comm.all_gather %[[P]] over @shuffled {"y"} dim 0 : tensor<2x16xf32> -> tensor<8x16xf32>
func.func @gather(%a: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>})
    -> (tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@shuffled, [{"x"}, {}]>}) {
  return %a : tensor<16x16xf32>
}

// A manual computation on the shuffled mesh: its collectives and axis
// indices number the positions of @shuffled, whatever devices sit there.
func.func @manual(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = spmd.manual_computation(%a) in_shardings=[<@shuffled, [{"x"}, {"y"}]>]
      out_shardings=[<@shuffled, [{"x"}, {}]>] manual_axes={"x", "y"} (%l: tensor<4x4xf32>) {
    %i = comm.axis_index over @shuffled {"y"} : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = tensor.splat %f : tensor<4x4xf32>
    %m = arith.mulf %l, %s : tensor<4x4xf32>
    %g = comm.all_gather %m over @shuffled {"y"} dim 1 : tensor<4x4xf32> -> tensor<4x16xf32>
    spmd.return %g : tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
