// RUN: tessera-opt %s --spmd-reshard-to-collectives --split-input-file --verify-diagnostics

spmd.mesh @a = <["x"=2]>
spmd.mesh @b = <["y"=4]>

// Tests that meshes of different numbers of devices cannot meet.
func.func @other_device_counts(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op moves a tensor between meshes of 2 and 4 devices, which is not supported}}
  %0 = spmd.reshard %arg0 <@b, [{"y"}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

