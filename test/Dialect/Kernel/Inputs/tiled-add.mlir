module attributes {kernel.target = #kernel.target<"v5e">} {
  // o = x + y, one (256, 512) block per grid step.
  func.func @add_body(%x: memref<256x512xf32, #kernel.space<vmem>>,
                      %y: memref<256x512xf32, #kernel.space<vmem>>,
                      %o: memref<256x512xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<256x512xf32, #kernel.space<vmem>>, vector<256x512xf32>
    %b = kernel.load %y[%c0, %c0] : memref<256x512xf32, #kernel.space<vmem>>, vector<256x512xf32>
    %s = arith.addf %a, %b : vector<256x512xf32>
    kernel.store %s, %o[%c0, %c0] : vector<256x512xf32>, memref<256x512xf32, #kernel.space<vmem>>
    return
  }

  func.func @add(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    %0 = kernel.call @add_body(%x, %y) grid = [4, 2]
        in_specs = [#kernel.block<[256, 512], (i, j) -> (i, j)>,
                    #kernel.block<[256, 512], (i, j) -> (i, j)>]
        out_specs = [#kernel.block<[256, 512], (i, j) -> (i, j)>]
        dimension_semantics = [parallel, parallel]
        : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}
