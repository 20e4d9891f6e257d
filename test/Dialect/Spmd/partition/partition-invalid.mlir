// RUN: tessera-opt %s --spmd-partition --split-input-file --verify-diagnostics

spmd.mesh @mesh = <["x"=4]>

func.func @leftover(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  // expected-error @+1 {{'spmd.reshard' op must be removed before spmd-partition (run spmd-insert-reshards and spmd-reshard-to-collectives first)}}
  %0 = spmd.reshard %arg0 <@mesh, [{}]> : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'func.func' op has a sharding with an inlined mesh; run spmd-lift-inlined-meshes first}}
func.func @inlined(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<mesh<["x"=2]>, [{"x"}]>}) -> tensor<8xf32> {
  %0 = math.exp %arg0 {spmd.sharding = #spmd.sharding_per_value<[<mesh<["x"=2]>, [{"x"}]>]>} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @dynamic_unreduced(%arg0: tensor<?xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> tensor<?xf32> {
  // expected-error @+1 {{'spmd.replicated_to_unreduced' op on a dynamically shaped tensor is not supported by spmd-partition}}
  %0 = spmd.replicated_to_unreduced {"x"} %arg0 out_sharding=<@mesh, [{}], unreduced={"x"}> : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Sharded code outside a func.func would stay global: refused.
spmd.mesh @mesh = <["x"=2]>
llvm.func @not_a_func() {
  llvm.return
}
module @nested {
  spmd.mesh @mesh = <["x"=2]>
  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{'spmd.all_gather' op is outside a func.func: spmd-partition partitions func.func bodies only}}
    %0 = spmd.all_gather [{"x"}] %arg0 in_sharding=<@mesh, [{"x"}]> out_sharding=<@mesh, [{}]> : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
