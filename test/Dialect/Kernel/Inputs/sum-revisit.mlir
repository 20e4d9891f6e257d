module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @sum_body(%x: memref<8x128xf32, #kernel.space<vmem>>,
                      %o: memref<8x128xf32, #kernel.space<vmem>>) {
    return
  }

  // Sums the 4 blocks of each row of blocks into one output block; the
  // grid walks the reduction axis first, so each output block is left and
  // come back to.
  func.func @sum(%x: tensor<16x512xf32>) -> tensor<16x128xf32> {
    %0 = kernel.call @sum_body(%x) grid = [4, 2]
        in_specs = [#kernel.block<[8, 128], (k, i) -> (i, k)>]
        out_specs = [#kernel.block<[8, 128], (k, i) -> (i, 0)>]
        : (tensor<16x512xf32>) -> tensor<16x128xf32>
    return %0 : tensor<16x128xf32>
  }
}
