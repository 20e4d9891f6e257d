spmd.mesh @mesh = <["x"=2, "y"=4, "z"=1]>

// y = x @ w with the contracted dimension split over "y": every device
// multiplies its blocks, then psum adds the partial products.
func.func @matmul(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = spmd.manual_computation(%x, %w)
      in_shardings=[<@mesh, [{}, {"y"}]>, <@mesh, [{"y"}, {}]>]
      out_shardings=[<@mesh, [{}, {}]>]
      manual_axes={"y", "z"} (%lx: tensor<8x4xf32>, %lw: tensor<4x4xf32>) {
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<8x4xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4xf32>) -> tensor<8x4xf32>
    %p = linalg.matmul ins(%lx, %lw : tensor<8x4xf32>, tensor<4x4xf32>)
                       outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
    %s = comm.all_reduce sum %p over @mesh {"z", "y"} : tensor<8x4xf32>
    spmd.return %s : tensor<8x4xf32>
  } : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
