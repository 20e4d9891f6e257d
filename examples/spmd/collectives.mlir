// Global-view collectives (what spmd-reshard-to-collectives produces); the
// canonicalizer fuses all_reduce + all_slice on the same axes into a
// reduce_scatter and drops an all_slice undone by an all_gather.
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @fuse(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], unreduced={"y"}>})
    -> tensor<8x8xf32> {
  %0 = spmd.all_reduce {"y"} %arg0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>
  %1 = spmd.all_slice [{"y"}, {}] %0 out_sharding=<@mesh, [{"y"}, {}]> : tensor<8x8xf32>
  %2 = spmd.all_slice [{}, {"x"}] %1 out_sharding=<@mesh, [{"y"}, {"x"}]> : tensor<8x8xf32>
  %3 = spmd.all_gather [{}, {"x"}] %2 out_sharding=<@mesh, [{"y"}, {}]> : tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}
