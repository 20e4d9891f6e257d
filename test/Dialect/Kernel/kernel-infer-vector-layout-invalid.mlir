// RUN: tessera-opt %s --split-input-file --kernel-infer-vector-layout --verify-diagnostics
// RUN: tessera-opt %s --split-input-file --kernel-apply-vector-layout --verify-diagnostics
// RUN: tessera-opt %s --split-input-file --kernel-verify --verify-diagnostics

// Tests the kernel bodies the vector layout passes reject (and kernel-verify
// with them, before anything runs), in Pallas's and Mosaic's words: ops on
// vectors of several native tiles that are not rewritten onto tiles, and
// contractions of types the MXU does not combine.

// Tests a bitcast of a vector of four (8, 128) tiles.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x256xf32, #kernel.space<vmem>>, %o: memref<16x256xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    // expected-error @+1 {{'vector.bitcast' op Unimplemented primitive in Pallas TPU lowering for tc: vector.bitcast on 'vector<16x256xf32>' (4 native tiles of (8, 128))}}
    %b = vector.bitcast %a : vector<16x256xf32> to vector<16x256xi32>
    kernel.store %b, %o[%c0, %c0] : vector<16x256xi32>, memref<16x256xi32, #kernel.space<vmem>>
    return
  }
  func.func @bitcast(%x: tensor<16x256xf32>) -> tensor<16x256xi32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<16x256xf32>) -> tensor<16x256xi32>
    return %0 : tensor<16x256xi32>
  }
}

// -----

// Tests a vector.load (kernel bodies read blocks with kernel.load) of a
// vector of two (128) tiles.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x256xf32, #kernel.space<vmem>>, %o: memref<8x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'vector.load' op Unimplemented primitive in Pallas TPU lowering for tc: vector.load on 'vector<256xf32>' (2 native tiles of (128))}}
    %a = vector.load %x[%c0, %c0] : memref<8x256xf32, #kernel.space<vmem>>, vector<256xf32>
    kernel.store %a, %o[%c0, %c0] : vector<256xf32>, memref<8x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @vector_load(%x: tensor<8x256xf32>) -> tensor<8x256xf32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<8x256xf32>) -> tensor<8x256xf32>
    return %0 : tensor<8x256xf32>
  }
}

// -----

// Tests an scf.while that carries a vector of several tiles (scf.for and
// scf.if can).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    %false = arith.constant false
    // expected-error @+1 {{'scf.while' op Unimplemented primitive in Pallas TPU lowering for tc: scf.while on 'vector<16x128xf32>' (2 native tiles of (8, 128))}}
    %r = scf.while (%v = %a) : (vector<16x128xf32>) -> vector<16x128xf32> {
      scf.condition(%false) %v : vector<16x128xf32>
    } do {
    ^bb0(%w: vector<16x128xf32>):
      scf.yield %w : vector<16x128xf32>
    }
    kernel.store %r, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @while(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a contraction into a bf16 accumulator (the MXU accumulates in 32
// bits).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xbf16, #kernel.space<vmem>>, %y: memref<128x128xbf16, #kernel.space<vmem>>,
                  %o: memref<16x128xbf16, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x128xbf16, #kernel.space<vmem>>, vector<16x128xbf16>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xbf16, #kernel.space<vmem>>, vector<128x128xbf16>
    %z = arith.constant dense<0.0> : vector<16x128xbf16>
    // expected-error @+1 {{'vector.contract' op Expected matmul acc to be 32-bit, got 'bf16'}}
    %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %a, %b, %z : vector<16x128xbf16>, vector<128x128xbf16> into vector<16x128xbf16>
    kernel.store %r, %o[%c0, %c0] : vector<16x128xbf16>, memref<16x128xbf16, #kernel.space<vmem>>
    return
  }
  func.func @bf16_acc(%x: tensor<16x128xbf16>, %y: tensor<128x128xbf16>) -> tensor<16x128xbf16> {
    %0 = kernel.call @body(%x, %y) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<16x128xbf16>, tensor<128x128xbf16>) -> tensor<16x128xbf16>
    return %0 : tensor<16x128xbf16>
  }
}

// -----

// Tests a contraction of integer operands into a float accumulator.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x128xi8, #kernel.space<vmem>>, %y: memref<128x128xi8, #kernel.space<vmem>>,
                  %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x128xi8, #kernel.space<vmem>>, vector<16x128xi8>
    %b = kernel.load %y[%c0, %c0] : memref<128x128xi8, #kernel.space<vmem>>, vector<128x128xi8>
    %z = arith.constant dense<0.0> : vector<16x128xf32>
    // expected-error @+1 {{'vector.contract' op Not implemented: matmul of 'i8' and 'i8' into 'f32' (the operands and the accumulator must all be floats or all integers)}}
    %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
                          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
        %a, %b, %z : vector<16x128xi8>, vector<128x128xi8> into vector<16x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @mixed(%x: tensor<16x128xi8>, %y: tensor<128x128xi8>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x, %y) grid = [] in_specs = [#kernel.block<full>, #kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<16x128xi8>, tensor<128x128xi8>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a function call with a vector of several tiles.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func private @helper(vector<16x128xf32>) -> vector<16x128xf32>
  func.func @body(%x: memref<16x128xf32, #kernel.space<vmem>>, %o: memref<16x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x128xf32, #kernel.space<vmem>>, vector<16x128xf32>
    // expected-error @+1 {{'func.call' op Unimplemented primitive in Pallas TPU lowering for tc: func.call on 'vector<16x128xf32>' (2 native tiles of (8, 128))}}
    %r = func.call @helper(%a) : (vector<16x128xf32>) -> vector<16x128xf32>
    kernel.store %r, %o[%c0, %c0] : vector<16x128xf32>, memref<16x128xf32, #kernel.space<vmem>>
    return
  }
  func.func @call(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<16x128xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}

// -----

// Tests a scalable vector, which has no native tiling (TPU vectors have
// fixed shapes), in a kernel body.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    // expected-error @+1 {{'arith.constant' op Not implemented: scalable vectors in a kernel body}}
    %c = arith.constant dense<1.0> : vector<[4]xf32>
    %d = arith.addf %c, %c : vector<[4]xf32>
    return
  }
  func.func @scalable(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %0 = kernel.call @body(%x) grid = [] in_specs = [#kernel.block<full>] out_specs = [#kernel.block<full>] : (tensor<8x128xf32>) -> tensor<8x128xf32>
    return %0 : tensor<8x128xf32>
  }
}
