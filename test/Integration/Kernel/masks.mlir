// Tests booleans in kernels, which TPUs keep as bytes in memory (never
// bit-packed): an (8, 128) i1 block and a (32, 256) one (several tiles)
// copied from an i1 input to an i1 output round-trip exactly in both
// lowerings, and a mask computed from an iota (vector.step) and a
// comparison (row + column < bound) selects values, is stored into an i1
// output, and masks a store. Each is compared with the same computation in
// linalg in the same module (result1, result3, result5, result7: the
// number of elements that differ), and --check compares the pipelined run
// with the interpret run.
// RUN: tessera-run %s --random-inputs --seed 23 --check | FileCheck %s
// RUN: tessera-run %s --random-inputs --seed 23 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: result5: i32[] = [0]
// CHECK: result7: i32[] = [0]
// CHECK: check: all 8 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
// ZERO: result5: i32[] = [0]
// ZERO: result7: i32[] = [0]
#all = affine_map<(i, j) -> (i, j)>
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @copy_body(%x: memref<8x128xi1, #kernel.space<vmem>>, %o: memref<8x128xi1, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xi1, #kernel.space<vmem>>, vector<8x128xi1>
    kernel.store %a, %o[%c0, %c0] : vector<8x128xi1>, memref<8x128xi1, #kernel.space<vmem>>
    return
  }

  func.func @not_body(%x: memref<32x256xi1, #kernel.space<vmem>>, %o: memref<32x256xi1, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<32x256xi1, #kernel.space<vmem>>, vector<32x256xi1>
    %true = arith.constant dense<true> : vector<32x256xi1>
    %n = arith.xori %a, %true : vector<32x256xi1>
    kernel.store %n, %o[%c0, %c0] : vector<32x256xi1>, memref<32x256xi1, #kernel.space<vmem>>
    return
  }

  // m = (row + col < 200) at the block's rows; s = m ? x : -x; o = x where m.
  func.func @mask_body(%x: memref<32x256xf32, #kernel.space<vmem>>, %s: memref<32x256xf32, #kernel.space<vmem>>,
                       %m_ref: memref<32x256xi1, #kernel.space<vmem>>, %o: memref<32x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %i = kernel.program_id 0
    %first = arith.muli %i, %c32 : index
    %cols = vector.step : vector<256xindex>
    %colsb = vector.broadcast %cols : vector<256xindex> to vector<32x256xindex>
    %rows = vector.step : vector<32xindex>
    %firstb = vector.broadcast %first : index to vector<32xindex>
    %grows = arith.addi %rows, %firstb : vector<32xindex>
    %rows2 = vector.shape_cast %grows : vector<32xindex> to vector<32x1xindex>
    %rowsb = vector.broadcast %rows2 : vector<32x1xindex> to vector<32x256xindex>
    %sum = arith.addi %rowsb, %colsb : vector<32x256xindex>
    %bound = arith.constant dense<200> : vector<32x256xindex>
    %m = arith.cmpi slt, %sum, %bound : vector<32x256xindex>
    %a = kernel.load %x[%c0, %c0] : memref<32x256xf32, #kernel.space<vmem>>, vector<32x256xf32>
    %neg = arith.negf %a : vector<32x256xf32>
    %sel = arith.select %m, %a, %neg : vector<32x256xi1>, vector<32x256xf32>
    kernel.store %sel, %s[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    kernel.store %m, %m_ref[%c0, %c0] : vector<32x256xi1>, memref<32x256xi1, #kernel.space<vmem>>
    %zero = arith.constant dense<0.0> : vector<32x256xf32>
    kernel.store %zero, %o[%c0, %c0] : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    kernel.store %a, %o[%c0, %c0] mask %m : vector<32x256xf32>, memref<32x256xf32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ.
  func.func private @bool_mismatches(%a: tensor<?x?xi1>, %b: tensor<?x?xi1>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [#all, #all, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xi1>, tensor<?x?xi1>) outs(%acc : tensor<i32>) {
    ^bb0(%p: i1, %q: i1, %n: i32):
      %ne = arith.xori %p, %q : i1
      %inc = arith.extui %ne : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }
  func.func private @float_mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [#all, #all, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%p: f32, %q: f32, %n: i32):
      %ne = arith.cmpf une, %p, %q : f32
      %inc = arith.extui %ne : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%b8: tensor<16x128xi1>, %b32: tensor<32x512xi1>, %x: tensor<64x256xf32>)
      -> (tensor<16x128xi1>, tensor<i32>, tensor<32x512xi1>, tensor<i32>, tensor<64x256xf32>, tensor<i32>,
          tensor<64x256xi1>, tensor<i32>) {
    // 0. An (8, 128) boolean block copied.
    %0 = kernel.call @copy_body(%b8) grid = [2]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<16x128xi1>) -> tensor<16x128xi1>
    %k0 = tensor.cast %0 : tensor<16x128xi1> to tensor<?x?xi1>
    %r0 = tensor.cast %b8 : tensor<16x128xi1> to tensor<?x?xi1>
    %bad0 = func.call @bool_mismatches(%k0, %r0) : (tensor<?x?xi1>, tensor<?x?xi1>) -> tensor<i32>

    // 1. (32, 256) boolean blocks negated.
    %1 = kernel.call @not_body(%b32) grid = [2]
        in_specs = [#kernel.block<[32, 256], (i) -> (0, i)>]
        out_specs = [#kernel.block<[32, 256], (i) -> (0, i)>]
        : (tensor<32x512xi1>) -> tensor<32x512xi1>
    %e1 = tensor.empty() : tensor<32x512xi1>
    %ref1 = linalg.generic {indexing_maps = [#all, #all], iterator_types = ["parallel", "parallel"]}
        ins(%b32 : tensor<32x512xi1>) outs(%e1 : tensor<32x512xi1>) {
    ^bb0(%v: i1, %out: i1):
      %t = arith.constant true
      %n = arith.xori %v, %t : i1
      linalg.yield %n : i1
    } -> tensor<32x512xi1>
    %k1 = tensor.cast %1 : tensor<32x512xi1> to tensor<?x?xi1>
    %r1 = tensor.cast %ref1 : tensor<32x512xi1> to tensor<?x?xi1>
    %bad1 = func.call @bool_mismatches(%k1, %r1) : (tensor<?x?xi1>, tensor<?x?xi1>) -> tensor<i32>

    // 2. The iota mask: the select, the mask itself, the masked store.
    %2:3 = kernel.call @mask_body(%x) grid = [2]
        in_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[32, 256], (i) -> (i, 0)>, #kernel.block<[32, 256], (i) -> (i, 0)>,
                     #kernel.block<[32, 256], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xi1>, tensor<64x256xf32>)
    %ef = tensor.empty() : tensor<64x256xf32>
    %eb = tensor.empty() : tensor<64x256xi1>
    %ref:3 = linalg.generic {indexing_maps = [#all, #all, #all, #all], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<64x256xf32>) outs(%ef, %eb, %ef : tensor<64x256xf32>, tensor<64x256xi1>, tensor<64x256xf32>) {
    ^bb0(%v: f32, %o0: f32, %o1: i1, %o2: f32):
      %r = linalg.index 0 : index
      %c = linalg.index 1 : index
      %sum = arith.addi %r, %c : index
      %c200 = arith.constant 200 : index
      %m = arith.cmpi slt, %sum, %c200 : index
      %neg = arith.negf %v : f32
      %sel = arith.select %m, %v, %neg : f32
      %zero = arith.constant 0.0 : f32
      %masked = arith.select %m, %v, %zero : f32
      linalg.yield %sel, %m, %masked : f32, i1, f32
    } -> (tensor<64x256xf32>, tensor<64x256xi1>, tensor<64x256xf32>)
    %k2 = tensor.cast %2#0 : tensor<64x256xf32> to tensor<?x?xf32>
    %r2 = tensor.cast %ref#0 : tensor<64x256xf32> to tensor<?x?xf32>
    %bad2 = func.call @float_mismatches(%k2, %r2) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    %k3 = tensor.cast %2#1 : tensor<64x256xi1> to tensor<?x?xi1>
    %r3 = tensor.cast %ref#1 : tensor<64x256xi1> to tensor<?x?xi1>
    %bad3 = func.call @bool_mismatches(%k3, %r3) : (tensor<?x?xi1>, tensor<?x?xi1>) -> tensor<i32>
    %k4 = tensor.cast %2#2 : tensor<64x256xf32> to tensor<?x?xf32>
    %r4 = tensor.cast %ref#2 : tensor<64x256xf32> to tensor<?x?xf32>
    %bad4 = func.call @float_mismatches(%k4, %r4) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>
    %bad24 = arith.addi %bad2, %bad4 : tensor<i32>
    return %0, %bad0, %1, %bad1, %2#0, %bad24, %2#1, %bad3
        : tensor<16x128xi1>, tensor<i32>, tensor<32x512xi1>, tensor<i32>, tensor<64x256xf32>, tensor<i32>,
          tensor<64x256xi1>, tensor<i32>
  }
}
