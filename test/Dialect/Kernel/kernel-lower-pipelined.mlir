// RUN: tessera-opt %s --split-input-file --kernel-lower-pipelined | FileCheck %s

// Tests that kernel-lower-pipelined turns a kernel.call into a call of
// tessera_rt_kernel_call with a core function: the steps of one TensorCore
// over double-buffered windows in the core's VMEM arena, the first input
// block's DMA started before the loop, each step waiting for its block and
// starting the next step's DMA into the other buffer before the body (or
// counting the copy skipped), the output written back by DMA only when the
// next step's block differs or at the last step, every DMA drained at the
// end; the body cloned with the grid indices first and plain memref types.

// Tests the seed's sum: the output block stays resident along k.
// CHECK-LABEL: func.func private @sum_body_pipelined0
// CHECK-SAME: (%[[I:.*]]: index, %[[K:.*]]: index, %[[X:.*]]: memref<8x128xf32>, %[[O:.*]]: memref<8x128xf32>)
// CHECK: %[[N:.*]] = arith.constant 4 : index
// CHECK: arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-LABEL: func.func private @sum_body_pipelined0_core
// CHECK-SAME: (%[[ARGS:.*]]: i64, %[[CORE:.*]]: i32)
// CHECK: %[[IN:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<16x512xf32>
// CHECK: call @tessera_rt_kernel_arena
// CHECK: %[[XA:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x128xf32>
// CHECK: call @tessera_rt_kernel_arena
// CHECK: %[[XB:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x128xf32>
// CHECK: %[[OUT:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<16x128xf32>
// CHECK: call @tessera_rt_kernel_arena
// CHECK: %[[OA:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x128xf32>
// CHECK: call @tessera_rt_kernel_arena
// CHECK: %[[OB:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x128xf32>
// v5e has one TensorCore: the core runs every step.
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %[[LO:.*]], %[[HI:.*]] : index
// CHECK: scf.if %[[ANY]] {
// The first input block, before the loop.
// CHECK: memref.subview %[[IN]]
// CHECK: call @tessera_rt_kernel_dma_start
// CHECK: scf.for %[[STEP:.*]] = %[[LO]] to %[[HI]] step
// This step's block was started in the previous step: wait for it.
// CHECK: %[[CUR:.*]] = arith.select %{{.*}}, %[[XA]], %[[XB]] : memref<8x128xf32>
// CHECK: call @tessera_rt_kernel_dma_wait
// The next step's input block goes into the other buffer before the body.
// CHECK: scf.if %[[CHANGES:.*]] {
// CHECK: %[[OTHER:.*]] = arith.select %{{.*}}, %[[XA]], %[[XB]] : memref<8x128xf32>
// CHECK: memref.subview %[[IN]]
// CHECK: memref.subview %[[OTHER]]
// CHECK: call @tessera_rt_kernel_dma_start
// CHECK: } else {
// CHECK: call @tessera_rt_kernel_count_copy
// CHECK: %[[OCUR:.*]] = arith.select %{{.*}}, %[[OA]], %[[OB]] : memref<8x128xf32>
// CHECK: call @tessera_rt_kernel_dma_wait
// CHECK: call @sum_body_pipelined0(%{{.*}}, %{{.*}}, %[[CUR]], %[[OCUR]])
// The output block is written back when the next one differs or at the end.
// CHECK: %[[WB:.*]] = arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: scf.if %[[WB]] {
// CHECK: memref.subview %[[OUT]]
// CHECK: call @tessera_rt_kernel_dma_start
// CHECK: } else {
// CHECK: call @tessera_rt_kernel_count_copy
// CHECK: call @tessera_rt_kernel_dma_drain()
// The caller: the output array, its address and the input's in the
// argument block, the call info (mode 1 = pipelined, 1 core, the v5e's
// 16 MiB scoped VMEM and 1 MiB SMEM, 8192 FLOPs... ) and last the bytes of
// its block copies: the input's (8, 128) f32 blocks (4 KiB) change at each
// of the 2 x 4 steps, the output's (i, 0) only with i, twice: 40960 bytes.
// CHECK-LABEL: func.func @sum
// CHECK: %[[INFO:.*]] = memref.alloca() : memref<9xi64>
// CHECK: %[[ARGBLOCK:.*]] = memref.alloca() : memref<2xi64>
// CHECK: %[[XT:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<16x512xf32> to memref<16x512xf32>
// CHECK: %[[RES:.*]] = memref.alloc() : memref<16x128xf32>
// Every output block is visited: not zeroed first.
// CHECK-NOT: linalg.fill
// CHECK: memref.store %{{.*}}, %[[ARGBLOCK]]
// CHECK: memref.store %{{.*}}, %[[ARGBLOCK]]
// CHECK: %[[MODE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[MODE]], %[[INFO]][%[[C0]]]
// CHECK-NEXT: %[[CORES:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[CORES]], %[[INFO]][%[[C1]]]
// CHECK-NEXT: %[[VMEM:.*]] = arith.constant 16777216 : i64
// CHECK: %[[SMEMB:.*]] = arith.constant 1048576 : i64
// CHECK: %[[COPIES:.*]] = arith.constant 40960 : i64
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: memref.store %[[COPIES]], %[[INFO]][%[[C8]]]
// CHECK: %[[FN:.*]] = constant @sum_body_pipelined0_core : (i64, i32) -> ()
// CHECK: call @tessera_rt_kernel_call(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FN]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, (i64, i32) -> ()) -> ()
// CHECK: %[[RESULT:.*]] = bufferization.to_tensor %[[RES]] restrict writable : memref<16x128xf32> to tensor<16x128xf32>
// CHECK: return %[[RESULT]]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @sum_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %k = kernel.program_id 1
    %n = kernel.num_programs 1
    %first = arith.cmpi eq, %k, %c0 : index
    return
  }
  func.func @sum(%x: tensor<16x512xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @sum_body(%x) grid = [2, 4]
        in_specs = [#kernel.block<[8, 128], (i, k) -> (i, k)>]
        out_specs = [#kernel.block<[8, 128], (i, k) -> (i, 0)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<16x512xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests that a trivial window (the whole array, constant index map) and a
// `buffers = 1` block get one buffer, copied (and waited for) when the
// block changes.
// The arrays and the buffers, rebuilt from addresses:
// CHECK-LABEL: func.func private @body_pipelined0_core
// CHECK: to memref<16x128xf32>
// CHECK: to memref<8x128xf32>
// CHECK-NOT: to memref<8x128xf32>
// CHECK: to memref<24x128xf32>
// CHECK: to memref<24x128xf32>
// CHECK-NOT: to memref<24x128xf32>
// CHECK: to memref<16x128xf32>
// CHECK: to memref<8x128xf32>
// CHECK-NOT: to memref<8x128xf32>
// CHECK: scf.for
// CHECK-NOT: arith.select %{{.*}} : memref
// CHECK: call @tessera_rt_kernel_dma_start
// CHECK: call @tessera_rt_kernel_dma_wait
// CHECK: } else {
// CHECK: call @tessera_rt_kernel_count_copy
// CHECK-NOT: arith.select %{{.*}} : memref
// CHECK: call @body_pipelined0
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %w: memref<24x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @single_buffers(%x: tensor<16x128xf32>, %w: tensor<24x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x, %w) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0), buffers = 1>, #kernel.block<full>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0), buffers = 1>]
        : (tensor<16x128xf32>, tensor<24x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a grid-free call: one step; scratch in the VMEM arena, allocated
// once.
// CHECK-LABEL: func.func private @body_pipelined0_core
// CHECK: call @tessera_rt_kernel_arena(%{{.*}}, %[[BYTES:.*]]) : (i32, i64) -> i64
// CHECK: %[[SCRATCH:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<16x128xf32>
// CHECK: scf.for
// CHECK: call @body_pipelined0(%{{.*}}, %{{.*}}, %[[SCRATCH]])
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<16x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @grid_free(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %0 = kernel.call @body(%x) grid = []
        in_specs = [#kernel.block<full>]
        out_specs = [#kernel.block<full>]
        scratch = [memref<16x128xf32, #kernel.space<vmem>>]
        : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}

// -----

// Tests the megacore split: on v5p (two TensorCores per chip, one device)
// the leading parallel axis is split across the cores: the call info says
// 2 cores, and core c runs steps [min(4c, 8) * 2, min(4c + 4, 8) * 2) of the
// 8 x 2 grid.
// CHECK-LABEL: func.func private @body_pipelined0_core
// CHECK-SAME: (%{{.*}}: i64, %[[CORE:.*]]: i32)
// CHECK: %[[C:.*]] = arith.index_cast %[[CORE]] : i32 to index
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: arith.muli %[[C]], %[[FOUR]] : index
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: arith.minsi %{{.*}}, %[[EIGHT]] : index
// CHECK-LABEL: func.func @megacore
// CHECK: %[[MODE:.*]] = arith.constant 1 : i64
// CHECK: %[[CORES:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[CORES]], %{{.*}}[%[[C1]]]
// CHECK: call @tessera_rt_kernel_call
module attributes {kernel.target = #kernel.target<"v5p">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @megacore(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
    %0 = kernel.call @body(%x) grid = [8, 2]
        in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<64x256xf32>) -> tensor<64x256xf32>
    return %0 : tensor<64x256xf32>
  }
}

// -----

// Tests that without a parallel leading axis (or on a one-core target)
// nothing is split: v5p with [arbitrary, parallel] runs on one core.
// CHECK-LABEL: func.func @no_split
// CHECK: %[[MODE:.*]] = arith.constant 1 : i64
// CHECK: %[[CORES:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[CORES]], %{{.*}}[%[[C1]]]
module attributes {kernel.target = #kernel.target<"v5p">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @no_split(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
    %0 = kernel.call @body(%x) grid = [8, 2]
        in_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[8, 128], (i, j) -> (i, j)>]
        dimension_semantics = [arbitrary, parallel]
        : (tensor<64x256xf32>) -> tensor<64x256xf32>
    return %0 : tensor<64x256xf32>
  }
}

// -----

// Tests that an output whose index map may leave blocks unvisited (here
// rows 8..15 of the output: the map sends every step to block (0, 0)) is
// zeroed first, so unvisited blocks read as zeros.
// CHECK-LABEL: func.func @partial_output
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16x128xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<16x128xf32>)
// CHECK: call @tessera_rt_kernel_call
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @partial_output(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (0, 0)>]
        : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests that a whole-block computation (Pallas's `o_ref[...] = x_ref[...] *
// 2.0 + y_ref[...]`) on vectors larger than (8, 128) runs tile by tile in
// loops: the chain of loads, elementwise ops and splat constants that ends
// in a store is cloned on (8, 128) tiles, one (1, 128) row of a tile per
// iteration (the pipeline's rows-per-step=1), so no whole-block vector is
// left.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-NOT: vector<32x256xf32>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<1x128xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<1x128xf32>
// CHECK-NOT: vector<32x256xf32>
// CHECK-LABEL: func.func private @body_pipelined0_core
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<32x256xf32, #kernel.space<vmem>>, %y: memref<32x256xf32, #kernel.space<vmem>>,
                  %o: memref<32x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant dense<2.0> : vector<32x256xf32>
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %b = kernel.load %y[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %m = arith.mulf %a, %two : vector<32x256xf32>
    %s = arith.addf %m, %b : vector<32x256xf32>
    kernel.store %s, %o[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @whole_block(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
    %0 = kernel.call @body(%x, %y) grid = [2]
        in_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>, #kernel.block<[32, 256], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>]
        : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
    return %0 : tensor<64x256xf32>
  }
}

// -----

// Tests that a whole-block reduction (Pallas's `o_ref[...] =
// jnp.sum(jnp.exp(x_ref[...]), axis=0)`) runs on (8, 128) tiles (the layout
// passes of the pipeline): per tile of the kept columns, a loop over the
// rows accumulates exp of each (1, 128) row of a tile in registers (the
// pipeline steps by rows of tiles), then one
// multi_reduction of the tile is stored into the result's layout buffer,
// which comes from the core's VMEM arena (1 KiB); a reduction to a scalar
// needs no buffer. No whole-block vector is left.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-NOT: vector<32x256xf32>
// CHECK: call @tessera_rt_kernel_arena_mark
// CHECK: call @tessera_rt_kernel_arena(%{{.*}}, %c1024_i64)
// CHECK: %[[ACC:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<256xf32>
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PART:.*]] = %{{.*}}) -> (vector<1x128xf32>) {
// CHECK: math.exp %{{.*}} : vector<1x128xf32>
// CHECK: arith.addf %{{.*}}, %[[PART]] : vector<1x128xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<1x128xf32> to vector<128xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[ACC]][%[[C]]] {in_bounds = [true]} : vector<128xf32>, memref<256xf32>
// CHECK: vector.multi_reduction <maxnumf>, %{{.*}}, %{{.*}} [0, 1] : vector<1x128xf32> to f32
// CHECK: call @tessera_rt_kernel_arena_release
// CHECK-NOT: vector<32x256xf32>
// CHECK-LABEL: func.func private @body_pipelined0_core
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<32x256xf32, #kernel.space<vmem>>, %o: memref<8x256xf32, #kernel.space<vmem>>,
                  %m: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %e = math.exp %a : vector<32x256xf32>
    %zero = arith.constant dense<0.0> : vector<256xf32>
    %s = vector.multi_reduction <add>, %e, %zero [0] : vector<32x256xf32> to vector<256xf32>
    %b = vector.broadcast %s : vector<256xf32> to vector<8x256xf32>
    kernel.store %b, %o[%c0, %c0] : vector<8x256xf32>, memref<8x256xf32, #kernel.space<vmem>>
    %a2 = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %low = arith.constant -1.0 : f32
    %max = vector.multi_reduction <maxnumf>, %a2, %low [0, 1] : vector<32x256xf32> to f32
    %mb = vector.broadcast %max : f32 to vector<8x128xf32>
    kernel.store %mb, %m[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @column_sums(%x: tensor<64x256xf32>) -> (tensor<16x256xf32>, tensor<16x128xf32>) {
    %0, %1 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 256], (i) -> (i, 0)>, #kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<64x256xf32>) -> (tensor<16x256xf32>, tensor<16x128xf32>)
    return %0, %1 : tensor<16x256xf32>, tensor<16x128xf32>
  }
}

// -----

// Tests that a whole-block contraction (Pallas's `jnp.dot(x_ref[0],
// y_ref[...])`) becomes a linalg op of the same maps on the views the
// blocks were loaded from (constant indices inside the blocks),
// accumulating into a layout buffer from the core's VMEM arena that starts
// as the contraction's accumulator (stored tile by tile); the result is
// read from it tile by tile. No whole-block vector is left.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-SAME: %{{[^:]*}}: index, %[[X:[^:]*]]: memref<2x64x128xf32>, %[[Y:[^:]*]]: memref<128x128xf32>
// CHECK-NOT: vector<64x128xf32>
// CHECK: call @tessera_rt_kernel_arena(%{{.*}}, %c32768_i64)
// CHECK: %[[ACC:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<64x128xf32>
// CHECK: %[[XV:.*]] = memref.subview %[[X]][1, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf32> to memref<64x128xf32, strided<[128, 1], offset: 8192>>
// CHECK: %[[YV:.*]] = memref.subview %[[Y]][0, 0] [128, 128] [1, 1]
// CHECK: scf.for
// CHECK: vector.transfer_write %{{.*}}, %[[ACC]][%{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<1x128xf32>, memref<64x128xf32>
// CHECK: %[[XT:.*]] = bufferization.to_tensor %[[XV]] restrict
// CHECK: %[[YT:.*]] = bufferization.to_tensor %[[YV]] restrict
// CHECK: %[[AT:.*]] = bufferization.to_tensor %[[ACC]] restrict writable
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XT]], %[[YT]] : tensor<64x128xf32>, tensor<128x128xf32>) outs(%[[AT]] : tensor<64x128xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[ACC]]
// CHECK: scf.for
// CHECK: vector.transfer_read %[[ACC]]
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<1x128xf32>
// CHECK-NOT: vector<64x128xf32>
// CHECK-LABEL: func.func private @body_pipelined0_core
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<2x64x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                  %o: memref<64x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = kernel.load %x[%c1, %c0, %c0] : memref<2x64x128xf32, #kernel.space<vmem>>, vector<64x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %z = arith.constant dense<0.0> : vector<64x128xf32>
    %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %a, %b, %z : vector<64x128xf32>, vector<128x128xf32> into vector<64x128xf32>
    %two = arith.constant dense<2.0> : vector<64x128xf32>
    %s = arith.mulf %r, %two : vector<64x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<64x128xf32>, memref<64x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @dot(%x: tensor<2x64x128xf32>, %y: tensor<128x128xf32>) -> tensor<64x128xf32> {
    %0 = kernel.call @body(%x, %y) grid = [1]
        in_specs = [#kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>]
        : (tensor<2x64x128xf32>, tensor<128x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}

// -----

// Tests that the accumulator of a 128 KiB contraction is a layout buffer in
// the core's VMEM arena (counted in the VMEM high-water mark), neither on
// the core's stack nor on the heap.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-NOT: memref.alloca() : memref<256x128xf32>
// CHECK-NOT: memref.alloc() : memref<256x128xf32>
// CHECK: call @tessera_rt_kernel_arena(%{{.*}}, %c131072_i64)
// CHECK: to memref<256x128xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<256x128xf32>)
// CHECK-LABEL: func.func private @body_pipelined0_core
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<256x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                  %o: memref<256x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<256x128xf32, #kernel.space<vmem>>, vector<256x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %z = arith.constant dense<0.0> : vector<256x128xf32>
    %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %a, %b, %z : vector<256x128xf32>, vector<128x128xf32> into vector<256x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<256x128xf32>, memref<256x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @big_dot(%x: tensor<256x128xf32>, %y: tensor<128x128xf32>) -> tensor<256x128xf32> {
    %0 = kernel.call @body(%x, %y) grid = [1]
        in_specs = [#kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>]
        : (tensor<256x128xf32>, tensor<128x128xf32>) -> tensor<256x128xf32>
    return %0 : tensor<256x128xf32>
  }
}

// -----

// Tests that an operand of a whole-block contraction computed in the body
// (`jnp.dot(x_ref[...], jnp.exp(y_ref[...]))`) is stored tile by tile into
// a layout buffer of its shape, which the linalg op reads; the loaded
// operand is read where it was loaded.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-SAME: %{{[^:]*}}: index, %[[X:[^:]*]]: memref<64x128xf32>
// CHECK-NOT: vector<128x128xf32>
// CHECK: call @tessera_rt_kernel_arena(%{{.*}}, %c65536_i64)
// CHECK: %[[EXP:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<128x128xf32>
// CHECK: call @tessera_rt_kernel_arena(%{{.*}}, %c32768_i64)
// CHECK: scf.for
// CHECK: math.exp %{{.*}} : vector<1x128xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[EXP]]
// CHECK: %[[XV:.*]] = memref.subview %[[X]]
// CHECK: %[[XT:.*]] = bufferization.to_tensor %[[XV]] restrict
// CHECK: %[[ET:.*]] = bufferization.to_tensor %[[EXP]] restrict
// CHECK: linalg.generic {{.*}} ins(%[[XT]], %[[ET]] : tensor<64x128xf32>, tensor<128x128xf32>)
// CHECK-NOT: vector<128x128xf32>
// CHECK-LABEL: func.func private @body_pipelined0_core
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<64x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                  %o: memref<64x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<64x128xf32, #kernel.space<vmem>>, vector<64x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xf32, #kernel.space<vmem>>, vector<128x128xf32>
    %e = math.exp %b : vector<128x128xf32>
    %z = arith.constant dense<0.0> : vector<64x128xf32>
    %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %a, %e, %z : vector<64x128xf32>, vector<128x128xf32> into vector<64x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<64x128xf32>, memref<64x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @dot_exp(%x: tensor<64x128xf32>, %y: tensor<128x128xf32>) -> tensor<64x128xf32> {
    %0 = kernel.call @body(%x, %y) grid = [1]
        in_specs = [#kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>]
        : (tensor<64x128xf32>, tensor<128x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}

// -----

// Tests that a chain whose store overwrites the buffer it loads from at
// other indices reads a copy: tile by tile, later tiles would otherwise
// read what earlier ones wrote, so the loaded block is first copied into a
// layout buffer, which the chain reads.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-SAME: %{{[^:]*}}: index, %[[X:[^:]*]]: memref<16x256xf32>, %[[O:[^:]*]]: memref<16x256xf32>)
// CHECK-NOT: vector<8x256xf32>
// CHECK: %[[COPY:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x256xf32>
// CHECK: scf.for
// CHECK: vector.load %[[X]]
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK: scf.for
// CHECK: vector.load %[[O]]
// CHECK: vector.transfer_write %{{.*}}, %[[COPY]]
// CHECK: scf.for
// CHECK: vector.transfer_read %[[COPY]]
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<1x128xf32>
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK-NOT: vector<8x256xf32>
// CHECK-LABEL: func.func private @body_pipelined0_core
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<8x256xf32>
    kernel.store %a, %o[%c0, %c0] : vector<8x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    %b = kernel.load %o[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<8x256xf32>
    %s = arith.addf %b, %b : vector<8x256xf32>
    kernel.store %s, %o[%c8, %c0] : vector<8x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @shifted(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
    %0 = kernel.call @body(%x) grid = [1]
        in_specs = [#kernel.block<full>]
        out_specs = [#kernel.block<full>]
        : (tensor<16x256xf32>) -> tensor<16x256xf32>
    return %0 : tensor<16x256xf32>
  }
}

// -----

// Tests that a linalg op on the body's buffers becomes the same op on
// tensors read from them (bufferization.to_tensor restrict), its result
// materialized back into its destination buffer, so that tessera-cpu tiles
// and vectorizes it (on buffers it would run as scalar loops); the zeroing
// fill the lowering adds stays on buffers.
// CHECK-LABEL: func.func private @body_pipelined0(
// CHECK-SAME: %[[X:[^:]*]]: memref<16x128xf32>, %[[Y:[^:]*]]: memref<128x128xf32>, %[[ACC:[^:]*]]: memref<16x128xf32>)
// CHECK: %[[XT:.*]] = bufferization.to_tensor %[[X]] restrict : memref<16x128xf32> to tensor<16x128xf32>
// CHECK: %[[YT:.*]] = bufferization.to_tensor %[[Y]] restrict : memref<128x128xf32> to tensor<128x128xf32>
// CHECK: %[[AT:.*]] = bufferization.to_tensor %[[ACC]] restrict writable : memref<16x128xf32> to tensor<16x128xf32>
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[XT]], %[[YT]] : tensor<16x128xf32>, tensor<128x128xf32>) outs(%[[AT]] : tensor<16x128xf32>) -> tensor<16x128xf32>
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[ACC]] : (tensor<16x128xf32>, memref<16x128xf32>) -> ()
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xf32, #kernel.space<vmem>>, %y: memref<128x128xf32, #kernel.space<vmem>>,
                  %acc: memref<16x128xf32, #kernel.space<vmem>>) {
    linalg.matmul ins(%x, %y : memref<16x128xf32, #kernel.space<vmem>>, memref<128x128xf32, #kernel.space<vmem>>)
                  outs(%acc : memref<16x128xf32, #kernel.space<vmem>>)
    return
  }
  func.func @linalg_body(%x: tensor<32x256xf32>, %y: tensor<256x128xf32>) -> tensor<32x128xf32> {
    %0 = kernel.call @body(%x, %y) grid = [2, 2]
        in_specs = [#kernel.block<[16, 128], (i, k) -> (i, k)>, #kernel.block<[128, 128], (i, k) -> (k, 0)>]
        out_specs = [#kernel.block<[16, 128], (i, k) -> (i, 0)>]
        dimension_semantics = [parallel, arbitrary]
        : (tensor<32x256xf32>, tensor<256x128xf32>) -> tensor<32x128xf32>
    return %0 : tensor<32x128xf32>
  }
}
