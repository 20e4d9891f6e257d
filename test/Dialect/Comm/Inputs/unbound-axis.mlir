spmd.mesh @mesh = <["x"=2, "y"=4]>

func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.manual_computation(%x) in_shardings=[<@mesh, [{"y"}]>]
      out_shardings=[<@mesh, [{"y"}]>] manual_axes={"y"} (%l: tensor<2xf32>) {
    %1 = comm.all_reduce sum %l over @mesh {"x", "y"} : tensor<2xf32>
    spmd.return %1 : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
