// RUN: tessera-opt %s --split-input-file --kernel-infer-vector-layout | FileCheck %s

// Tests that every vector result of a kernel body gets the native layout of
// its element type: (8, 128) tiles for 32-bit elements, (16, 128) for
// bf16, (32, 128) for int8, 128 * 32 / bitwidth lanes for rank 1; a mask
// takes the tiling of the values it compares and a boolean op that of its
// operands; results that are not vectors get none.
// CHECK-LABEL: func.func @dtypes
// CHECK: kernel.load {{.*}} {kernel.out_layouts = [#kernel.layout<[8, 128]>]} : memref<64x256xf32, #kernel.space<vmem>>, vector<64x256xf32>
// CHECK: kernel.load {{.*}} {kernel.out_layouts = [#kernel.layout<[16, 128]>]} : memref<64x256xbf16, #kernel.space<vmem>>, vector<64x256xbf16>
// CHECK: kernel.load {{.*}} {kernel.out_layouts = [#kernel.layout<[32, 128]>]} : memref<64x256xi8, #kernel.space<vmem>>, vector<64x256xi8>
// CHECK: arith.extsi {{.*}} {kernel.out_layouts = [#kernel.layout<[8, 128]>]} : vector<64x256xi8> to vector<64x256xi32>
// CHECK: arith.cmpf olt, {{.*}} {kernel.out_layouts = [#kernel.layout<[16, 128]>]} : vector<64x256xbf16>
// CHECK: arith.xori {{.*}} {kernel.out_layouts = [#kernel.layout<[16, 128]>]} : vector<64x256xi1>
// CHECK: kernel.load {{.*}} {kernel.out_layouts = [#kernel.layout<[128]>]} : memref<64x256xf32, #kernel.space<vmem>>, vector<256xf32>
// CHECK: arith.truncf {{.*}} {kernel.out_layouts = [#kernel.layout<[256]>]} : vector<256xf32> to vector<256xbf16>
// CHECK: vector.extract {{.*}} : f32 from vector<64x256xf32>
// CHECK-NOT: kernel.out_layouts
// CHECK: return
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @dtypes(%x: memref<64x256xf32, #kernel.space<vmem>>, %h: memref<64x256xbf16, #kernel.space<vmem>>,
                    %q: memref<64x256xi8, #kernel.space<vmem>>, %o: memref<64x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<64x256xf32, #kernel.space<vmem>>, vector<64x256xf32>
    %b = kernel.load %h[%c0, %c0] : memref<64x256xbf16, #kernel.space<vmem>>, vector<64x256xbf16>
    %i = kernel.load %q[%c0, %c0] : memref<64x256xi8, #kernel.space<vmem>>, vector<64x256xi8>
    %w = arith.extsi %i : vector<64x256xi8> to vector<64x256xi32>
    %m = arith.cmpf olt, %b, %b : vector<64x256xbf16>
    %n = arith.xori %m, %m : vector<64x256xi1>
    %r = kernel.load %x[%c0, %c0] : memref<64x256xf32, #kernel.space<vmem>>, vector<256xf32>
    %r16 = arith.truncf %r : vector<256xf32> to vector<256xbf16>
    %s = vector.extract %a[0, 0] : f32 from vector<64x256xf32>
    kernel.store %a, %o[%c0, %c0] : vector<64x256xf32>, memref<64x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @f(%x: tensor<64x256xf32>, %h: tensor<64x256xbf16>, %q: tensor<64x256xi8>) -> tensor<64x256xf32> {
    %0 = kernel.call @dtypes(%x, %h, %q) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>, #kernel.block<full>]
        out_specs = [#kernel.block<full>] : (tensor<64x256xf32>, tensor<64x256xbf16>, tensor<64x256xi8>) -> tensor<64x256xf32>
    return %0 : tensor<64x256xf32>
  }
}

// -----

// Tests the tiles of shapes that are not multiples of the native tile: a
// dimension smaller than the native size is one tile, a larger one is
// tiled by its largest divisor below the native size; leading dimensions
// are tiled by 1 (the layout names only the last two).
// CHECK-LABEL: func.func @shapes
// CHECK: vector.extract_strided_slice {{.*}} {kernel.out_layouts = [#kernel.layout<[4, 64]>]
// CHECK-SAME: to vector<4x64xf32>
// CHECK: vector.extract_strided_slice {{.*}} {kernel.out_layouts = [#kernel.layout<[8, 100]>]
// CHECK-SAME: to vector<24x200xf32>
// CHECK: vector.shape_cast {{.*}} {kernel.out_layouts = [#kernel.layout<[8, 128]>]} : vector<64x256xf32> to vector<4x16x256xf32>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @shapes(%x: memref<64x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<64x256xf32, #kernel.space<vmem>>, vector<64x256xf32>
    %small = vector.extract_strided_slice %a {offsets = [0, 0], sizes = [4, 64], strides = [1, 1]} : vector<64x256xf32> to vector<4x64xf32>
    %odd = vector.extract_strided_slice %a {offsets = [0, 0], sizes = [24, 200], strides = [1, 1]} : vector<64x256xf32> to vector<24x200xf32>
    %three = vector.shape_cast %a : vector<64x256xf32> to vector<4x16x256xf32>
    return
  }
  func.func @f(%x: tensor<64x256xf32>) {
    kernel.call @shapes(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [] : (tensor<64x256xf32>) -> ()
    return
  }
}

// -----

// Tests that the results of loops and conditionals get layouts (their
// iteration arguments take the loop's), and that functions that are not
// kernel bodies are left alone.
// CHECK-LABEL: func.func @regions
// CHECK: scf.for {{.*}} -> (vector<16x256xf32>) {
// CHECK: } {kernel.out_layouts = [#kernel.layout<[8, 128]>]}
// CHECK: scf.if {{.*}} -> (vector<16x256xf32>) {
// CHECK: } {kernel.out_layouts = [#kernel.layout<[8, 128]>]}
// CHECK-LABEL: func.func @not_a_body
// CHECK-NOT: kernel.out_layouts
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @regions(%x: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %i0 = kernel.program_id 0
    %c = arith.cmpi eq, %i0, %c0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (vector<16x256xf32>) {
      %n = arith.addf %acc, %a : vector<16x256xf32>
      scf.yield %n : vector<16x256xf32>
    }
    %s = scf.if %c -> (vector<16x256xf32>) {
      scf.yield %r : vector<16x256xf32>
    } else {
      scf.yield %a : vector<16x256xf32>
    }
    kernel.store %s, %x[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @not_a_body(%v: vector<16x256xf32>) -> vector<16x256xf32> {
    %n = arith.addf %v, %v : vector<16x256xf32>
    return %n : vector<16x256xf32>
  }
  func.func @f(%x: tensor<16x256xf32>) {
    kernel.call @regions(%x) grid = [2] in_specs = [#kernel.block<full>] out_specs = [] : (tensor<16x256xf32>) -> ()
    return
  }
}
