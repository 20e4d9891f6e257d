// Tests kernel.calls inside a shard_map (spmd.manual_computation) over
// both axes of a 2x2 mesh: every device runs the kernels on its own blocks.
//
//  0. A row- and column-sharded matmul: A (64, 512) is split over x (rows)
//     and y (columns), B (512, 256) over y (rows); each device multiplies
//     its (32, 256) and (256, 256) blocks with a blocked matmul kernel
//     (grid (i, j, k), the output block accumulated along k), and the
//     partial products are summed over y (comm.all_reduce): the result is
//     A * B sharded over x.
//  1. An elementwise kernel whose scalar-prefetch operand is the device's
//     position (comm.axis_index over x and y): each device adds
//     10 * x + y to its (32, 256) block of A, so a device that ran the
//     kernel on another device's block or with another device's position
//     gives a wrong block of the result.
//
// The kernel results (assembled from the devices' blocks) are compared with
// linalg computations of the same values on the global arrays outside the
// manual computation: result1 and result3 are the number of elements that
// differ by more than 1e-4 (relative) or are NaN. --check compares the
// pipelined run with the reference run (the manual axes keep their 4
// devices; kernels in interpret mode).
//
// RUN: tessera-run %s --random-inputs --seed 11 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 11 --kernel-mode=pipelined | FileCheck %s --check-prefix=VALUES
// RUN: tessera-run %s --random-inputs --seed 12 --kernel-mode=interpret | FileCheck %s --check-prefix=VALUES

// CHECK: tessera-run: @main on x=2,y=2 (4 devices)
// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: check: all 4 results match the single-device reference (kernels in interpret mode)
// VALUES: tessera-run: @main on x=2,y=2 (4 devices)
// VALUES: result1: i32[] = [0]
// VALUES: result3: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
  spmd.mesh @mesh = <["x"=2, "y"=2]>

  // 0. o (+)= x * w along k, o zeroed on the first k step.
  func.func @matmul_body(%x: memref<16x128xf32, #kernel.space<vmem>>,
                         %w: memref<128x128xf32, #kernel.space<vmem>>,
                         %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 2
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant dense<0.0> : vector<16x128xf32>
      kernel.store %zero, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    }
    linalg.matmul ins(%x, %w : memref<16x128xf32, #kernel.space<vmem>>, memref<128x128xf32, #kernel.space<vmem>>)
                  outs(%o : memref<16x128xf32, #kernel.space<vmem>>)
    return
  }

  // 1. o = x + 10 * pos[0] + pos[1].
  func.func @offset_body(%pos: memref<2xi32, #kernel.space<smem>>,
                         %x: memref<8x128xf32, #kernel.space<vmem>>,
                         %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : i32
    %px = kernel.load %pos[%c0] : memref<2xi32, #kernel.space<smem>>, i32
    %py = kernel.load %pos[%c1] : memref<2xi32, #kernel.space<smem>>, i32
    %tx = arith.muli %px, %c10 : i32
    %t = arith.addi %tx, %py : i32
    %tf = arith.sitofp %t : i32 to f32
    %v = vector.broadcast %tf : f32 to vector<8x128xf32>
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %v : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ by more than 1e-4
  // (relative) or are NaN.
  func.func private @mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %n: i32):
      %d = arith.subf %x, %y : f32
      %ad = math.absf %d : f32
      %ay = math.absf %y : f32
      %rel = arith.constant 1.0e-4 : f32
      %t = arith.mulf %ay, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%a: tensor<64x512xf32>, %b: tensor<512x256xf32>)
      -> (tensor<64x256xf32>, tensor<i32>, tensor<64x512xf32>, tensor<i32>) {
    %0:2 = spmd.manual_computation(%a, %b)
        in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{"y"}, {}]>]
        out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {"y"}]>]
        manual_axes={"x", "y"} (%la: tensor<32x256xf32>, %lb: tensor<256x256xf32>) {
      %p = kernel.call @matmul_body(%la, %lb) grid = [2, 2, 2]
          in_specs = [#kernel.block<[16, 128], (i, j, k) -> (i, k)>,
                      #kernel.block<[128, 128], (i, j, k) -> (k, j)>]
          out_specs = [#kernel.block<[16, 128], (i, j, k) -> (i, j)>]
          dimension_semantics = [parallel, parallel, arbitrary]
          : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
      %s = comm.all_reduce sum %p over @mesh {"y"} : tensor<32x256xf32>

      %ix = comm.axis_index over @mesh {"x"} : i64
      %iy = comm.axis_index over @mesh {"y"} : i64
      %jx = arith.trunci %ix : i64 to i32
      %jy = arith.trunci %iy : i64 to i32
      %pos = tensor.from_elements %jx, %jy : tensor<2xi32>
      %q = kernel.call @offset_body(%pos, %la) grid = [4, 2] scalar_prefetch = 1
          in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
          out_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
          dimension_semantics = [parallel, parallel]
          : (tensor<2xi32>, tensor<32x256xf32>) -> tensor<32x256xf32>
      spmd.return %s, %q : tensor<32x256xf32>, tensor<32x256xf32>
    } : (tensor<64x512xf32>, tensor<512x256xf32>) -> (tensor<64x256xf32>, tensor<64x512xf32>)

    // 0. A * B.
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<64x256xf32>
    %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x256xf32>) -> tensor<64x256xf32>
    %ref0 = linalg.matmul ins(%a, %b : tensor<64x512xf32>, tensor<512x256xf32>) outs(%zeros : tensor<64x256xf32>) -> tensor<64x256xf32>
    %k0 = tensor.cast %0#0 : tensor<64x256xf32> to tensor<?x?xf32>
    %r0 = tensor.cast %ref0 : tensor<64x256xf32> to tensor<?x?xf32>
    %bad0 = func.call @mismatches(%k0, %r0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    // 1. A + 10 * (i / 32) + (j / 256): the position of the device holding
    // element (i, j).
    %init = tensor.empty() : tensor<64x512xf32>
    %ref1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<64x512xf32>) outs(%init : tensor<64x512xf32>) {
    ^bb0(%v: f32, %unused: f32):
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %c32 = arith.constant 32 : index
      %c256 = arith.constant 256 : index
      %c10 = arith.constant 10 : index
      %dx = arith.divui %i, %c32 : index
      %dy = arith.divui %j, %c256 : index
      %tx = arith.muli %dx, %c10 : index
      %t = arith.addi %tx, %dy : index
      %ti = arith.index_cast %t : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      %r = arith.addf %v, %tf : f32
      linalg.yield %r : f32
    } -> tensor<64x512xf32>
    %k1 = tensor.cast %0#1 : tensor<64x512xf32> to tensor<?x?xf32>
    %r1 = tensor.cast %ref1 : tensor<64x512xf32> to tensor<?x?xf32>
    %bad1 = func.call @mismatches(%k1, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    return %0#0, %bad0, %0#1, %bad1 : tensor<64x256xf32>, tensor<i32>, tensor<64x512xf32>, tensor<i32>
  }
}
