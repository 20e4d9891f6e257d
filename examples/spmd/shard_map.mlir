// shard_map: the body sees per-device (local) shapes over the manual axis
// "x" and uses comm collectives explicitly (JAX's psum).
spmd.mesh @mesh = <["x"=4, "y"=2]>

func.func @row_sums(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = spmd.manual_computation(%arg0)
      in_shardings=[<@mesh, [{"x"}, {}]>]
      out_shardings=[<@mesh, [{}, {}]>]
      manual_axes={"x"}
      (%local: tensor<4x8xf32>) {
    %sum = comm.all_reduce sum %local over @mesh {"x"} : tensor<4x8xf32>
    %whole = comm.all_gather %sum over @mesh {"x"} dim 0 : tensor<4x8xf32> -> tensor<16x8xf32>
    spmd.return %whole : tensor<16x8xf32>
  } : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
