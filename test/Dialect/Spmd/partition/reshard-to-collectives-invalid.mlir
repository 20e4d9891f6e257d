// RUN: tessera-opt %s --spmd-reshard-to-collectives --split-input-file --verify-diagnostics

spmd.mesh @a = <["x"=2]>
spmd.mesh @b = <["y"=2]>

func.func @other_axes(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op moves a tensor between meshes with different axes, which is not supported}}
  %0 = spmd.reshard %arg0 <@b, [{"y"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

