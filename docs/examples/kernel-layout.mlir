// A whole-block body, o = exp(x) * 2 on (16, 256) blocks: two (8, 128)
// f32 tiles down and two across.
module attributes {kernel.target = #kernel.target<"v5e">} {
  func.func @body(%x: memref<16x256xf32, #kernel.space<vmem>>,
                  %o: memref<16x256xf32, #kernel.space<vmem>>) {
    %c0 = arith.constant 0 : index
    %a = kernel.load %x[%c0, %c0] : memref<16x256xf32, #kernel.space<vmem>>, vector<16x256xf32>
    %e = math.exp %a : vector<16x256xf32>
    %two = arith.constant dense<2.0> : vector<16x256xf32>
    %r = arith.mulf %e, %two : vector<16x256xf32>
    kernel.store %r, %o[%c0, %c0] : vector<16x256xf32>, memref<16x256xf32, #kernel.space<vmem>>
    return
  }
  func.func @main(%x: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %0 = kernel.call @body(%x) grid = [2]
        in_specs = [#kernel.block<[16, 256], (i) -> (i, 0)>]
        out_specs = [#kernel.block<[16, 256], (i) -> (i, 0)>]
        : (tensor<32x256xf32>) -> tensor<32x256xf32>
    return %0 : tensor<32x256xf32>
  }
}
