// RUN: tessera-opt %s --split-input-file --kernel-lower-interpret | FileCheck %s

// Tests that kernel-lower-interpret turns a kernel.call into sequential
// loops that copy every block at every step into NaN-poisoned block
// buffers, write every output block back after the body, track output
// revisits, and lower the body's kernel ops to vector, memref and scf ops
// with run-time checks.

// Tests the seed's add: poisoned input blocks, a poisoned output array, the
// revisit table, and the body's loads and stores checked against the
// buffer's bounds.
// CHECK-LABEL: func.func private @add_body_interpret0
// CHECK-SAME: (%[[I:.*]]: index, %[[X:.*]]: memref<8x128xf32>, %[[Y:.*]]: memref<8x128xf32>, %[[O:.*]]: memref<8x128xf32>)
// CHECK: scf.if %{{.*}} -> (vector<8x128xf32>) {
// CHECK: %[[ROW:.*]] = vector.load %[[X]][%{{.*}}, %{{.*}}] : memref<8x128xf32>, vector<128xf32>
// CHECK: vector.insert %[[ROW]], %{{.*}} [0] : vector<128xf32> into vector<8x128xf32>
// CHECK: } else {
// CHECK: func.call @tessera_rt_kernel_error
// CHECK: vector.store %{{.*}}, %[[O]][%{{.*}}, %{{.*}}] : memref<8x128xf32>, vector<128xf32>
// The steps run in the core function: block buffers in the core's VMEM
// arena, every copy a DMA waited for at once.
// CHECK-LABEL: func.func private @add_body_interpret0_core
// CHECK-SAME: (%{{.*}}: i64, %{{.*}}: i32)
// CHECK: %[[VISITS:.*]] = memref.alloc() : memref<8x2xindex>
// CHECK: linalg.fill ins(%{{.*}} : index) outs(%[[VISITS]] : memref<8x2xindex>)
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[POINT:.*]] = arith.remsi %[[STEP]], %{{.*}} : index
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<8x128xf32>)
// CHECK: call @tessera_rt_kernel_dma_start
// CHECK: call @tessera_rt_kernel_dma_wait
// CHECK: memref.load %[[VISITS]]
// CHECK: call @add_body_interpret0(%[[POINT]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: call @tessera_rt_kernel_dma_start
// CHECK: call @tessera_rt_kernel_dma_wait
// CHECK: call @tessera_rt_kernel_dma_drain()
// The caller: the NaN-poisoned output array, then the call on one core.
// CHECK-LABEL: func.func @add
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[OUT:.*]] = memref.alloc() : memref<64x128xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<64x128xf32>)
// CHECK: %[[CORE:.*]] = constant @add_body_interpret0_core : (i64, i32) -> ()
// CHECK: call @tessera_rt_kernel_call(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CORE]])
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @add(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %0 = kernel.call @add_body(%x, %y) grid = [8]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>, #kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}

// -----

// Tests masked loads and stores (no bounds check: masked lanes may be
// outside), and semaphores as i32 counters: signal adds, wait checks and
// subtracts, read loads, non-zero counts reported at kernel exit.
// CHECK-LABEL: func.func private @body_interpret0
// CHECK-SAME: %[[SEM:arg[0-9]+]]: memref<2xi32>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : memref<128xf32>, vector<128xi1>, vector<128xf32> into vector<128xf32>
// CHECK: vector.maskedstore %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : memref<128xf32>, vector<128xi1>, vector<128xf32>
// CHECK: %[[COUNT:.*]] = memref.load %[[SEM]][%{{.*}}] : memref<2xi32>
// CHECK: %[[SUM:.*]] = arith.addi %[[COUNT]], %{{.*}} : i32
// CHECK: memref.store %[[SUM]], %[[SEM]][%{{.*}}] : memref<2xi32>
// CHECK: %[[HAVE:.*]] = memref.load %[[SEM]][%{{.*}}] : memref<2xi32>
// CHECK: %[[ENOUGH:.*]] = arith.cmpi sge, %[[HAVE]], %{{.*}} : i32
// CHECK: scf.if %[[ENOUGH]] {
// CHECK: arith.subi %[[HAVE]], %{{.*}} : i32
// CHECK: } else {
// CHECK: func.call @tessera_rt_kernel_error
// CHECK-LABEL: func.func private @body_interpret0_core
// CHECK: %[[SEMS:.*]] = memref.alloc() : memref<2xi32>
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%[[SEMS]] : memref<2xi32>)
// CHECK: scf.for
// CHECK: call @body_interpret0
// CHECK: call @tessera_rt_kernel_dma_drain()
// CHECK: scf.for %[[S:.*]] =
// CHECK: %[[LEFT:.*]] = memref.load %[[SEMS]][%[[S]]] : memref<2xi32>
// CHECK: %[[NONZERO:.*]] = arith.cmpi ne, %[[LEFT]], %{{.*}} : i32
// CHECK: scf.if %[[NONZERO]] {
// CHECK: func.call @tessera_rt_kernel_error(%{{.*}}, %{{.*}}, %{{.*}})
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<128xf32, #kernel.space<vmem>>, %o: memref<128xf32, #kernel.space<vmem>>,
                  %sem: memref<2x!kernel.semaphore, #kernel.space<semaphore>>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %m = vector.constant_mask [100] : vector<128xi1>
    %a = kernel.load %x[%c0] mask %m : memref<128xf32, #kernel.space<vmem>>, vector<128xf32>
    kernel.store %a, %o[%c0] mask %m : vector<128xf32>, memref<128xf32, #kernel.space<vmem>>
    kernel.semaphore_signal %sem[%c0], %one : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    kernel.semaphore_wait %sem[%c0], %one : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    %v = kernel.semaphore_read %sem[%c0] : memref<2x!kernel.semaphore, #kernel.space<semaphore>>
    return
  }
  func.func @masked_and_semaphores(%x: tensor<1024xf32>) -> tensor<1024xf32> {
    %0 = kernel.call @body(%x) grid = [8]
        in_specs = [#kernel.block<[128], (i) -> (i)>]
        out_specs = [#kernel.block<[128], (i) -> (i)>]
        scratch = [memref<2x!kernel.semaphore, #kernel.space<semaphore>>]
        : (tensor<1024xf32>) -> tensor<1024xf32>
    return %0 : tensor<1024xf32>
  }
}

// -----

// Tests manual DMA: an `any` operand passed whole, kernel.run_scoped
// buffers allocated (the VMEM one in the core's VMEM arena and poisoned, the
// DMA semaphore zeroed, and checked at the end of the scope, where the arena
// is released to its mark), and kernel.async_copy as a synchronous
// memref.copy whose semaphore counts the copied bytes.
// CHECK-LABEL: func.func private @dma_body_interpret0
// CHECK-SAME: (%[[I:.*]]: index, %[[SRC:.*]]: memref<32x128xf32>, %[[O:.*]]: memref<8x128xf32>)
// CHECK: %[[VIEW:.*]] = memref.subview %[[SRC]]
// CHECK: %[[MARK:.*]] = call @tessera_rt_kernel_arena_mark(%{{.*}}) : (i32) -> i64
// CHECK: %[[ADDR:.*]] = call @tessera_rt_kernel_arena(%{{.*}}, %{{.*}}) : (i32, i64) -> i64
// CHECK: llvm.inttoptr %[[ADDR]]
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x128xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<8x128xf32>)
// CHECK: %[[DSEM:.*]] = memref.alloc() : memref<i32>
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%[[DSEM]] : memref<i32>)
// CHECK: %[[BYTES:.*]] = arith.constant 4096 : i32
// CHECK: memref.copy %[[VIEW]], %[[BUF]]
// CHECK: arith.addi %{{.*}}, %[[BYTES]] : i32
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: call @tessera_rt_kernel_arena_release(%{{.*}}, %[[MARK]]) : (i32, i64) -> ()
// CHECK: return
// The `any` operand is the whole array, rebuilt in the core function from
// the address the caller passes.
// CHECK-LABEL: func.func private @dma_body_interpret0_core
// CHECK: %[[WHOLE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<32x128xf32>
// CHECK: call @dma_body_interpret0(%{{.*}}, %[[WHOLE]], %{{.*}})
// CHECK-LABEL: func.func @manual_dma
// CHECK: %[[ARRAY:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<32x128xf32> to memref<32x128xf32>
// CHECK: memref.extract_strided_metadata %[[ARRAY]]
// CHECK: call @tessera_rt_kernel_call
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @dma_body(%x: memref<32x128xf32, #kernel.space<any>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %i = kernel.program_id 0
    %row = arith.muli %i, %c8 : index
    %src = memref.subview %x[%row, 0] [8, 128] [1, 1] : memref<32x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>
    kernel.run_scoped (%buf: memref<8x128xf32, #kernel.space<vmem>>, %sem: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) {
      kernel.async_copy start %src, %buf, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
      kernel.async_copy wait %src, %buf, %sem[] : memref<8x128xf32, strided<[128, 1], offset: ?>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
      %a = kernel.load %buf[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
      kernel.store %a, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
      kernel.yield
    }
    return
  }
  func.func @manual_dma(%x: tensor<32x128xf32>) -> tensor<32x128xf32> {
    %0 = kernel.call @dma_body(%x) grid = [4]
        in_specs = [#kernel.block<full, space = any>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<32x128xf32>) -> tensor<32x128xf32>
    return %0 : tensor<32x128xf32>
  }
}

// -----

// Tests scalar prefetch (copied once, passed to the body and to the index
// map function, whose SMEM load is lowered in place), a squeezed block
// dimension (the body gets a collapse_shape of the block buffer), and an
// aliased output that starts as a copy of its input.
// CHECK-LABEL: func.func @pick_row
// CHECK-SAME: (%{{.*}}: index, %[[ROWS:.*]]: memref<2xi32>)
// CHECK: memref.load %[[ROWS]]
// The prefetched array is copied into the core's SMEM arena (space 1),
// the block buffer is in its VMEM arena (space 0).
// CHECK-LABEL: func.func private @body_interpret0_core
// CHECK: %[[P:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<2xi32>
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: call @tessera_rt_kernel_arena(%[[C1]], %{{.*}}) : (i32, i64) -> i64
// CHECK: %[[SMEM:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<2xi32>
// CHECK: memref.copy %[[P]], %[[SMEM]]
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: call @tessera_rt_kernel_arena(%[[C0]], %{{.*}}) : (i32, i64) -> i64
// CHECK: %[[BLOCK:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<1x8x128xf32>
// CHECK: %[[VIEW:.*]] = memref.collapse_shape %[[BLOCK]] {{\[\[}}0, 1], [2]] : memref<1x8x128xf32> into memref<8x128xf32>
// CHECK: scf.for %[[S:.*]] =
// CHECK: %[[B:.*]] = arith.remsi %[[S]], %{{.*}} : index
// CHECK: func.call @pick_row(%[[B]], %[[SMEM]]) : (index, memref<2xi32>) -> (index, index, index)
// CHECK: call @body_interpret0(%[[B]], %[[SMEM]], %[[VIEW]], %{{.*}})
// The aliased output starts as a copy of its input.
// CHECK-LABEL: func.func @prefetch_squeeze_alias
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<3x8x128xf32>
// CHECK: %[[ALIASED:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<3x8x128xf32> to memref<3x8x128xf32>
// CHECK: memref.copy %[[ALIASED]], %[[OUT]]
// CHECK: call @tessera_rt_kernel_call
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @pick_row(%b: index, %rows: memref<2xi32, #kernel.space<smem>>) -> (index, index, index) {
    %c0 = arith.constant 0 : index
    %r = kernel.load %rows[%b] : memref<2xi32, #kernel.space<smem>>, i32
    %ri = arith.index_cast %r : i32 to index
    return %ri, %c0, %c0 : index, index, index
  }
  func.func @body(%rows: memref<2xi32, #kernel.space<smem>>, %x: memref<8x128xf32, #kernel.space<vmem>>,
                  %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }
  func.func @prefetch_squeeze_alias(%rows: tensor<2xi32>, %x: tensor<3x8x128xf32>) -> tensor<3x8x128xf32> {
    %0 = kernel.call @body(%rows, %x) grid = [2] scalar_prefetch = 1
        in_specs = [#kernel.block<[None, 8, 128], @pick_row>]
        out_specs = [#kernel.block<[None, 8, 128], (b) -> (b, 0, 0)>]
        input_output_aliases = {1 -> 0}
        : (tensor<2xi32>, tensor<3x8x128xf32>) -> tensor<3x8x128xf32>
    return %0 : tensor<3x8x128xf32>
  }
}
