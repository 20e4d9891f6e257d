// RUN: tessera-opt %s --spmd-insert-reshards --split-input-file --verify-diagnostics

spmd.mesh @a = <["x"=2]>
spmd.mesh @b = <["x"=4]>

func.func @two_meshes(
    %x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@a, [{"x"}]>},
    %y: tensor<8xf32> {spmd.sharding = #spmd.sharding<@b, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'arith.addf' op has operands or results on meshes with different axes, which spmd-insert-reshards does not support}}
  %0 = arith.addf %x, %y : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @execute_region(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'scf.execute_region' op carries sharded tensors through its regions, which spmd-insert-reshards does not support}}
  %0 = scf.execute_region -> tensor<8xf32> {
    scf.yield %x : tensor<8xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>}
  return %0 : tensor<8xf32>
}
