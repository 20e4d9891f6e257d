// Tests whole-block reductions in kernel bodies (Pallas's `o_ref[...] =
// jnp.sum(x_ref[...], axis=0)` and friends) on (256, 512) blocks, which the
// vector layout passes run as loops over the (8, 128) tiles of the reduced
// dimensions carrying an elementwise accumulator (compiling in about a
// second; as whole vectors LLVM took minutes): column sums (axis 0)
// broadcast to an (8, 512) output block, row maxima (axis 1) of floats,
// and the sum of a whole block (both axes, to a scalar). Each is compared
// with linalg on the whole arrays in the same module (result1, result3 and
// result5 count the elements that differ); --check compares the pipelined
// run with the interpret run.
// The (256, 512) blocks compute enough that unoptimized code (lit's default
// --opt-level=0) takes twice as long as -O1 overall.
// RUN: tessera-run %s --opt-level=1 --random-inputs --seed 3 --check | FileCheck %s
// RUN: tessera-run %s --opt-level=1 --random-inputs --seed 3 --kernel-mode=interpret | FileCheck %s --check-prefix=ZERO

// CHECK: result1: i32[] = [0]
// CHECK: result3: i32[] = [0]
// CHECK: result5: i32[] = [0]
// CHECK: check: all 6 results match the single-device reference (kernels in interpret mode)
// ZERO: result1: i32[] = [0]
// ZERO: result3: i32[] = [0]
// ZERO: result5: i32[] = [0]
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @colsum_body(%x: memref<256x512xi32, #kernel.space<vmem>>, %o: memref<8x512xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<256x512xi32, #kernel.space<vmem>>, vector<256x512xi32>
    %zero = arith.constant dense<0> : vector<512xi32>
    %s = vector.multi_reduction <add>, %a, %zero [0] : vector<256x512xi32> to vector<512xi32>
    %b = vector.broadcast %s : vector<512xi32> to vector<8x512xi32>
    kernel.store %b, %o[%c0, %c0] : vector<8x512xi32>, memref<8x512xi32, #kernel.space<vmem>>
    return
  }

  func.func @rowmax_body(%x: memref<256x512xf32, #kernel.space<vmem>>, %o: memref<256x1xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<256x512xf32, #kernel.space<vmem>>, vector<256x512xf32>
    // max(|x| * 2, x): an elementwise chain before the reduction.
    %two = arith.constant dense<2.0> : vector<256x512xf32>
    %abs = math.absf %a : vector<256x512xf32>
    %d = arith.mulf %abs, %two : vector<256x512xf32>
    %low = arith.constant dense<-3.0e+38> : vector<256xf32>
    %m = vector.multi_reduction <maxnumf>, %d, %low [1] : vector<256x512xf32> to vector<256xf32>
    %c = vector.shape_cast %m : vector<256xf32> to vector<256x1xf32>
    kernel.store %c, %o[%c0, %c0] : vector<256x1xf32>, memref<256x1xf32, #kernel.space<vmem>>
    return
  }

  func.func @total_body(%x: memref<256x512xi32, #kernel.space<vmem>>, %o: memref<8x128xi32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<256x512xi32, #kernel.space<vmem>>, vector<256x512xi32>
    %zero = arith.constant 0 : i32
    %s = vector.multi_reduction <add>, %a, %zero [0, 1] : vector<256x512xi32> to i32
    %b = vector.broadcast %s : i32 to vector<8x128xi32>
    kernel.store %b, %o[%c0, %c0] : vector<8x128xi32>, memref<8x128xi32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ.
  func.func private @int_mismatches(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xi32>, tensor<?x?xi32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: i32, %y: i32, %n: i32):
      %ne = arith.cmpi ne, %x, %y : i32
      %inc = arith.extui %ne : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  // The number of elements of %a and %b that differ (floats, exactly).
  func.func private @float_mismatches(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %n: i32):
      %ne = arith.cmpf une, %x, %y : f32
      %inc = arith.extui %ne : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%x: tensor<1024x512xi32>, %y: tensor<1024x512xf32>)
      -> (tensor<32x512xi32>, tensor<i32>, tensor<1024x1xf32>, tensor<i32>, tensor<32x128xi32>, tensor<i32>) {
    %c0 = arith.constant 0 : i32

    // Column sums of each (256, 512) block, on 8 rows.
    %0 = kernel.call @colsum_body(%x) grid = [4]
        in_specs = [#kernel.block<[256, 512], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 512], (i) -> (i, 0)>]
        : (tensor<1024x512xi32>) -> tensor<32x512xi32>
    %xe = tensor.expand_shape %x [[0, 1], [2]] output_shape [4, 256, 512] : tensor<1024x512xi32> into tensor<4x256x512xi32>
    %i0 = tensor.empty() : tensor<4x512xi32>
    %f0 = linalg.fill ins(%c0 : i32) outs(%i0 : tensor<4x512xi32>) -> tensor<4x512xi32>
    %cs = linalg.reduce ins(%xe : tensor<4x256x512xi32>) outs(%f0 : tensor<4x512xi32>) dimensions = [1]
      (%in: i32, %acc: i32) {
        %s = arith.addi %acc, %in : i32
        linalg.yield %s : i32
      }
    %i1 = tensor.empty() : tensor<4x8x512xi32>
    %cb = linalg.broadcast ins(%cs : tensor<4x512xi32>) outs(%i1 : tensor<4x8x512xi32>) dimensions = [1]
    %ref0 = tensor.collapse_shape %cb [[0, 1], [2]] : tensor<4x8x512xi32> into tensor<32x512xi32>
    %a0 = tensor.cast %0 : tensor<32x512xi32> to tensor<?x?xi32>
    %r0 = tensor.cast %ref0 : tensor<32x512xi32> to tensor<?x?xi32>
    %bad0 = func.call @int_mismatches(%a0, %r0) : (tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<i32>

    // Row maxima of 2 |y|.
    %1 = kernel.call @rowmax_body(%y) grid = [4]
        in_specs = [#kernel.block<[256, 512], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[256, 1], (i) -> (i, 0)>]
        : (tensor<1024x512xf32>) -> tensor<1024x1xf32>
    %low = arith.constant -3.0e+38 : f32
    %two = arith.constant 2.0 : f32
    %i2 = tensor.empty() : tensor<1024xf32>
    %f2 = linalg.fill ins(%low : f32) outs(%i2 : tensor<1024xf32>) -> tensor<1024xf32>
    %rm = linalg.reduce ins(%y : tensor<1024x512xf32>) outs(%f2 : tensor<1024xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %abs = math.absf %in : f32
        %d = arith.mulf %abs, %two : f32
        %m = arith.maxnumf %acc, %d : f32
        linalg.yield %m : f32
      }
    %ref1 = tensor.expand_shape %rm [[0, 1]] output_shape [1024, 1] : tensor<1024xf32> into tensor<1024x1xf32>
    %a1 = tensor.cast %1 : tensor<1024x1xf32> to tensor<?x?xf32>
    %r1 = tensor.cast %ref1 : tensor<1024x1xf32> to tensor<?x?xf32>
    %bad1 = func.call @float_mismatches(%a1, %r1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<i32>

    // The sum of each block, on an (8, 128) block.
    %2 = kernel.call @total_body(%x) grid = [4]
        in_specs = [#kernel.block<[256, 512], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        : (tensor<1024x512xi32>) -> tensor<32x128xi32>
    %i3 = tensor.empty() : tensor<4xi32>
    %f3 = linalg.fill ins(%c0 : i32) outs(%i3 : tensor<4xi32>) -> tensor<4xi32>
    %ts = linalg.reduce ins(%xe : tensor<4x256x512xi32>) outs(%f3 : tensor<4xi32>) dimensions = [1, 2]
      (%in: i32, %acc: i32) {
        %s = arith.addi %acc, %in : i32
        linalg.yield %s : i32
      }
    %i4 = tensor.empty() : tensor<4x8x128xi32>
    %tb = linalg.broadcast ins(%ts : tensor<4xi32>) outs(%i4 : tensor<4x8x128xi32>) dimensions = [1, 2]
    %ref2 = tensor.collapse_shape %tb [[0, 1], [2]] : tensor<4x8x128xi32> into tensor<32x128xi32>
    %a2 = tensor.cast %2 : tensor<32x128xi32> to tensor<?x?xi32>
    %r2 = tensor.cast %ref2 : tensor<32x128xi32> to tensor<?x?xi32>
    %bad2 = func.call @int_mismatches(%a2, %r2) : (tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<i32>
    return %0, %bad0, %1, %bad1, %2, %bad2 : tensor<32x512xi32>, tensor<i32>, tensor<1024x1xf32>, tensor<i32>, tensor<32x128xi32>, tensor<i32>
  }
}
