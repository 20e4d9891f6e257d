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

// -----

// Tests that a linalg.index of a sharded dynamic loop is refused (the
// offset of a device's block is not known when compiling).
spmd.mesh @mesh = <["x"=2]>
func.func @index_of_dynamic(%a: tensor<?xi64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<?xi64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%a : tensor<?xi64>) attrs = {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} {
  ^bb0(%o: i64):
    // expected-error @+1 {{'linalg.index' op reads the index of a sharded dynamic dimension, which spmd-partition does not support}}
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

// Tests that a reduction loop whose blocks are padded (3 over 2 devices)
// read through an index expression (a window) is refused.
spmd.mesh @mesh = <["x"=2]>
func.func @padded_window(%in: tensor<8xf32>, %w: tensor<3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<6xf32>
  // expected-error @+1 {{'linalg.generic' op reduces over a padded dimension through an index expression, which spmd-partition does not support}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%in, %w : tensor<8xf32>, tensor<3xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

