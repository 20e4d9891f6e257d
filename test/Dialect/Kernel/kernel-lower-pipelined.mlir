// RUN: tessera-opt %s --split-input-file --kernel-lower-pipelined | FileCheck %s

// Tests that kernel-lower-pipelined turns a kernel.call into loops over
// double-buffered windows: the first input block copied before the loops,
// the next step's block copied into the other buffer before the body (or
// the copy skipped and counted), the output written back only when the
// next step's block differs or at the last step, and the body cloned with
// the grid indices first and plain memref types.

// Tests the seed's sum: the output block stays resident along k.
// CHECK-LABEL: func.func private @sum_body_pipelined0
// CHECK-SAME: (%[[I:.*]]: index, %[[K:.*]]: index, %[[X:.*]]: memref<8x128xf32>, %[[O:.*]]: memref<8x128xf32>)
// CHECK: %[[N:.*]] = arith.constant 4 : index
// CHECK: arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-LABEL: func.func @sum
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<16x512xf32> to memref<16x512xf32>
// CHECK: %[[XA:.*]] = memref.alloc() : memref<8x128xf32>
// CHECK: %[[XB:.*]] = memref.alloc() : memref<8x128xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16x128xf32>
// CHECK: %[[OA:.*]] = memref.alloc() : memref<8x128xf32>
// CHECK: %[[OB:.*]] = memref.alloc() : memref<8x128xf32>
// The first input block, before the loops.
// CHECK: %[[FIRST:.*]] = memref.subview %[[IN]]
// CHECK: %[[DST:.*]] = memref.subview %[[XA]]
// CHECK: linalg.copy ins(%[[FIRST]] : {{.*}}) outs(%[[DST]] : {{.*}})
// CHECK: call @tessera_rt_kernel_count_copy
// CHECK: scf.for %[[GI:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[GK:.*]] = %{{.*}} to %{{.*}} step
// The next step's input block goes into the other buffer before the body.
// CHECK: %[[CUR:.*]] = arith.select %{{.*}}, %[[XA]], %[[XB]] : memref<8x128xf32>
// CHECK: %[[OTHER:.*]] = arith.select %{{.*}}, %[[XA]], %[[XB]] : memref<8x128xf32>
// CHECK: scf.if %[[CHANGES:.*]] {
// CHECK: linalg.copy ins(%{{.*}} : memref<?x?xf32, strided<[512, 1], offset: ?>>) outs(%{{.*}} : memref<?x?xf32, strided<[128, 1], offset: ?>>)
// CHECK: } else {
// CHECK: %[[OCUR:.*]] = arith.select %{{.*}}, %[[OA]], %[[OB]] : memref<8x128xf32>
// CHECK: call @sum_body_pipelined0(%[[GI]], %[[GK]], %[[CUR]], %[[OCUR]])
// The output block is written back when the next one differs or at the end.
// CHECK: %[[WB:.*]] = arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: scf.if %[[WB]] {
// CHECK: linalg.copy ins(%{{.*}} : memref<?x?xf32, strided<[128, 1], offset: ?>>) outs(%{{.*}} : memref<?x?xf32, strided<[128, 1], offset: ?>>)
// CHECK: %[[RESULT:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<16x128xf32> to tensor<16x128xf32>
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
// `buffers = 1` block get one buffer, copied when the block changes.
// CHECK-LABEL: func.func @single_buffers
// CHECK: memref.alloc() : memref<8x128xf32>
// CHECK-NOT: memref.alloc() : memref<8x128xf32>
// CHECK: memref.alloc() : memref<24x128xf32>
// CHECK-NOT: memref.alloc() : memref<24x128xf32>
// CHECK: scf.for
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

// Tests a grid-free call: one step, no loops; scratch allocated once.
// CHECK-LABEL: func.func @grid_free
// CHECK-NOT: scf.for
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<16x128xf32>
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
