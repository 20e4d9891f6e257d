// RUN: tessera-opt %s --split-input-file --verify-roundtrip | FileCheck %s
// RUN: tessera-opt %s --split-input-file | tessera-opt --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | tessera-opt --split-input-file | FileCheck %s

// Round-trips every kernel op, attribute and type through the custom and the
// generic syntax.

// Tests that a pallas_call with the default block options prints its grid,
// specs and the body's memory spaces.
// CHECK-LABEL: func.func @add
// CHECK: kernel.call @add_body(%{{.*}}, %{{.*}}) grid = [8] in_specs = [#kernel.block<[8, 128], (d0) -> (d0, 0)>, #kernel.block<[8, 128], (d0) -> (d0, 0)>] out_specs = [#kernel.block<[8, 128], (d0) -> (d0, 0)>] : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
// GENERIC-LABEL: sym_name = "add"
// GENERIC: "kernel.call"(%{{.*}}, %{{.*}}) <{callee = @add_body, grid = array<i64: 8>, in_specs = [#kernel.block<[8, 128], (d0) -> (d0, 0)>, #kernel.block<[8, 128], (d0) -> (d0, 0)>], out_specs = [#kernel.block<[8, 128], (d0) -> (d0, 0)>], scalar_prefetch = 0 : i64}>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>,
                      %y: memref<8x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @add(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %0 = kernel.call @add_body(%x, %y) grid = [8]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>,
                    #kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }
}

// -----

// Tests that every optional clause of kernel.call round-trips: scalar
// prefetch, a function index map, squeezed and full blocks, memory spaces,
// buffer counts, scratch buffers, dimension semantics, aliases, the cost
// estimate and the VMEM limit.
// CHECK-LABEL: func.func @all_clauses
// CHECK: kernel.call @body(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) grid = [4, 2] scalar_prefetch = 1
// CHECK-SAME: cost_estimate = <flops = 8192, transcendentals = 0, bytes_accessed = 65536>
// CHECK-SAME: in_specs = [#kernel.block<[None, 8, 128], @block_index, buffers = 1>, #kernel.block<full, space = any>, #kernel.block<full, space = smem>]
// CHECK-SAME: out_specs = [#kernel.block<[8, 128], (d0, d1) -> (d0, 0)>]
// CHECK-SAME: scratch = [memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>, memref<!kernel.semaphore, #kernel.space<semaphore>>]
// CHECK-SAME: dimension_semantics = [parallel, arbitrary]
// CHECK-SAME: input_output_aliases = {2 -> 0}
// CHECK-SAME: vmem_limit_bytes = 33554432
// CHECK-SAME: : (tensor<3xi32>, tensor<3x8x128xf32>, tensor<32x128xf32>, tensor<4xi32>) -> tensor<32x128xf32>
// GENERIC-LABEL: sym_name = "all_clauses"
// GENERIC: cost_estimate = #kernel.cost<flops = 8192, transcendentals = 0, bytes_accessed = 65536>
// GENERIC-SAME: dimension_semantics = [#kernel.dimension_semantics<parallel>, #kernel.dimension_semantics<arbitrary>]
// GENERIC-SAME: input_output_aliases = array<i64: 2, 0>
func.func @block_index(%i: index, %j: index, %p: memref<3xi32, #kernel.space<smem>>) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %k = kernel.load %p[%i] : memref<3xi32, #kernel.space<smem>>, i32
  %ki = arith.index_cast %k : i32 to index
  return %ki, %c0, %c0 : index, index, index
}
func.func @body(%p: memref<3xi32, #kernel.space<smem>>,
                %x: memref<8x128xf32, #kernel.space<vmem>>,
                %h: memref<32x128xf32, #kernel.space<any>>,
                %s: memref<4xi32, #kernel.space<smem>>,
                %o: memref<8x128xf32, #kernel.space<vmem>>,
                %buf: memref<8x128xf32, #kernel.space<vmem>>,
                %dma: memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>,
                %sem: memref<!kernel.semaphore, #kernel.space<semaphore>>) {
  return
}
func.func @all_clauses(%p: tensor<3xi32>, %x: tensor<3x8x128xf32>, %h: tensor<32x128xf32>, %s: tensor<4xi32>) -> tensor<32x128xf32> {
  %0 = kernel.call @body(%p, %x, %h, %s) grid = [4, 2] scalar_prefetch = 1
      cost_estimate = #kernel.cost<flops = 8192, transcendentals = 0, bytes_accessed = 65536>
      in_specs = [#kernel.block<[None, 8, 128], @block_index, buffers = 1>,
                  #kernel.block<full, space = any>,
                  #kernel.block<full, space = smem>]
      out_specs = [#kernel.block<[8, 128], (i, j) -> (i, 0)>]
      scratch = [memref<8x128xf32, #kernel.space<vmem>>,
                 memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>,
                 memref<!kernel.semaphore, #kernel.space<semaphore>>]
      dimension_semantics = [parallel, arbitrary]
      input_output_aliases = {2 -> 0}
      vmem_limit_bytes = 33554432
      : (tensor<3xi32>, tensor<3x8x128xf32>, tensor<32x128xf32>, tensor<4xi32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

// Tests that the clauses of kernel.call may be written in any order (here
// Pallas's argument order: specs, then compiler parameters, then the scalar
// prefetch count and scratch, then the cost estimate in its short form and
// an attribute dictionary) and print in the canonical order.
// CHECK-LABEL: func.func @any_order
// CHECK: kernel.call @order_body(%{{.*}}, %{{.*}}) grid = [4, 2] scalar_prefetch = 1 cost_estimate = <flops = 1, transcendentals = 0, bytes_accessed = 2> in_specs = [#kernel.block<[8, 128], (d0, d1) -> (d0, 0)>] out_specs = [#kernel.block<[8, 128], (d0, d1) -> (d0, 0)>] scratch = [memref<8x128xf32, #kernel.space<vmem>>] dimension_semantics = [parallel, arbitrary] vmem_limit_bytes = 1048576 {tag} : (tensor<4xi32>, tensor<32x128xf32>) -> tensor<32x128xf32>
func.func @order_body(%p: memref<4xi32, #kernel.space<smem>>,
                      %x: memref<8x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>,
                      %buf: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}
func.func @any_order(%p: tensor<4xi32>, %x: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %0 = kernel.call @order_body(%p, %x)
      out_specs = [#kernel.block<[8, 128], (i, j) -> (i, 0)>]
      in_specs = [#kernel.block<[8, 128], (i, j) -> (i, 0)>]
      grid = [4, 2]
      vmem_limit_bytes = 1048576
      dimension_semantics = [parallel, arbitrary]
      scalar_prefetch = 1
      scratch = [memref<8x128xf32, #kernel.space<vmem>>]
      cost_estimate = <flops = 1, transcendentals = 0, bytes_accessed = 2>
      {tag}
      : (tensor<4xi32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return %0 : tensor<32x128xf32>
}

// -----

// Tests that element blocks with and without padding, a block without an
// index map, hbm blocks and a grid-free call round-trip.
// CHECK-LABEL: func.func @element_blocks
// CHECK: grid = [4]
// CHECK-SAME: in_specs = [#kernel.block<[element(130, padding = (1, 1)), element(128)], (d0) -> (d0 * 128, 0)>, #kernel.block<[64, 128], space = hbm>]
// CHECK-LABEL: func.func @grid_free
// CHECK: kernel.call @copy_body(%{{.*}}) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<[8, 128], () -> (0, 0)>]
func.func @element_body(%x: memref<130x128xf32, #kernel.space<vmem>>,
                        %h: memref<64x128xf32, #kernel.space<hbm>>,
                        %o: memref<512x128xf32, #kernel.space<vmem>>) {
  return
}
func.func @element_blocks(%x: tensor<512x128xf32>, %h: tensor<64x128xf32>) -> tensor<512x128xf32> {
  %0 = kernel.call @element_body(%x, %h) grid = [4]
      in_specs = [#kernel.block<[element(130, padding = (1, 1)), element(128)], (i) -> (i * 128, 0)>,
                  #kernel.block<[64, 128], space = hbm>]
      out_specs = [#kernel.block<full>]
      : (tensor<512x128xf32>, tensor<64x128xf32>) -> tensor<512x128xf32>
  return %0 : tensor<512x128xf32>
}
func.func @copy_body(%x: memref<8x128xf32, #kernel.space<vmem>>,
                     %o: memref<8x128xf32, #kernel.space<vmem>>) {
  return
}
func.func @grid_free(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %0 = kernel.call @copy_body(%x) grid = [] in_specs = [#kernel.block<full>]
      out_specs = [#kernel.block<[8, 128], () -> (0, 0)>]
      : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

// Tests the grid queries, masked and unmasked loads and stores, scalar SMEM
// access and the generic form of a masked load.
// CHECK-LABEL: func.func @access
// CHECK: %[[I:.*]] = kernel.program_id 0
// CHECK: kernel.num_programs 1
// CHECK: %[[V:.*]] = kernel.load %{{.*}}[%[[I]], %{{.*}}] : memref<16x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: kernel.load %{{.*}}[%[[I]], %{{.*}}] mask %[[M:.*]] : memref<16x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
// CHECK: kernel.load %{{.*}}[%{{.*}}] : memref<4xi32, #kernel.space<smem>>, i32
// CHECK: kernel.store %[[V]], %{{.*}}[%[[I]], %{{.*}}] mask %[[M]] : vector<8x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
// CHECK: kernel.store %{{.*}}, %{{.*}}[%{{.*}}] : i32, memref<4xi32, #kernel.space<smem>>
// GENERIC-LABEL: sym_name = "access"
// GENERIC: "kernel.program_id"() <{axis = 0 : i64}> : () -> index
// GENERIC: "kernel.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (memref<16x128xf32, #kernel.space<vmem>>, index, index, vector<8x128xi1>) -> vector<8x128xf32>
func.func @access(%x: memref<16x128xf32, #kernel.space<vmem>>, %s: memref<4xi32, #kernel.space<smem>>) {
  %c0 = arith.constant 0 : index
  %i = kernel.program_id 0
  %n = kernel.num_programs 1
  %v = kernel.load %x[%i, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
  %m = arith.constant dense<true> : vector<8x128xi1>
  %w = kernel.load %x[%i, %c0] mask %m : memref<16x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
  %k = kernel.load %s[%c0] : memref<4xi32, #kernel.space<smem>>, i32
  kernel.store %v, %x[%i, %c0] mask %m : vector<8x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
  kernel.store %k, %s[%c0] : i32, memref<4xi32, #kernel.space<smem>>
  return
}

// -----

// Tests asynchronous copies through a subview, the semaphore ops on regular
// and DMA semaphores, and kernel.run_scoped with and without results.
// CHECK-LABEL: func.func @dma_and_semaphores
// CHECK: kernel.async_copy start %{{.*}}, %{{.*}}, %{{.*}}[%{{.*}}] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
// CHECK: kernel.async_copy wait
// CHECK: kernel.semaphore_signal %{{.*}}[], %{{.*}} : memref<!kernel.semaphore, #kernel.space<semaphore>>
// CHECK: kernel.semaphore_wait %{{.*}}[], %{{.*}} : memref<!kernel.semaphore, #kernel.space<semaphore>>
// CHECK: kernel.semaphore_read %{{.*}}[%{{.*}}] : memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
// CHECK: %{{.*}} = kernel.run_scoped (%[[B:.*]]: memref<8x128xf32, #kernel.space<vmem>>, %[[S:.*]]: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) -> f32 {
// CHECK: kernel.yield %{{.*}} : f32
// CHECK: kernel.run_scoped (%{{.*}}: memref<8x128xf32, #kernel.space<vmem>>) {
// CHECK-NEXT: kernel.yield
// GENERIC-LABEL: sym_name = "dma_and_semaphores"
// GENERIC: "kernel.async_copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{phase = #kernel.copy_phase<start>}>
func.func @dma_and_semaphores(%h: memref<64x128xf32, #kernel.space<any>>,
                              %v: memref<8x128xf32, #kernel.space<vmem>>,
                              %dma: memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>,
                              %sem: memref<!kernel.semaphore, #kernel.space<semaphore>>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %src = memref.subview %h[8, 0] [8, 128] [1, 1] : memref<64x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<any>>
  %src0 = memref.subview %h[0, 0] [8, 128] [1, 1] : memref<64x128xf32, #kernel.space<any>> to memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>
  kernel.async_copy start %src0, %v, %dma[%c0] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
  kernel.async_copy wait %src0, %v, %dma[%c0] : memref<8x128xf32, strided<[128, 1]>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
  kernel.semaphore_signal %sem[], %one : memref<!kernel.semaphore, #kernel.space<semaphore>>
  kernel.semaphore_wait %sem[], %one : memref<!kernel.semaphore, #kernel.space<semaphore>>
  %r = kernel.semaphore_read %dma[%c1] : memref<2x!kernel.dma_semaphore, #kernel.space<semaphore>>
  %f = kernel.run_scoped (%buf: memref<8x128xf32, #kernel.space<vmem>>, %s: memref<!kernel.dma_semaphore, #kernel.space<semaphore>>) -> f32 {
    kernel.async_copy start %src, %buf, %s[] : memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    kernel.async_copy wait %src, %buf, %s[] : memref<8x128xf32, strided<[128, 1], offset: 1024>, #kernel.space<any>>, memref<8x128xf32, #kernel.space<vmem>>, memref<!kernel.dma_semaphore, #kernel.space<semaphore>>
    %z = arith.constant 0.0 : f32
    kernel.yield %z : f32
  }
  kernel.run_scoped (%buf: memref<8x128xf32, #kernel.space<vmem>>) {
    kernel.yield
  }
  return %f : f32
}

// -----

// Tests that every TPU generation is a valid target.
// CHECK-LABEL: module attributes {kernel.target = #kernel.target<"v4">}
// CHECK-LABEL: module attributes {kernel.target = #kernel.target<"v5p">}
// CHECK-LABEL: module attributes {kernel.target = #kernel.target<"v6e">}
// CHECK-LABEL: module attributes {kernel.target = #kernel.target<"v7x">}
module {
  module attributes {kernel.target = #kernel.target<"v4">} {}
  module attributes {kernel.target = #kernel.target<"v5p">} {}
  module attributes {kernel.target = #kernel.target<"v6e">} {}
  module attributes {kernel.target = #kernel.target<"v7x">} {}
}

// -----

// Tests that vector layouts (kernel-infer-vector-layout) round-trip on ops.
// CHECK-LABEL: func.func @layouts
// CHECK: arith.addf %{{.*}}, %{{.*}} {kernel.out_layouts = [#kernel.layout<[8, 128]>]} : vector<16x256xf32>
// CHECK: arith.addf %{{.*}}, %{{.*}} {kernel.out_layouts = [#kernel.layout<[256]>]} : vector<512xbf16>
// CHECK: vector.extract %{{.*}}[0] {kernel.out_layouts = [unit]} : bf16 from vector<512xbf16>
func.func @layouts(%v: vector<16x256xf32>, %w: vector<512xbf16>) {
  %a = arith.addf %v, %v {kernel.out_layouts = [#kernel.layout<[8, 128]>]} : vector<16x256xf32>
  %b = arith.addf %w, %w {kernel.out_layouts = [#kernel.layout<[256]>]} : vector<512xbf16>
  %c = vector.extract %w[0] {kernel.out_layouts = [unit]} : bf16 from vector<512xbf16>
  return
}
