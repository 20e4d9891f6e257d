// The kernel program of the compatibility corpus (test/Integration/Kernel/
// add.mlir when the corpus was made): the seed's elementwise add as a
// kernel.call for the v5e target, over a grid of 8 blocks and over an array
// whose last block is partial; results 2 and 5 count the elements where the
// kernel and a plain linalg add differ (0).
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @add_body(%x: memref<8x128xf32, #kernel.space<vmem>>, %y: memref<8x128xf32, #kernel.space<vmem>>, %o: memref<8x128xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %b = kernel.load %y[%c0, %c0] : memref<8x128xf32, #kernel.space<vmem>>, vector<8x128xf32>
    %s = arith.addf %a, %b : vector<8x128xf32>
    kernel.store %s, %o[%c0, %c0] : vector<8x128xf32>, memref<8x128xf32, #kernel.space<vmem>>
    return
  }

  // The number of elements of %a and %b that differ by more than 1e-5
  // (relative) or are NaN.
  func.func private @mismatches(%a: tensor<?x128xf32>, %b: tensor<?x128xf32>) -> tensor<i32> {
    %zero = arith.constant 0 : i32
    %init = tensor.empty() : tensor<i32>
    %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
    %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x128xf32>, tensor<?x128xf32>) outs(%acc : tensor<i32>) {
    ^bb0(%x: f32, %y: f32, %n: i32):
      %d = arith.subf %x, %y : f32
      %ad = math.absf %d : f32
      %ay = math.absf %y : f32
      %rel = arith.constant 1.0e-5 : f32
      %t = arith.mulf %ay, %rel : f32
      %tol = arith.addf %t, %rel : f32
      %isbad = arith.cmpf ugt, %ad, %tol : f32
      %inc = arith.extui %isbad : i1 to i32
      %sum = arith.addi %n, %inc : i32
      linalg.yield %sum : i32
    } -> tensor<i32>
    return %bad : tensor<i32>
  }

  func.func @main(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>, %p: tensor<60x128xf32>, %q: tensor<60x128xf32>)
      -> (tensor<64x128xf32>, tensor<64x128xf32>, tensor<i32>, tensor<60x128xf32>, tensor<60x128xf32>, tensor<i32>) {
    %0 = kernel.call @add_body(%x, %y) grid = [8]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>, #kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %r = arith.addf %x, %y : tensor<64x128xf32>
    %d0 = tensor.cast %0 : tensor<64x128xf32> to tensor<?x128xf32>
    %d1 = tensor.cast %r : tensor<64x128xf32> to tensor<?x128xf32>
    %bad = func.call @mismatches(%d0, %d1) : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<i32>

    %1 = kernel.call @add_body(%p, %q) grid = [8]
        in_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>, #kernel.block<[8, 128], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[8, 128], (i) -> (i, 0)>]
        dimension_semantics = [parallel]
        : (tensor<60x128xf32>, tensor<60x128xf32>) -> tensor<60x128xf32>
    %s = arith.addf %p, %q : tensor<60x128xf32>
    %e0 = tensor.cast %1 : tensor<60x128xf32> to tensor<?x128xf32>
    %e1 = tensor.cast %s : tensor<60x128xf32> to tensor<?x128xf32>
    %bad2 = func.call @mismatches(%e0, %e1) : (tensor<?x128xf32>, tensor<?x128xf32>) -> tensor<i32>
    return %0, %r, %bad, %1, %s, %bad2 : tensor<64x128xf32>, tensor<64x128xf32>, tensor<i32>, tensor<60x128xf32>, tensor<60x128xf32>, tensor<i32>
  }
}
